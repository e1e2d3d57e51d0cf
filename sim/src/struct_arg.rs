//! By-value struct parameters given as raw bytes, with the addresses inside them.
//!
//! nvcc passes a C++ struct by value as one `.param .align A .b8 name[N]` (CUTLASS 3.x kernels
//! take their whole `Params` so: tensor maps, pointers, problem shape, scheduler state). The
//! bytes a host program built hold device addresses of that program's buffers; to run the
//! same parameter in the simulator those addresses must become the simulator's. A
//! [`StructArg`] is the bytes, the buffers the struct addresses, and a relocation per address:
//! "the 8 bytes at offset X are the address of buffer K (+ D)" or "the `CUtensorMap` at offset
//! Y is over buffer K (+ D)" (decoded, its global address rebased, re-encoded).

use crate::error::SimError;
use crate::tensormap::TensorMap;
use std::path::Path;

/// A by-value struct parameter: its bytes, the buffers it addresses and where it holds their
/// addresses. The simulator allocates the buffers, writes their addresses into a copy of the
/// bytes, and after the run copies the buffers' final contents back here.
#[derive(Clone, Debug, PartialEq)]
pub struct StructArg {
    /// The parameter's bytes as the host built them (addresses in them are overwritten).
    pub bytes: Vec<u8>,
    /// Global buffers of the struct's own (not kernel parameters), by name.
    pub buffers: Vec<StructBuffer>,
    /// The addresses the bytes hold.
    pub relocs: Vec<Reloc>,
}

/// A global buffer a [`StructArg`] addresses.
#[derive(Clone, Debug, PartialEq)]
pub struct StructBuffer {
    /// The name relocations and `--out INDEX.NAME` use.
    pub name: String,
    /// Its contents (after a run: the final contents).
    pub data: Vec<u8>,
}

/// One address inside a [`StructArg`]'s bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Byte offset into the struct.
    pub offset: usize,
    /// What is at the offset.
    pub kind: RelocKind,
    /// The buffer addressed.
    pub target: RelocTarget,
    /// Bytes into the buffer.
    pub add: u64,
}

/// What a [`Reloc`] rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocKind {
    /// An 8-byte little-endian address.
    Pointer,
    /// A 128-byte `CUtensorMap` (64-byte aligned) whose global address is rebased.
    TensorMap,
}

/// The buffer a [`Reloc`] addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelocTarget {
    /// The struct's own buffer `k` ([`StructArg::buffers`]).
    Own(usize),
    /// Buffer argument `i` of the same launch ([`ArgValue::Buffer`](crate::ArgValue::Buffer)).
    Arg(usize),
}

impl RelocKind {
    fn len(self) -> usize {
        match self {
            RelocKind::Pointer => 8,
            RelocKind::TensorMap => 128,
        }
    }
    fn name(self) -> &'static str {
        match self {
            RelocKind::Pointer => "ptr",
            RelocKind::TensorMap => "tmap",
        }
    }
}

impl StructArg {
    /// A struct of `bytes` with no buffers or relocations yet.
    pub fn new(bytes: Vec<u8>) -> StructArg {
        StructArg {
            bytes,
            buffers: Vec::new(),
            relocs: Vec::new(),
        }
    }

    /// Adds a buffer of the struct's own; returns its index for [`RelocTarget::Own`].
    pub fn buffer(&mut self, name: &str, data: Vec<u8>) -> usize {
        self.buffers.push(StructBuffer {
            name: name.to_string(),
            data,
        });
        self.buffers.len() - 1
    }

    /// Says that the 8 bytes at `offset` are the address of `target` plus `add`.
    pub fn pointer(&mut self, offset: usize, target: RelocTarget, add: u64) -> &mut StructArg {
        self.relocs.push(Reloc {
            offset,
            kind: RelocKind::Pointer,
            target,
            add,
        });
        self
    }

    /// Says that the `CUtensorMap` at `offset` is over `target` from byte `add`.
    pub fn tensor_map(&mut self, offset: usize, target: RelocTarget, add: u64) -> &mut StructArg {
        self.relocs.push(Reloc {
            offset,
            kind: RelocKind::TensorMap,
            target,
            add,
        });
        self
    }

    /// The contents of the own buffer `name` (after a run: its final contents).
    pub fn data(&self, name: &str) -> Option<&[u8]> {
        self.buffers
            .iter()
            .find(|b| b.name == name)
            .map(|b| b.data.as_slice())
    }

    /// Reads a description (`phasegate sim --arg struct:FILE`), one item a line, `#` comments:
    ///
    /// ```text
    /// bytes PATH                     the struct's bytes (the parameter's size)
    /// buffer NAME file:PATH|zero:N   a global buffer of its own
    /// ptr OFFSET TARGET[+ADD]        the 8 bytes at OFFSET are TARGET's address (+ ADD)
    /// tmap OFFSET TARGET[+ADD]       the CUtensorMap at OFFSET is over TARGET (+ ADD)
    /// ```
    ///
    /// TARGET is a buffer's NAME or `arg:I` (buffer argument I of the launch); numbers are
    /// decimal or `0x` hexadecimal. Paths are relative to `dir` (the description's folder).
    pub fn parse(text: &str, dir: &Path) -> Result<StructArg, String> {
        let mut bytes = None;
        let mut s = StructArg::new(Vec::new());
        let mut pending = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |e: String| format!("line {}: {e}", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                ["bytes", path] => {
                    if bytes.is_some() {
                        return Err(at("a second `bytes` line".into()));
                    }
                    bytes = Some(read(dir, path).map_err(at)?);
                }
                ["buffer", name, source] => {
                    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return Err(at(format!(
                            "`{name}` is not a buffer name (letters, digits, _)"
                        )));
                    }
                    if s.buffers.iter().any(|b| b.name == *name) {
                        return Err(at(format!("a second buffer named `{name}`")));
                    }
                    let data = match source.split_once(':') {
                        Some(("file", path)) => read(dir, path).map_err(at)?,
                        Some(("zero", count)) => {
                            let count = number(count).map_err(at)?;
                            if count > 1 << 32 {
                                return Err(at(format!(
                                    "a buffer of {count} bytes is larger than the simulator allows (4 GiB)"
                                )));
                            }
                            vec![0; count as usize]
                        }
                        _ => {
                            return Err(at(format!("`{source}` is neither file:PATH nor zero:N")));
                        }
                    };
                    s.buffer(name, data);
                }
                [kind @ ("ptr" | "tmap"), offset, target] => {
                    let kind = if *kind == "ptr" {
                        RelocKind::Pointer
                    } else {
                        RelocKind::TensorMap
                    };
                    let offset = number(offset).map_err(at)? as usize;
                    let (name, add) = match target.split_once('+') {
                        Some((name, add)) => (name, number(add).map_err(at)?),
                        None => (*target, 0),
                    };
                    pending.push((n + 1, kind, offset, name.to_string(), add));
                }
                _ => {
                    return Err(at(format!(
                        "`{line}` is not `bytes PATH`, `buffer NAME file:PATH|zero:N`, `ptr OFFSET TARGET[+ADD]` or `tmap OFFSET TARGET[+ADD]`"
                    )));
                }
            }
        }
        s.bytes = bytes.ok_or("no `bytes PATH` line")?;
        for (line, kind, offset, name, add) in pending {
            let target = match name.strip_prefix("arg:") {
                Some(i) => {
                    RelocTarget::Arg(number(i).map_err(|e| format!("line {line}: {e}"))? as usize)
                }
                None => RelocTarget::Own(
                    s.buffers
                        .iter()
                        .position(|b| b.name == name)
                        .ok_or_else(|| format!("line {line}: no buffer named `{name}`"))?,
                ),
            };
            s.relocs.push(Reloc {
                offset,
                kind,
                target,
                add,
            });
        }
        Ok(s)
    }

    /// Checks the relocations against the bytes and the launch's arguments (this is argument
    /// `index`): in bounds, tensor maps 64-byte aligned and decodable, none overlapping,
    /// targets that exist and are buffers, offsets into them in bounds. `args` are the launch's
    /// arguments as a struct sees them: a buffer's length, or the kind of a value that is not a
    /// buffer ([`ArgValue::kind_name`](crate::ArgValue::kind_name)).
    pub(crate) fn check(
        &self,
        index: usize,
        args: &[Result<usize, &'static str>],
    ) -> Result<(), SimError> {
        let fail = |e: String| Err(SimError::Args(format!("argument {index} (struct): {e}")));
        let mut spans: Vec<(usize, usize, &Reloc)> = Vec::new();
        for r in &self.relocs {
            let what = format!("{} at {:#x}", r.kind.name(), r.offset);
            let end = r.offset.checked_add(r.kind.len());
            if end.is_none_or(|end| end > self.bytes.len()) {
                return fail(format!(
                    "{what}: {} bytes from there do not fit in the struct's {}",
                    r.kind.len(),
                    self.bytes.len()
                ));
            }
            let end = r.offset + r.kind.len();
            if let Some((_, _, other)) = spans.iter().find(|(s, e, _)| r.offset < *e && *s < end) {
                return fail(format!(
                    "{what} overlaps {} at {:#x}",
                    other.kind.name(),
                    other.offset
                ));
            }
            spans.push((r.offset, end, r));
            let len = match r.target {
                RelocTarget::Own(k) => match self.buffers.get(k) {
                    Some(b) => b.data.len(),
                    None => {
                        return fail(format!(
                            "{what}: the struct has {} buffers, not {}",
                            self.buffers.len(),
                            k + 1
                        ));
                    }
                },
                RelocTarget::Arg(j) => match args.get(j) {
                    Some(Ok(len)) => *len,
                    Some(Err(kind)) => {
                        return fail(format!("{what}: argument {j} is a {kind}, not a buffer"));
                    }
                    None => {
                        return fail(format!(
                            "{what}: the launch has {} arguments, not {}",
                            args.len(),
                            j + 1
                        ));
                    }
                },
            };
            if r.add > len as u64 {
                return fail(format!(
                    "{what}: +{} is past the end of its {len}-byte buffer",
                    r.add
                ));
            }
            if r.kind == RelocKind::TensorMap {
                if r.offset % 64 != 0 {
                    return fail(format!(
                        "{what}: a CUtensorMap is 64-byte aligned (PTX ISA §5.5.8)"
                    ));
                }
                // Buffers are 256-byte aligned: the offset stands for the address.
                let mut map = self.map_at(r.offset).map_err(|e| {
                    SimError::Args(format!("argument {index} (struct): {what}: {e}"))
                })?;
                map.address = r.add;
                if let Err(e) = map.validate() {
                    return fail(format!("{what}: {e}"));
                }
            }
        }
        Ok(())
    }

    fn map_at(&self, offset: usize) -> Result<TensorMap, String> {
        let bytes: &[u8; 128] = self.bytes[offset..offset + 128]
            .try_into()
            .expect("checked: 128 bytes");
        TensorMap::decode(bytes).map_err(|e| format!("not a tensor map: {e}"))
    }

    /// The parameter bytes with every relocation applied, given the addresses of the own
    /// buffers and of the launch's arguments (`None` for those that are not buffers). Call
    /// after [`StructArg::check`].
    pub(crate) fn patched(&self, own: &[u64], args: &[Option<u64>]) -> Vec<u8> {
        let mut bytes = self.bytes.clone();
        for r in &self.relocs {
            let base = match r.target {
                RelocTarget::Own(k) => own[k],
                RelocTarget::Arg(j) => args[j].expect("checked: a buffer"),
            };
            let address = base + r.add;
            match r.kind {
                RelocKind::Pointer => {
                    bytes[r.offset..r.offset + 8].copy_from_slice(&address.to_le_bytes())
                }
                RelocKind::TensorMap => {
                    let mut map = self.map_at(r.offset).expect("checked: decodes");
                    map.address = address;
                    bytes[r.offset..r.offset + 128].copy_from_slice(&map.encode());
                }
            }
        }
        bytes
    }
}

fn read(dir: &Path, path: &str) -> Result<Vec<u8>, String> {
    let full = dir.join(path);
    std::fs::read(&full).map_err(|e| format!("cannot read `{}`: {e}", full.display()))
}

fn number(text: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("`{text}` is not a number (decimal or 0x...)"))
}
