//! Memory of a simulated launch: global buffers (the host's arguments and the module's
//! `.global`/`.const` variables), the kernel's parameter block, and the address windows that
//! generic addressing and `mapa` use.
//!
//! Address windows (64-bit generic addresses):
//! - global buffers from [`GLOBAL_BASE`], each followed by a [`GUARD`] gap so that running
//!   off the end of one buffer never lands in the next one (it is reported instead);
//! - the shared window at [`SHARED_GENERIC`]: a `.shared::cluster` address `a` is generic
//!   address `SHARED_GENERIC + a`;
//! - the local window at [`LOCAL_GENERIC`];
//! - the kernel parameters at [`PARAM_GENERIC`] (`cvta.param`: a kernel parameter's
//!   `.param` address is its offset in the parameter block; read-only).
//!
//! `.shared::cta` addresses start at [`SHARED_BASE`] (so that a null shared pointer is out of
//! bounds); a `.shared::cluster` address carries the target CTA's rank plus one in its bits
//! 24..31 (`mapa`), and an address below `1 << 24` means the executing CTA, as the spec's
//! "the `.shared::cta` window is contained in the `.shared::cluster` window" requires.

pub(crate) const GLOBAL_BASE: u64 = 0x0000_0001_0000_0000;
pub(crate) const GUARD: u64 = 1 << 20;
pub(crate) const SHARED_GENERIC: u64 = 0x0000_7000_0000_0000;
pub(crate) const LOCAL_GENERIC: u64 = 0x0000_7100_0000_0000;
pub(crate) const PARAM_GENERIC: u64 = 0x0000_7200_0000_0000;
pub(crate) const WINDOW: u64 = 1 << 32;
pub(crate) const SHARED_BASE: u32 = 1024;
pub(crate) const RANK_SHIFT: u32 = 24;
/// Most shared memory one CTA may have (H100: 227 KB usable per block).
pub(crate) const MAX_SHARED_BYTES: u32 = 227 * 1024;

/// One global allocation.
#[derive(Clone, Debug)]
pub(crate) struct Buffer {
    pub base: u64,
    pub bytes: Vec<u8>,
    pub read_only: bool,
    /// For reports: `argument 1`, `variable g_op`.
    pub name: String,
}

/// The global memory of a launch.
#[derive(Clone, Debug, Default)]
pub(crate) struct Global {
    pub buffers: Vec<Buffer>,
    next: u64,
    /// The buffer the last lookup hit: accesses of a warp mostly hit one buffer.
    last: usize,
}

/// Where a global access landed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GlobalLoc {
    pub buffer: usize,
    pub offset: usize,
}

/// Why a global access is not inside one buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GlobalFault {
    pub what: String,
}

impl Global {
    pub(crate) fn new() -> Self {
        Global {
            buffers: Vec::new(),
            next: GLOBAL_BASE,
            last: 0,
        }
    }

    /// Allocates a buffer aligned to 256 bytes (as `cudaMalloc` does) and returns its address.
    pub(crate) fn alloc(&mut self, bytes: Vec<u8>, read_only: bool, name: String) -> u64 {
        let base = self.next.div_ceil(256) * 256;
        self.next = base + bytes.len() as u64 + GUARD;
        self.buffers.push(Buffer {
            base,
            bytes,
            read_only,
            name,
        });
        base
    }

    /// Finds the buffer holding `[addr, addr + len)`.
    #[inline]
    pub(crate) fn locate(&mut self, addr: u64, len: u32) -> Result<GlobalLoc, GlobalFault> {
        locate(&self.buffers, &mut self.last, addr, len)
    }

    pub(crate) fn bytes(&self, loc: GlobalLoc, len: usize) -> &[u8] {
        &self.buffers[loc.buffer].bytes[loc.offset..loc.offset + len]
    }

    pub(crate) fn bytes_mut(&mut self, loc: GlobalLoc, len: usize) -> &mut [u8] {
        &mut self.buffers[loc.buffer].bytes[loc.offset..loc.offset + len]
    }
}

/// Finds the buffer of `buffers` holding `[addr, addr + len)`; `last` caches the buffer the
/// previous lookup hit.
#[inline]
pub(crate) fn locate(
    buffers: &[Buffer],
    last: &mut usize,
    addr: u64,
    len: u32,
) -> Result<GlobalLoc, GlobalFault> {
    let end_of_access = addr.saturating_add(len as u64);
    if let Some(b) = buffers.get(*last)
        && addr >= b.base
        && end_of_access <= b.base + b.bytes.len() as u64
    {
        return Ok(GlobalLoc {
            buffer: *last,
            offset: (addr - b.base) as usize,
        });
    }
    let index = buffers.partition_point(|b| b.base <= addr);
    if index > 0 {
        let b = &buffers[index - 1];
        let end = b.base + b.bytes.len() as u64;
        if end_of_access <= end {
            *last = index - 1;
            return Ok(GlobalLoc {
                buffer: index - 1,
                offset: (addr - b.base) as usize,
            });
        }
        if addr < end + GUARD {
            let off = addr - b.base;
            return Err(GlobalFault {
                what: format!(
                    "{len} bytes at offset {off} of {} ({} bytes): {} bytes past its end",
                    b.name,
                    b.bytes.len(),
                    end_of_access.saturating_sub(end)
                ),
            });
        }
    }
    if index < buffers.len() && buffers[index].base - addr <= GUARD {
        let b = &buffers[index];
        return Err(GlobalFault {
            what: format!(
                "{len} bytes {} bytes before the start of {}",
                b.base - addr,
                b.name
            ),
        });
    }
    Err(GlobalFault {
        what: format!("{len} bytes at 0x{addr:x}, which is no global allocation"),
    })
}

/// Little-endian load of `len <= 8` bytes (the common widths without a call to memcpy).
#[inline(always)]
pub(crate) fn load_le(bytes: &[u8]) -> u64 {
    match bytes.len() {
        4 => u32::from_le_bytes(bytes.try_into().expect("4 bytes")) as u64,
        8 => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        1 => bytes[0] as u64,
        2 => u16::from_le_bytes(bytes.try_into().expect("2 bytes")) as u64,
        n => {
            let mut buf = [0u8; 8];
            buf[..n].copy_from_slice(bytes);
            u64::from_le_bytes(buf)
        }
    }
}

/// Little-endian store of the low `out.len() <= 8` bytes of `v`.
#[inline(always)]
pub(crate) fn store_le(out: &mut [u8], v: u64) {
    match out.len() {
        4 => out.copy_from_slice(&(v as u32).to_le_bytes()),
        8 => out.copy_from_slice(&v.to_le_bytes()),
        1 => out[0] = v as u8,
        2 => out.copy_from_slice(&(v as u16).to_le_bytes()),
        n => out.copy_from_slice(&v.to_le_bytes()[..n]),
    }
}

/// The CTA rank a `.shared::cluster` address names, or `None` for the executing CTA.
#[inline]
pub(crate) fn cluster_rank(addr: u32) -> Option<u32> {
    match addr >> RANK_SHIFT {
        0 => None,
        r => Some(r - 1),
    }
}

/// The `.shared::cluster` address of `offset` in the CTA of rank `rank`.
#[inline]
pub(crate) fn cluster_address(rank: u32, offset: u32) -> u32 {
    ((rank + 1) << RANK_SHIFT) | (offset & ((1 << RANK_SHIFT) - 1))
}

#[inline]
pub(crate) fn cta_offset(addr: u32) -> u32 {
    addr & ((1 << RANK_SHIFT) - 1)
}
