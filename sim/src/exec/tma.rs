//! Tensor-map instructions: the issue and the completion of tensor copies, `tensormap.replace`,
//! `tensormap.cp_fenceproxy`, `fence.proxy.tensormap::generic` and `setmaxnreg`.
//!
//! A tensor copy moves one box (PTX ISA §5.5.3): the elements at `coords + k × element
//! stride` (dimension 0 contiguous), `⌈box / element stride⌉` of them per dimension (the
//! whole box along dimension 0). In shared memory the box is dense, rows of dimension 0
//! padded to the swizzle span, and each 16-byte chunk moved by the swizzle of its absolute
//! address (§5.5.7). Elements outside the tensor read as the map's fill (§5.5.3.3) and are
//! not written by stores; a load's complete-tx counts every element of the box. What an H100
//! does where the ISA is silent (checked against it, `tests/fixtures/tensormap/kernels.txt`):
//! the box's start along dimension 0 must be a multiple of 16 bytes, a store or reduction's
//! coordinates must not be negative (both raise an illegal-instruction error), and the
//! shared-memory box must be 128-byte aligned (a misaligned-address error).

use super::float::cvt;
use super::step::Step;
use crate::async_copy::AsyncKind;
use crate::barrier::mbarrier::Actor;
use crate::decode::TmaOp;
use crate::decode::*;
use crate::error::SimError;
use crate::machine::Machine;
use crate::memory::{GlobalLoc, SHARED_BASE};
use crate::memory::{load_le, store_le};
use crate::report::{FindingKind, Report, Stop};
use crate::state::{Res, lanes};
use crate::tensor_copy::TensorCopy;
use crate::tensormap::{self, Interleave, TensorMap, TmaDataType};
use crate::tma_state::Unfenced;

const COPY_SPEC: &str = "§9.7.9.25.5.2 (cp.async.bulk.tensor)";
const REDUCE_SPEC: &str = "§9.7.9.25.5.3 (cp.reduce.async.bulk.tensor)";
const MAP_SPEC: &str = "§5.5.8 (tensor-map)";
const REPLACE_SPEC: &str = "§9.7.9.26 (tensormap.replace)";
const FENCE_SPEC: &str = "§9.7.13.4 (fence.proxy.tensormap::generic)";
const SETMAXNREG_SPEC: &str = "§9.7.19.5 (setmaxnreg)";

/// Whether an H100 ran `cp.reduce.async.bulk.tensor` with `op` on a map of `t` (the others
/// it tried raised illegal-instruction errors: add on s64, u8, u16; min/max on f32, f64;
/// inc on s32, dec on u64; and on s64).
fn reduction_supported(op: AtomOp, t: TmaDataType) -> bool {
    use TmaDataType as T;
    match op {
        AtomOp::Add => matches!(
            t,
            T::U32 | T::I32 | T::U64 | T::F32 | T::F64 | T::F16 | T::Bf16
        ),
        AtomOp::Min | AtomOp::Max => {
            matches!(t, T::U32 | T::I32 | T::U64 | T::I64 | T::F16 | T::Bf16)
        }
        AtomOp::Inc | AtomOp::Dec => t == T::U32,
        AtomOp::And | AtomOp::Or | AtomOp::Xor => matches!(t, T::U32 | T::I32 | T::U64),
        AtomOp::Exch | AtomOp::Cas => false,
    }
}

fn op_name(op: AtomOp) -> &'static str {
    match op {
        AtomOp::Add => "add",
        AtomOp::Min => "min",
        AtomOp::Max => "max",
        AtomOp::Inc => "inc",
        AtomOp::Dec => "dec",
        AtomOp::And => "and",
        AtomOp::Or => "or",
        AtomOp::Xor => "xor",
        AtomOp::Exch => "exch",
        AtomOp::Cas => "cas",
    }
}

/// One element of a reduction: `old` combined with `x` as values of type `t`.
fn reduce_element(op: AtomOp, t: TmaDataType, old: u64, x: u64) -> u64 {
    match t {
        TmaDataType::F16 | TmaDataType::Bf16 => {
            // In f32 and rounded once: f32 holds the exact result of one f16 or bf16 operation
            // closely enough that rounding it again is exact (24 >= 2 × 11 + 2 bits).
            let half = if t == TmaDataType::F16 {
                CvtTy::F16
            } else {
                CvtTy::Bf16
            };
            let f32t = CvtTy::Float(FTy::F32);
            let a = f32::from_bits(cvt(old, half, f32t, Rnd::Default, false, false) as u32);
            let b = f32::from_bits(cvt(x, half, f32t, Rnd::Default, false, false) as u32);
            let r = match op {
                AtomOp::Add => a + b,
                AtomOp::Min => a.min(b),
                _ => a.max(b),
            };
            cvt(r.to_bits() as u64, f32t, half, Rnd::Rn, false, false)
        }
        TmaDataType::F32 | TmaDataType::F32Ftz | TmaDataType::Tf32 | TmaDataType::Tf32Ftz => {
            super::mem::atomic_value(op, MemTy::F32, old, x, 0)
        }
        TmaDataType::F64 => super::mem::atomic_value(op, MemTy::F64, old, x, 0),
        int => super::mem::atomic_value(
            op,
            MemTy::Int(IntTy {
                bits: (int.bytes() * 8) as u8,
                signed: matches!(int, TmaDataType::I32 | TmaDataType::I64),
            }),
            old,
            x,
            0,
        ),
    }
}

impl Machine<'_> {
    pub(super) fn exec_tma(&mut self, w: usize, eff: u32, pc: u32, op: &TmaOp) -> Res<Step> {
        match op {
            TmaOp::Load {
                rank,
                dst,
                map,
                coords,
                mbar,
                mask,
                cta_only,
            } => {
                if self.made_up() {
                    for lane in lanes(eff) {
                        let (to, m) = (
                            self.addr_value(w, lane, *dst),
                            self.addr_value(w, lane, *mbar),
                        );
                        let mask = mask.map(|s| self.src_value(w, lane, s) as u32 & 0xffff);
                        self.issue_unknown_load(w, lane, pc, to, m, mask, *cta_only)?;
                    }
                    return Ok(Step::Next);
                }
                for lane in lanes(eff) {
                    let a = self.addr_value(w, lane, *map);
                    let map_value = self.tensor_map(w, lane, pc, a, *rank)?;
                    let c = self.coords(w, lane, coords);
                    let (to, m) = (
                        self.addr_value(w, lane, *dst),
                        self.addr_value(w, lane, *mbar),
                    );
                    let mask = mask.map(|s| self.src_value(w, lane, s) as u32 & 0xffff);
                    self.issue_tensor_load(w, lane, pc, map_value, c, to, m, mask, *cta_only)?;
                }
            }
            TmaOp::Store {
                rank,
                map,
                coords,
                src,
                reduce,
            } => {
                if self.made_up() {
                    // The box is unknown: the store reads and writes nothing the run knows of,
                    // but counts in its bulk group.
                    for lane in lanes(eff) {
                        self.issue_async(
                            w,
                            lane,
                            pc,
                            AsyncKind::Unknown { mbar: None },
                            Some(true),
                        );
                    }
                    return Ok(Step::Next);
                }
                for lane in lanes(eff) {
                    let a = self.addr_value(w, lane, *map);
                    let map_value = self.tensor_map(w, lane, pc, a, *rank)?;
                    let c = self.coords(w, lane, coords);
                    let from = self.addr_value(w, lane, *src);
                    self.issue_tensor_store(w, lane, pc, map_value, c, from, *reduce)?;
                }
            }
            TmaOp::Replace {
                field,
                space,
                addr,
                value,
            } => {
                for lane in lanes(eff) {
                    let a = self.addr_value(w, lane, *addr);
                    let v = self.src_value(w, lane, *value);
                    self.tensormap_replace(w, lane, pc, *space, a, *field, v)?;
                }
            }
            TmaOp::CopyFenceProxy { dst, src } => {
                for lane in lanes(eff) {
                    let (to, from) = (
                        self.addr_value(w, lane, *dst),
                        self.addr_value(w, lane, *src),
                    );
                    self.copy_fence_proxy(w, lane, pc, to, from)?;
                }
            }
            TmaOp::Fence { addr } => {
                for lane in lanes(eff) {
                    match addr {
                        Some(a) => {
                            let a = self.addr_value(w, lane, *a);
                            self.mem.tma.change(Unfenced::Fenced(Some(a)));
                        }
                        None => self.mem.tma.change(Unfenced::Fenced(None)),
                    }
                }
            }
            TmaOp::SetMaxNReg { inc, regs } => {
                self.setmaxnreg(w, eff, pc, *inc, *regs)?;
            }
        }
        Ok(Step::Next)
    }

    fn coords(&self, w: usize, lane: usize, coords: &[Src]) -> [i64; 5] {
        let mut c = [0i64; 5];
        for (i, s) in coords.iter().enumerate() {
            c[i] = self.src_value(w, lane, *s) as u32 as i32 as i64;
        }
        c
    }

    fn tma_report(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        kind: FindingKind,
        spec: &str,
        msg: String,
    ) -> Report {
        Report::new(kind, spec, msg).site(self.site(w, 1 << lane, pc, "issues the copy"))
    }

    fn unsupported_here(&self, pc: u32, reason: String) -> Stop {
        let site = &self.prog.sites[pc as usize];
        SimError::Unsupported {
            function: self.prog.funcs[site.func as usize].name.clone(),
            line: site.line,
            instruction: site.text.to_string(),
            reason,
        }
        .into()
    }

    /// Reads and decodes the tensor map at generic address `a` for a copy of `rank`
    /// dimensions.
    fn tensor_map(&mut self, w: usize, lane: usize, pc: u32, a: u64, rank: u8) -> Res<TensorMap> {
        let mut bytes = [0u8; 128];
        match self.resolve(w, lane, pc, Space::Generic, a, 128)? {
            super::mem::Target::KernelParam(i) => {
                bytes.copy_from_slice(&self.mem.kernel_params[i..i + 128]);
            }
            super::mem::Target::Global(loc) => {
                self.mem.global.read(loc, &mut bytes);
                self.mem.tma.map_reads = true;
                if let Some((_, site)) = self
                    .mem
                    .tma
                    .unfenced
                    .iter()
                    .find(|(m, _)| *m < a + 128 && a < m + 128)
                {
                    return Err(self
                        .tma_report(
                            w,
                            lane,
                            pc,
                            FindingKind::ProxyFenceMissing,
                            FENCE_SPEC,
                            format!(
                                "a tensor copy reads the tensor map at 0x{a:x}, which tensormap.replace modified through the generic proxy, without fence.proxy.tensormap::generic in between"
                            ),
                        )
                        .site(site.clone())
                        .note("tensor copies read tensor maps through the tensormap proxy: fence the modified map with fence.proxy.tensormap::generic (release by the writer, acquire by the user), or copy it with tensormap.cp_fenceproxy")
                        .into());
                }
            }
            _ => {
                return Err(self
                    .tma_report(
                        w,
                        lane,
                        pc,
                        FindingKind::OutOfBounds,
                        MAP_SPEC,
                        format!(
                            "the tensor map address 0x{a:x} is not in .param, .const or .global memory"
                        ),
                    )
                    .into());
            }
        }
        if !a.is_multiple_of(64) {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::Misaligned,
                    MAP_SPEC,
                    format!("the tensor map at 0x{a:x} is not 64-byte aligned"),
                )
                .into());
        }
        let map = TensorMap::decode(&bytes).map_err(|e| -> Stop {
            self.tma_report(
                w,
                lane,
                pc,
                FindingKind::TensorCopy,
                MAP_SPEC,
                format!("the tensor map at 0x{a:x} is not a tile-mode map: {e}"),
            )
            .into()
        })?;
        if map.rank != rank as u32 {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::TensorCopy,
                    COPY_SPEC,
                    format!(
                        "a .{rank}d tensor copy with a tensor map of rank {}",
                        map.rank
                    ),
                )
                .into());
        }
        if map.interleave != Interleave::None {
            return Err(self.unsupported_here(
                pc,
                "tensor maps with an interleaved layout are not supported".into(),
            ));
        }
        let inner = map.box_count(0) * map.dtype.bytes();
        if !inner.is_multiple_of(16)
            || (map.swizzle != tensormap::Swizzle::None && inner > map.swizzle.span())
        {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::TensorCopy,
                    MAP_SPEC,
                    format!(
                        "the tensor map's box is {inner} bytes along dimension 0: a multiple of 16, at most the swizzle span ({} bytes), is required",
                        map.swizzle.span()
                    ),
                )
                .note("cuTensorMapEncodeTiled refuses such a map; one made with tensormap.replace has no defined behaviour")
                .into());
        }
        Ok(map)
    }

    /// Checks shared by loads and stores: the box's alignment, the smem address; returns the
    /// global buffer and map offset of the in-bounds elements.
    fn tensor_global(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        map: &TensorMap,
        c: &[i64; 5],
        spec: &str,
    ) -> Res<Option<(usize, i64)>> {
        let e = map.dtype.bytes() as i64;
        if (c[0] * e) % 16 != 0 {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::Misaligned,
                    spec,
                    format!(
                        "the box starts {} bytes into dimension 0 (coordinate {} of {e}-byte elements): not a multiple of 16",
                        c[0] * e,
                        c[0]
                    ),
                )
                .note("an H100 raises an illegal-instruction error for such a copy (the ISA requires the box's global address to be 16-byte aligned)")
                .into());
        }
        // The in-bounds coordinates' extent per dimension.
        let mut lo = 0i64;
        let mut hi = 0i64;
        for (i, &ci) in c.iter().enumerate().take(map.rank as usize) {
            let step = if i == 0 {
                1
            } else {
                map.element_strides[i] as i64
            };
            let n = map.box_count(i) as i64;
            let dim = map.dims[i] as i64;
            // The first and last of them, without collecting them all (a vector a dimension
            // of every TMA copy, 2 % of a CUTLASS GEMM's host instructions).
            let mut inside = (0..n).map(|k| ci + k * step).filter(|&x| x >= 0 && x < dim);
            let Some(first) = inside.next() else {
                return Ok(None);
            };
            let last = inside.next_back().unwrap_or(first);
            let s = if i == 0 { e } else { map.strides[i - 1] as i64 };
            lo += first * s;
            hi += last * s;
        }
        let start = map.address.wrapping_add(lo as u64);
        let len = (hi - lo + e) as u64;
        match self.mem.global.locate(start, len.min(u32::MAX as u64) as u32) {
            Ok(loc) if len <= u32::MAX as u64 => Ok(Some((loc.buffer, loc.offset as i64 - lo))),
            Ok(_) => Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::OutOfBounds,
                    spec,
                    format!("the box's elements span {len} bytes of global memory"),
                )
                .into()),
            Err(fault) => Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::OutOfBounds,
                    spec,
                    format!(
                        "out-of-bounds access: the elements of the box inside the tensor map's tensor are not in global memory: {}",
                        fault.what
                    ),
                )
                .note("the tensor map describes more memory than its buffer has")
                .into()),
        }
    }

    fn smem_aligned(&self, w: usize, lane: usize, pc: u32, a: u64, spec: &str) -> Res<()> {
        if a.is_multiple_of(128) {
            return Ok(());
        }
        Err(self
            .tma_report(
                w,
                lane,
                pc,
                FindingKind::Misaligned,
                spec,
                format!("the shared-memory box at 0x{a:x} is not 128-byte aligned"),
            )
            .note("an H100 raises a misaligned-address error for such a copy")
            .into())
    }

    /// A tensor load of a probe run ([`crate::probe`]): its tensor map is made up, so it moves
    /// no data and completes an unknown number of bytes on the mbarrier of each CTA it names.
    #[allow(clippy::too_many_arguments)]
    fn issue_unknown_load(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        to: u64,
        m: u64,
        mask: Option<u32>,
        cta_only: bool,
    ) -> Res<()> {
        let space = if cta_only {
            Space::Shared
        } else {
            Space::SharedCluster
        };
        self.smem_aligned(w, lane, pc, to, COPY_SPEC)?;
        let targets = self.multicast_targets(w, lane, pc, to, m, mask, COPY_SPEC)?;
        for (_, m) in targets {
            let (mc, mo) = self.mbar_locate(w, lane, pc, space, m, COPY_SPEC)?;
            if !self.ctas[mc as usize]
                .mbars
                .get(&mo)
                .is_some_and(|b| b.valid)
            {
                return Err(self
                    .tma_report(
                        w,
                        lane,
                        pc,
                        FindingKind::MbarrierUninitialized,
                        "§9.7.13.15",
                        format!(
                            "tensor copy signalling an invalid mbarrier ({})",
                            self.mbar_name(mc, mo)
                        ),
                    )
                    .into());
            }
            self.issue_on_mbarrier(
                w,
                lane,
                pc,
                (mc, mo),
                AsyncKind::Unknown {
                    mbar: Some((mc, mo)),
                },
                || "a tensor copy".into(),
            );
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn issue_tensor_load(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        map: TensorMap,
        c: [i64; 5],
        to: u64,
        m: u64,
        mask: Option<u32>,
        cta_only: bool,
    ) -> Res<()> {
        let global = self.tensor_global(w, lane, pc, &map, &c, COPY_SPEC)?;
        let footprint = map.smem_footprint().min(u32::MAX as u64) as u32;
        let space = if cta_only {
            Space::Shared
        } else {
            Space::SharedCluster
        };
        self.smem_aligned(w, lane, pc, to, COPY_SPEC)?;
        let targets = self.multicast_targets(w, lane, pc, to, m, mask, COPY_SPEC)?;
        for (to, m) in targets {
            let (cta, off) = match self.resolve(w, lane, pc, space, to, footprint.max(1))? {
                super::mem::Target::Shared { cta, off } => (cta, off),
                _ => unreachable!("shared target"),
            };
            let (mc, mo) = self.mbar_locate(w, lane, pc, space, m, COPY_SPEC)?;
            if mc != cta {
                return Err(self
                    .tma_report(
                        w,
                        lane,
                        pc,
                        FindingKind::MbarrierAddress,
                        COPY_SPEC,
                        "the mbarrier of a tensor copy is not in the CTA of its destination".into(),
                    )
                    .into());
            }
            if !self.ctas[mc as usize]
                .mbars
                .get(&mo)
                .is_some_and(|b| b.valid)
            {
                return Err(self
                    .tma_report(
                        w,
                        lane,
                        pc,
                        FindingKind::MbarrierUninitialized,
                        "§9.7.13.15",
                        format!(
                            "tensor copy signalling an invalid mbarrier ({})",
                            self.mbar_name(mc, mo)
                        ),
                    )
                    .into());
            }
            let copy = TensorCopy {
                map: map.clone(),
                coords: c,
                global,
                cta,
                smem: off + SHARED_BASE,
                mbar: Some((mc, mo)),
                reduce: None,
            };
            self.issue_async(w, lane, pc, AsyncKind::Tensor(Box::new(copy)), None);
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn issue_tensor_store(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        map: TensorMap,
        c: [i64; 5],
        from: u64,
        reduce: Option<AtomOp>,
    ) -> Res<()> {
        let spec = if reduce.is_some() {
            REDUCE_SPEC
        } else {
            COPY_SPEC
        };
        if let Some(op) = reduce
            && !reduction_supported(op, map.dtype)
        {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::TensorCopy,
                    REDUCE_SPEC,
                    format!(
                        "cp.reduce.async.bulk.tensor .{} on a tensor map of .{}",
                        op_name(op),
                        map.dtype.name()
                    ),
                )
                .note("an H100 ran add on u32 s32 u64 f32 f64 f16 bf16, min/max on u32 s32 u64 s64 f16 bf16, inc/dec on u32, and/or/xor on u32 s32 u64, and raised an illegal-instruction error for the other combinations it was given")
                .into());
        }
        if let Some(i) = (0..map.rank as usize).find(|&i| c[i] < 0) {
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::TensorCopy,
                    spec,
                    format!(
                        "a tensor store or reduction with the negative coordinate {} in dimension {i}",
                        c[i]
                    ),
                )
                .note("an H100 raises an illegal-instruction error for a store or reduction whose box starts before the tensor in any dimension (a load fills those elements instead)")
                .into());
        }
        let global = self.tensor_global(w, lane, pc, &map, &c, spec)?;
        if let Some((b, _)) = global
            && let Some(name) = self.mem.global.read_only(GlobalLoc {
                buffer: b,
                offset: 0,
            })
        {
            let name = name.to_string();
            return Err(self
                .tma_report(
                    w,
                    lane,
                    pc,
                    FindingKind::OutOfBounds,
                    spec,
                    format!("a tensor store to read-only {name}"),
                )
                .into());
        }
        self.smem_aligned(w, lane, pc, from, spec)?;
        let footprint = map.smem_footprint().min(u32::MAX as u64) as u32;
        let (cta, off) = match self.resolve(w, lane, pc, Space::Shared, from, footprint.max(1))? {
            super::mem::Target::Shared { cta, off } => (cta, off),
            _ => unreachable!("shared target"),
        };
        let copy = TensorCopy {
            map,
            coords: c,
            global,
            cta,
            smem: off + SHARED_BASE,
            mbar: None,
            reduce,
        };
        self.issue_async(w, lane, pc, AsyncKind::Tensor(Box::new(copy)), Some(true));
        Ok(())
    }

    /// Completes a tensor copy issued by thread `t` (`op`'s clock `vc`).
    pub(crate) fn complete_tensor(
        &mut self,
        copy: &TensorCopy,
        t: u32,
        vc: &crate::race::OpClock,
        pc: u32,
        actor: Actor,
    ) -> Res<()> {
        let map = &copy.map;
        let e = map.dtype.bytes() as usize;
        let cta = copy.cta as usize;
        if let Some((mc, mo)) = copy.mbar {
            if self.race.checking() {
                for (off, len) in copy.chunks() {
                    self.race
                        .async_write(t, vc, copy.cta, off, len, pc, false)
                        .map_err(|c| self.race_report(c, copy.cta, t, pc, true, false))?;
                }
            }
            let fill = map.fill_bytes();
            let tf32 = matches!(map.dtype, TmaDataType::Tf32 | TmaDataType::Tf32Ftz);
            let (global, shared) = (&mut self.mem.global, &mut self.ctas[cta].shared);
            for &(s, g, n) in self.mem.tma.box_runs.runs(copy) {
                let s = (s - SHARED_BASE) as usize;
                let dst = &mut shared[s..s + e * n as usize];
                match (g, copy.global) {
                    (Some(g), Some((b, _))) => {
                        global.read(
                            GlobalLoc {
                                buffer: b,
                                offset: g,
                            },
                            dst,
                        );
                        if tf32 {
                            for x in dst.chunks_exact_mut(e) {
                                let v = tensormap::round_tf32(load_le(x) as u32);
                                store_le(x, v as u64);
                            }
                        }
                    }
                    _ => {
                        for x in dst.chunks_exact_mut(e) {
                            x.copy_from_slice(&fill[..e]);
                        }
                    }
                }
            }
            self.async_mbar_valid(mc, mo, actor, vc)?;
            let mb = self.ctas[mc as usize].mbars.get_mut(&mo).expect("valid");
            vc.join_into(&mut mb.cur_vc);
            let bytes = map.box_bytes() as i64;
            self.mbar_tx(mc, mo, actor, -bytes, MbarOp::CompleteTx)?;
            return Ok(());
        }
        if self.race.checking() {
            // One call for the box, its quads' needs kept for the next store of the box
            // (`Race::async_read_box`: each lane of CUTLASS's storing warp stores it).
            let at: Vec<(u32, u32, u32)> = copy
                .chunks()
                .into_iter()
                .map(|(off, len)| (copy.cta, off, len))
                .collect();
            self.race
                .async_read_box(t, vc, copy.cta, &at, pc)
                .map_err(|(_, c)| self.race_report(c, copy.cta, t, pc, true, true))?;
        }
        let Some((b, _)) = copy.global else {
            return Ok(());
        };
        let (global, shared) = (&mut self.mem.global, &self.ctas[cta].shared);
        for &(s, g, n) in self.mem.tma.box_runs.runs(copy) {
            let Some(g) = g else { continue };
            let s = (s - SHARED_BASE) as usize;
            let src = &shared[s..s + e * n as usize];
            match copy.reduce {
                None => global.write(
                    GlobalLoc {
                        buffer: b,
                        offset: g,
                    },
                    src,
                ),
                Some(op) => {
                    for (j, src) in src.chunks_exact(e).enumerate() {
                        let loc = GlobalLoc {
                            buffer: b,
                            offset: g + j * e,
                        };
                        let mut dst = [0u8; 8];
                        global.read(loc, &mut dst[..e]);
                        let v = reduce_element(op, map.dtype, load_le(&dst[..e]), load_le(src));
                        store_le(&mut dst[..e], v);
                        global.write(loc, &dst[..e]);
                    }
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn tensormap_replace(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        space: Space,
        a: u64,
        field: tensormap::Field,
        v: u64,
    ) -> Res<()> {
        let t = w as u32 * 32 + lane as u32;
        let target = self.resolve(w, lane, pc, space, a, 128)?;
        let report = |m: &Self, kind, msg: String| -> Stop {
            Report::new(kind, REPLACE_SPEC, msg)
                .site(m.site(w, 1 << lane, pc, "replaces a field"))
                .into()
        };
        if !a.is_multiple_of(64) {
            return Err(report(
                self,
                FindingKind::Misaligned,
                format!("tensormap.replace on a tensor map at 0x{a:x}, not 64-byte aligned"),
            ));
        }
        let mut bytes = [0u8; 128];
        match target {
            super::mem::Target::Global(loc) => {
                if let Some(name) = self.mem.global.read_only(loc) {
                    let name = name.to_string();
                    return Err(report(
                        self,
                        FindingKind::OutOfBounds,
                        format!("tensormap.replace on read-only {name}"),
                    ));
                }
                self.mem.global.read(loc, &mut bytes);
            }
            super::mem::Target::Shared { cta, off } => {
                if self.race.checking() {
                    self.race.next_store();
                    self.race
                        .write(t, cta, off, 128, pc)
                        .map_err(|c| self.race_report(c, cta, t, pc, false, false))?;
                }
                let o = off as usize;
                bytes.copy_from_slice(&self.ctas[cta as usize].shared[o..o + 128]);
            }
            _ => {
                return Err(report(
                    self,
                    FindingKind::OutOfBounds,
                    format!(
                        "tensormap.replace on 0x{a:x}, which is not in .global or .shared::cta memory"
                    ),
                ));
            }
        }
        tensormap::replace(&mut bytes, field, v)
            .map_err(|why| report(self, FindingKind::TensorCopy, why))?;
        self.warps[w].effects += 1;
        match target {
            super::mem::Target::Global(loc) => {
                self.mem.global.write(loc, &bytes);
                let site = self.site(w, 1 << lane, pc, "modified it");
                let global_addr = self.mem.global.address(loc);
                self.mem.tma.change(Unfenced::Modified(global_addr, site));
            }
            super::mem::Target::Shared { cta, off } => {
                let o = off as usize;
                self.ctas[cta as usize].shared[o..o + 128].copy_from_slice(&bytes);
            }
            _ => unreachable!("checked"),
        }
        Ok(())
    }

    /// `tensormap.cp_fenceproxy`: 128 bytes from shared to global memory, then the release
    /// fence of the tensormap proxy (the copy is fenced: a later tensor copy may use it).
    fn copy_fence_proxy(&mut self, w: usize, lane: usize, pc: u32, to: u64, from: u64) -> Res<()> {
        let t = w as u32 * 32 + lane as u32;
        let (cta, off) = match self.resolve(w, lane, pc, Space::Shared, from, 128)? {
            super::mem::Target::Shared { cta, off } => (cta, off),
            _ => unreachable!("shared target"),
        };
        if self.race.checking() {
            self.race
                .read(t, cta, off, 128, pc)
                .map_err(|c| self.race_report(c, cta, t, pc, false, true))?;
        }
        let loc = match self.resolve(w, lane, pc, Space::Global, to, 128)? {
            super::mem::Target::Global(loc) => loc,
            _ => unreachable!("global target"),
        };
        if let Some(name) = self.mem.global.read_only(loc) {
            let name = name.to_string();
            return Err(Report::new(
                FindingKind::OutOfBounds,
                "§9.7.13.16 (tensormap.cp_fenceproxy)",
                format!("tensormap.cp_fenceproxy to read-only {name}"),
            )
            .site(self.site(w, 1 << lane, pc, "copies a tensor map"))
            .into());
        }
        let o = off as usize;
        let bytes: Vec<u8> = self.ctas[cta as usize].shared[o..o + 128].to_vec();
        self.mem.global.write(loc, &bytes);
        self.warps[w].effects += 1;
        self.mem.tma.change(Unfenced::Fenced(Some(to)));
        Ok(())
    }

    /// `setmaxnreg` by the lanes `eff` of warp `w`: the count must be a multiple of 8 in
    /// 24..=256, and every warp of the warpgroup must execute the same `setmaxnreg`.
    fn setmaxnreg(&mut self, w: usize, eff: u32, pc: u32, inc: bool, regs: u32) -> Res<()> {
        let name = if inc { "inc" } else { "dec" };
        if !(24..=256).contains(&regs) || !regs.is_multiple_of(8) {
            return Err(Report::new(
                FindingKind::Setmaxnreg,
                SETMAXNREG_SPEC,
                format!("setmaxnreg.{name} to {regs} registers: the count is a multiple of 8 in 24..=256"),
            )
            .site(self.site(w, eff, pc, "execute it"))
            .into());
        }
        let warp = &self.warps[w];
        let (cta, index) = (warp.cta, warp.index);
        let group = index / 4;
        if (group + 1) * 4 > self.shape.warps_per_cta {
            return Err(Report::new(
                FindingKind::Setmaxnreg,
                SETMAXNREG_SPEC,
                format!(
                    "setmaxnreg in warpgroup {group}, which has {} of its 4 warps (the CTA has {} threads)",
                    self.shape.warps_per_cta - group * 4,
                    self.shape.threads_per_cta
                ),
            )
            .site(self.site(w, eff, pc, "execute it"))
            .note("setmaxnreg is executed by all warps of a warpgroup together")
            .into());
        }
        let key = (self.cluster_index, cta, group);
        let seqs = self.mem.tma.setmaxnreg.entry(key).or_default();
        let me = (index % 4) as usize;
        let k = seqs[me].len();
        seqs[me].push((inc, regs, w, pc));
        let other = (0..4).filter(|&o| o != me).find_map(|o| {
            seqs[o]
                .get(k)
                .copied()
                .filter(|x| (x.0, x.1) != (inc, regs))
        });
        if let Some((oinc, oregs, ow, opc)) = other {
            let oname = if oinc { "inc" } else { "dec" };
            return Err(Report::new(
                FindingKind::Setmaxnreg,
                SETMAXNREG_SPEC,
                format!(
                    "the warps of warpgroup {group} execute different setmaxnreg: .{name} {regs} and .{oname} {oregs}"
                ),
            )
            .site(self.site(w, eff, pc, &format!("execute setmaxnreg.{name} {regs}")))
            .site(self.site(
                ow,
                self.warps[ow].lanes,
                opc,
                &format!("executed setmaxnreg.{oname} {oregs} there"),
            ))
            .note("all warps of a warpgroup must execute the same setmaxnreg (it sets the register count of the warpgroup)")
            .into());
        }
        Ok(())
    }
}
