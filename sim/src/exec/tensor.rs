//! Tensor-core instructions, with the PTX ISA's fragment layouts (§9.7.14.5, §9.7.15.5):
//!
//! - `ldmatrix` / `stmatrix` (.m8n8 .b16): row `r` of matrix `i` is at the address of lane
//!   `8i + r` (lanes past the last matrix give none); lane `l` holds row `l / 4`, columns
//!   `2(l % 4)` and `2(l % 4) + 1` of each matrix (`.trans`: the transposed matrix). Each row is
//!   one 16-byte shared access of the lane that gave its address, race-checked as its `ld`/`st`.
//! - `mma.sync.aligned.m16n8kK`: the warp's fragments gathered into A (16xK), B (Kx8) and
//!   C (16x8), multiplied, and the result scattered into D.
//! - `wgmma.mma_async.m64nNkK`: each warp of the warpgroup (warp index % 4 = q) owns rows
//!   16q..16q+15 of A and D, so a warp computes its part alone, from its registers and the
//!   shared-memory matrices the 64-bit descriptors describe (start address, leading and stride
//!   byte offsets, swizzle, §9.7.15.5.1.2.2). The operation is asynchronous: it reads shared
//!   memory in the async proxy when issued (the read is an async agent's, ordered after what
//!   the warp's threads have seen and before what they acquire at `wgmma.wait_group`, so
//!   generic writes need `fence.proxy.async`), and its result reaches the registers when a
//!   `wgmma.wait_group` completes its group. Until then accessing its accumulator or A
//!   registers is a finding (`wgmma_register_in_flight`), except by a later `wgmma.mma_async`
//!   of the same shape using them as its accumulator, which sees the pending value (the
//!   ordering §9.7.15.7.1 guarantees). `wgmma.fence` must separate other accesses to those
//!   registers from a `wgmma.mma_async`, and precede the first one (`wgmma_fence_missing`).
//!
//! Arithmetic. Products of f16, bf16, tf32 (its 13 low mantissa bits ignored), e4m3 and e5m2
//! elements are exact; a result element is C (or the accumulator) plus the products in k order,
//! summed in f64 and rounded once to the destination type (nearest even). The ISA leaves the
//! accumulation order and rounding of the hardware unspecified ("at least single precision").
//! Measured on an H100 (book/src/gpu/validation.md): exact inputs agree bit for bit; otherwise
//! f16, bf16 and tf32 results differ by about one f32 ulp of the largest output, and fp8
//! `wgmma` by up to 2^-13 of it (the hardware keeps about 13 bits there; not imitated).
//! Integer MMAs are exact, wrapping (or saturating with `.satfinite`) to s32.

use super::mac::{
    PANEL, accumulate, b_index, pack, pack_f32, pack_words, unpack, unpack_f32, unpack_words,
};
use super::step::Step;
use crate::decode::Fmt;
use crate::decode::*;
use crate::decode::{Elem, Mma, TensorOp, Wgmma, WgmmaA};
use crate::machine::{Machine, Res};
use crate::race::Clock;
use crate::race::join_into;
use crate::report::{FindingKind, Report, Stop};
use crate::state::{Block, lanes};
use crate::tensor_state::{
    FragEntry, FragMemo, Fragment, MEMO_FRAGMENTS, OperandMemo, OperandPlaces, OperandScratch,
    Pending, Role, TensorState, WarpMma, WarpgroupEntry,
};

const MMA_SPEC: &str = "§9.7.14.5.14 (mma)";
const LDSM_SPEC: &str = "§9.7.14.5.15 (ldmatrix, stmatrix)";
const WGMMA_SPEC: &str = "§9.7.15.5.2 (wgmma.mma_async)";
const FENCE_SPEC: &str = "§9.7.15.7.1 (wgmma.fence)";
const WAIT_SPEC: &str = "§9.7.15.7.3 (wgmma.wait_group)";

/// The value of an element's bit pattern.
#[inline(always)]
fn elem_value(t: Elem, bits: u64) -> f64 {
    let b = bits as u32;
    // The 16-bit formats by their exact widenings (every tensor-core operand goes through here);
    // a NaN is the canonical one, as `half::decode` gives (the test compares all patterns).
    match t {
        Elem::F16 => super::half::f16_value(b),
        Elem::Bf16 => super::half::bf16_value(b),
        Elem::E4m3 => super::half::decode(Fmt::E4m3, b & 0xff),
        Elem::E5m2 => super::half::decode(Fmt::E5m2, b & 0xff),
        Elem::Tf32 => f32::from_bits(b & 0xffff_e000) as f64,
        Elem::F32 => f32::from_bits(b) as f64,
        Elem::S8 => b as u8 as i8 as f64,
        Elem::U8 => (b & 0xff) as f64,
        Elem::S32 => b as i32 as f64,
    }
}

/// An accumulated value rounded (or wrapped, or saturated) to the destination type.
#[inline(always)]
fn elem_bits(t: Elem, v: f64, satfinite: bool) -> u64 {
    match t {
        Elem::F32 => (v as f32).to_bits() as u64,
        Elem::F16 => super::half::encode(v, 0.0, Fmt::F16, false) as u64,
        Elem::S32 if satfinite => v.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32 as u64,
        Elem::S32 => (v as i64) as u32 as u64,
        _ => unreachable!("not an accumulator type"),
    }
}

/// The (row, column) of element `i` of lane `lane`'s A fragment of an `m16n8kK` MMA
/// (§9.7.14.5.7-10; wgmma's register A is the same within a warp's 16 rows).
pub(crate) fn a_coord(k: u32, bits: u32, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    match (bits, k) {
        (16, 16) => (g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)),
        (16, 8) => (g + 8 * (i >> 1), 2 * t + (i & 1)),
        (32, 8) => (g + 8 * (i & 1), t + 4 * (i >> 1)),
        (32, 4) => (g + 8 * i, t),
        (8, 32) => (g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)),
        (8, 16) => (g + 8 * (i >> 2), 4 * t + (i & 3)),
        _ => unreachable!("no such fragment"),
    }
}

/// The (row k, column n) of element `i` of lane `lane`'s B fragment of an `m16n8kK` MMA.
pub(crate) fn b_coord(k: u32, bits: u32, lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    let row = match (bits, k) {
        (16, 16) => 2 * t + (i & 1) + 8 * (i >> 1),
        (16, 8) => 2 * t + i,
        (32, 8) => t + 4 * i,
        (32, 4) => t,
        (8, 32) => 4 * t + (i & 3) + 16 * (i >> 2),
        (8, 16) => 4 * t + i,
        _ => unreachable!("no such fragment"),
    };
    (row, g)
}

/// The (row, column) of accumulator element `i` of lane `lane`: 16 rows, columns in blocks of
/// 8 (one for mma.m16n8, N/8 for wgmma).
pub(crate) fn c_coord(lane: u32, i: u32) -> (u32, u32) {
    let (g, t) = (lane >> 2, lane & 3);
    (g + 8 * ((i >> 1) & 1), 8 * (i >> 2) + 2 * t + (i & 1))
}

/// A fragment shape: (matrix, k, element bits, registers per lane).
type FragmentShape = (Fragment, u32, u32, u32);

/// [`fragment_places`]' tables by shape.
type PlaceTables = rustc_hash::FxHashMap<FragmentShape, std::rc::Rc<[u32]>>;

thread_local! {
    static PLACES: std::cell::RefCell<PlaceTables> = Default::default();
}

/// Where each element of a fragment goes in its matrix (row-major index), in the order of
/// (lane, register, element within the register): `place(i)` for the `n` elements, computed
/// once per fragment shape `key` and kept (a flat table instead of the coordinate arithmetic
/// and its shape match at every element of every MMA).
fn fragment_places(key: FragmentShape, n: u32, place: impl Fn(u32) -> u32) -> std::rc::Rc<[u32]> {
    PLACES.with(|tables| {
        tables
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| (0..n).map(place).collect())
            .clone()
    })
}

/// Where each element of an accumulator fragment (C or D: `regs` registers of `ty` per lane,
/// 16 rows of `cols` columns) goes in its matrix, in (lane, register, element) order: the
/// table [`Machine::gather_into`] uses for C, so the scatter of D needs no coordinate arithmetic.
fn c_places(cols: u32, ty: Elem, regs: usize) -> std::rc::Rc<[u32]> {
    let bits = ty.bits();
    let per_lane = regs as u32 * (32 / bits);
    fragment_places((Fragment::C, cols, bits, regs as u32), 32 * per_lane, |i| {
        let (r, c) = c_coord(i / per_lane, i % per_lane);
        r * cols + c
    })
}

/// The accumulator registers `regs` (of type `ty`) in their tile ([`unpack`]) of 16 rows, the
/// common f32 with a decoder of its own and its places computed ([`unpack_f32`]).
fn unpack_acc(d: &mut [f64], regs: &[&[u64]], places: &[u32], ty: Elem) {
    match ty {
        Elem::F32 if f32_tile(d.len(), regs.len()) && regs.iter().all(|r| r.len() == 32) => {
            unpack_f32(d, regs, |x| elem_value(Elem::F32, x))
        }
        Elem::F32 => unpack_words(d, regs, places, |x| elem_value(Elem::F32, x)),
        Elem::F16 => unpack(d, regs, places, 2, |x| elem_value(Elem::F16, x)),
        _ => unpack(d, regs, places, 1, |x| elem_value(ty, x)),
    }
}

/// The tile rounded to the registers' type `ty` ([`pack`]), the common f32 with an encoder of
/// its own and its places computed ([`pack_f32`]).
fn pack_acc(values: &mut [u64], d: &[f64], places: &[u32], ty: Elem, satfinite: bool) {
    match ty {
        Elem::F32 if f32_tile(d.len(), values.len() / 32) => {
            pack_f32(values, d, |v| elem_bits(Elem::F32, v, false))
        }
        Elem::F32 => pack_words(values, d, places, |v| elem_bits(Elem::F32, v, false)),
        Elem::F16 => pack(values, d, places, 2, |v| elem_bits(Elem::F16, v, false)),
        _ => pack(values, d, places, 1, |v| elem_bits(ty, v, satfinite)),
    }
}

/// Whether a tile of `len` elements and `regs` f32 registers a lane is an accumulator tile of
/// 16 rows, every element in one register (the layout [`unpack_f32`] and [`pack_f32`] know).
fn f32_tile(len: usize, regs: usize) -> bool {
    regs > 0 && len == 32 * regs && regs.is_multiple_of(4)
}

/// A shared-memory matrix descriptor (§9.7.15.5.1.2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Desc {
    pub start: u32,
    pub lbo: u32,
    pub sbo: u32,
    pub base_offset: u32,
    /// Swizzle width in bytes: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
}

impl Desc {
    pub(crate) fn parse(v: u64) -> Desc {
        let field = |shift: u32| (((v >> shift) & 0x3fff) as u32) << 4;
        Desc {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
            base_offset: ((v >> 49) & 7) as u32,
            swizzle: match (v >> 62) & 3 {
                0 => 0,
                1 => 128,
                2 => 64,
                _ => 32,
            },
        }
    }

    /// The shared address of the 16-byte chunk that holds element (`mn`, `k`) of an operand
    /// with `t` elements per 16 bytes, K-major or MN-major, with the swizzle applied
    /// (the canonical layouts of §9.7.15.5.1.2.1.3: in K-major layouts the chunk holds `t`
    /// consecutive k of one row, in MN-major ones `t` consecutive mn of one k).
    pub(crate) fn chunk(&self, mn: u32, k: u32, t: u32, mn_major: bool) -> u32 {
        let s = self.swizzle;
        let linear = match (mn_major, s) {
            (false, 0) => self.start + (mn % 8) * 16 + (mn / 8) * self.sbo + (k / t) * self.lbo,
            (false, s) => self.start + (mn % 8) * s + (mn / 8) * self.sbo + (k / t) * 16,
            (true, 0) => self.start + (k % 8) * 16 + (k / 8) * self.lbo + (mn / t) * self.sbo,
            (true, s) => {
                let w = s / 16;
                let c = mn / t;
                self.start + (k % 8) * s + (k / 8) * self.sbo + (c % w) * 16 + (c / w) * self.lbo
            }
        };
        swizzle(linear, s)
    }
}

/// The swizzle of a 32/64/128-byte mode (CuTe's Swizzle<1|2|3, 4, 3>): bits 4.. of the byte
/// address XOR bits 7.. .
pub(crate) fn swizzle(addr: u32, s: u32) -> u32 {
    if s == 0 {
        return addr;
    }
    let mask = s / 16 - 1;
    addr ^ (((addr >> 7) & mask) << 4)
}

/// The registers an op reads or writes (for the wgmma register checks).
fn kind_regs(kind: &Kind) -> Vec<u32> {
    let mut out = Vec::new();
    let mut s = |x: &Src| {
        if let Src::Reg(r) = x {
            out.push(*r)
        }
    };
    let mut regs: Vec<u32> = Vec::new();
    match kind {
        Kind::Mov { d, a } | Kind::Int1 { d, a, .. } | Kind::Float1 { d, a, .. } => {
            regs.push(*d);
            s(a);
        }
        Kind::Cvt { d, a, .. } | Kind::Cvta { d, a, .. } => {
            regs.push(*d);
            s(a);
        }
        Kind::Pack { d, parts, .. } => {
            regs.push(*d);
            parts.iter().for_each(&mut s);
        }
        Kind::Unpack { ds, a, .. } => {
            regs.extend(ds);
            s(a);
        }
        Kind::Int2 { d, a, b, .. } | Kind::Float2 { d, a, b, .. } => {
            regs.push(*d);
            s(a);
            s(b);
        }
        Kind::Int3 { d, a, b, c, .. }
        | Kind::Lop3 { d, a, b, c, .. }
        | Kind::Fma { d, a, b, c, .. } => {
            regs.push(*d);
            s(a);
            s(b);
            s(c);
        }
        Kind::Bfi { d, a, b, c, e, .. } => {
            regs.push(*d);
            [a, b, c, e].into_iter().for_each(&mut s);
        }
        Kind::Setp {
            d, dn, a, b, comb, ..
        } => {
            regs.extend([*d, *dn]);
            s(a);
            s(b);
            if let Some((_, p, _)) = comb {
                s(p);
            }
        }
        Kind::Selp { d, a, b, p } => {
            regs.push(*d);
            [a, b, p].into_iter().for_each(&mut s);
        }
        Kind::Clock { d } | Kind::Activemask { d } => regs.push(*d),
        Kind::Ld { ds, addr, .. } => {
            regs.extend(ds);
            s(&addr.base);
        }
        Kind::St { vals, addr, .. } => {
            vals.iter().for_each(&mut s);
            s(&addr.base);
        }
        Kind::Atom { d, addr, a, b, .. } => {
            regs.push(*d);
            [&addr.base, a, b].into_iter().for_each(&mut s);
        }
        Kind::Mapa { d, a, rank, .. } => {
            regs.push(*d);
            s(a);
            s(rank);
        }
        Kind::Mbar { d, addr, a, .. } => {
            regs.push(*d);
            s(&addr.base);
            if let Some(a) = a {
                s(a);
            }
        }
        Kind::MbarPendingCount { d, state } => {
            regs.push(*d);
            s(state);
        }
        Kind::Shfl {
            d,
            dp,
            a,
            b,
            c,
            mask,
            ..
        } => {
            regs.extend([*d, *dp]);
            [a, b, c, mask].into_iter().for_each(&mut s);
        }
        Kind::Vote { d, a, mask, .. } | Kind::Redux { d, a, mask, .. } => {
            regs.push(*d);
            s(a);
            s(mask);
        }
        Kind::Elect { d, dp, mask } => {
            regs.extend([*d, *dp]);
            s(mask);
        }
        Kind::WarpSync { mask } => s(mask),
        Kind::Bar {
            id, count, d, pred, ..
        } => {
            regs.push(*d);
            s(id);
            if let Some(c) = count {
                s(c);
            }
            if let Some((p, _)) = pred {
                s(p);
            }
        }
        Kind::CpAsync {
            dst, src, src_size, ..
        } => {
            s(&dst.base);
            s(&src.base);
            if let Some(x) = src_size {
                s(x);
            }
        }
        Kind::BulkLoad {
            dst,
            src,
            size,
            mbar,
            mask,
            ..
        } => {
            [&dst.base, &src.base, size, &mbar.base]
                .into_iter()
                .for_each(&mut s);
            if let Some(m) = mask {
                s(m);
            }
        }
        Kind::BulkStore { dst, src, size, .. } => {
            [&dst.base, &src.base, size].into_iter().for_each(&mut s);
        }
        Kind::CpAsyncMbarArrive { addr, .. } => s(&addr.base),
        Kind::Half(op) => {
            use crate::decode::HalfOp;
            match op {
                HalfOp::FromF32 { d, a, b, .. } => {
                    regs.push(*d);
                    s(a);
                    if let Some(b) = b {
                        s(b);
                    }
                }
                HalfOp::F8FromF16x2 { d, a, .. } | HalfOp::F16x2FromF8 { d, a, .. } => {
                    regs.push(*d);
                    s(a);
                }
                HalfOp::Arith { d, a, b, c, .. } => {
                    regs.push(*d);
                    [a, b, c].into_iter().for_each(&mut s);
                }
            }
        }
        Kind::Tensor(op) => match &**op {
            TensorOp::LdMatrix { ds, addr, .. } => {
                regs.extend(ds);
                s(&addr.base);
            }
            TensorOp::StMatrix { vals, addr, .. } => {
                vals.iter().for_each(&mut s);
                s(&addr.base);
            }
            TensorOp::Mma(m) => {
                regs.extend(&m.d);
                m.a.iter().chain(&m.b).chain(&m.c).for_each(&mut s);
            }
            _ => {}
        },
        // Control flow, barriers without registers, and instructions added later: none.
        _ => {}
    }
    regs.extend(out);
    regs.retain(|&r| r != SINK);
    regs.sort_unstable();
    regs.dedup();
    regs
}

impl Machine<'_> {
    fn wgmma_state(&mut self, w: usize) -> &mut WarpMma {
        if self.tensor.warps.len() <= w {
            self.tensor.warps.resize_with(w + 1, WarpMma::default);
        }
        &mut self.tensor.warps[w]
    }

    /// The executing loop calls this for every op a warp executes once some warp executed
    /// `wgmma.fence`: an access to a register of a pending `wgmma.mma_async` is a finding, and
    /// the access is remembered for the next `wgmma.mma_async`'s fence check.
    pub(crate) fn wgmma_access(&mut self, w: usize, eff: u32, pc: u32) -> Res<()> {
        let TensorState { warps, regs_of, .. } = &mut self.tensor;
        let Some(st) = warps.get_mut(w).filter(|s| s.fenced) else {
            return Ok(());
        };
        let kind = &self.prog.ops[pc as usize].kind;
        if matches!(kind, Kind::Tensor(op) if op.is_wgmma()) {
            return Ok(());
        }
        if regs_of.len() < self.prog.ops.len() {
            regs_of.resize(self.prog.ops.len(), None);
        }
        let regs = regs_of[pc as usize].get_or_insert_with(|| kind_regs(kind).into_boxed_slice());
        let mut hit = None;
        for &r in regs.iter() {
            if let Some((role, at)) = st.in_flight(r) {
                hit = Some((r, role, at));
                break;
            }
            st.touch(r);
        }
        match hit {
            Some((r, role, at)) => Err(self.in_flight_report(w, eff, pc, r, role, at)),
            None => Ok(()),
        }
    }

    fn in_flight_report(&self, w: usize, eff: u32, pc: u32, r: u32, role: Role, at: u32) -> Stop {
        let what = match role {
            Role::Accumulator => "accumulator",
            Role::A => "A-fragment",
        };
        let name = &self.prog.reg_names[r as usize];
        Report::new(
            FindingKind::WgmmaRegisterInFlight,
            WAIT_SPEC,
            format!("`{name}`, an {what} register of a wgmma.mma_async in flight, is accessed before a wgmma.wait_group that covers it"),
        )
        .site(self.site(w, eff, pc, &format!("access `{name}`")))
        .site(self.site(w, eff, at, "issued the wgmma.mma_async"))
        .note("\"accessing the accumulator register or the input register containing the fragments of matrix A of a wgmma.mma_async instruction without first performing a wgmma.wait_group instruction that waits on a wgmma-group including that wgmma.mma_async instruction is undefined behavior\": its value is written when the group completes")
        .into()
    }

    fn partial_warp(&self, w: usize, eff: u32, pc: u32, name: &str, spec: &str) -> Stop {
        let missing = !eff;
        Report::new(
            FindingKind::WarpCollective,
            spec,
            format!("{name} is executed without all 32 threads of the warp"),
        )
        .site(self.site(w, eff, pc, "execute it"))
        .note(format!(
            "lanes {} have exited or do not exist: the behaviour of {name} is undefined unless every thread of the warp executes it",
            crate::report::lane_ranges(missing)
        ))
        .into()
    }

    fn not_uniform(&self, w: usize, pc: u32, what: &str, spec: &str) -> Stop {
        Report::new(
            FindingKind::WarpCollective,
            spec,
            format!("{what} differs between the threads of the warp"),
        )
        .site(self.site(w, u32::MAX, pc, "execute it"))
        .note("the operand must be the same in every thread of the warp (and warpgroup)")
        .into()
    }

    /// A value all lanes must agree on.
    fn uniform(&self, w: usize, pc: u32, s: Src, what: &str, spec: &str) -> Res<u64> {
        let v = self.src_value(w, 0, s);
        if (1..32).any(|l| self.src_value(w, l, s) != v) {
            return Err(self.not_uniform(w, pc, what, spec));
        }
        Ok(v)
    }

    pub(super) fn tensor(&mut self, w: usize, eff: u32, pc: u32, op: &TensorOp) -> Res<Step> {
        if eff != u32::MAX {
            let spec = match op {
                TensorOp::LdMatrix { .. } | TensorOp::StMatrix { .. } => LDSM_SPEC,
                TensorOp::Mma(_) => MMA_SPEC,
                _ => WGMMA_SPEC,
            };
            return Err(self.partial_warp(w, eff, pc, op.name(), spec));
        }
        match op {
            TensorOp::LdMatrix {
                ds,
                addr,
                space,
                trans,
            } => self.ldmatrix(w, pc, ds, *addr, *space, *trans)?,
            TensorOp::StMatrix {
                vals,
                addr,
                space,
                trans,
            } => self.stmatrix(w, pc, vals, *addr, *space, *trans)?,
            TensorOp::Mma(m) => self.mma(w, m),
            TensorOp::WgmmaFence => {
                self.tensor.active = true;
                let st = self.wgmma_state(w);
                st.fenced = true;
                st.touched.clear();
            }
            TensorOp::WgmmaCommit => {
                let st = self.wgmma_state(w);
                let open = std::mem::take(&mut st.open);
                st.groups.push_back(open);
            }
            TensorOp::WgmmaWait(n) => return Ok(self.wgmma_wait(w, pc, *n)),
            TensorOp::Wgmma(g) => self.wgmma(w, pc, g)?,
        }
        Ok(Step::Next)
    }

    /// The CTA and offset of a 16-byte row of an ldmatrix/stmatrix.
    fn matrix_row(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        space: Space,
        a: u64,
    ) -> Res<(u32, u32)> {
        match self.resolve(w, lane, pc, space, a, 16)? {
            super::mem::Target::Shared { cta, off } => Ok((cta, off)),
            _ => Err(Report::new(
                FindingKind::OutOfBounds,
                super::mem::OOB_SPEC,
                format!("address 0x{a:x} of a matrix row is not in shared memory"),
            )
            .site(self.site(w, 1 << lane, pc, "gives the address"))
            .into()),
        }
    }

    fn ldmatrix(
        &mut self,
        w: usize,
        pc: u32,
        ds: &[u32],
        addr: Addr,
        space: Space,
        trans: bool,
    ) -> Res<()> {
        let mut rows = [[0u8; 16]; 32];
        let n = ds.len() * 8;
        // The common case: every row in the executing CTA's shared memory, aligned, where
        // `resolve` has nothing to refuse: the rows' offsets at once (as `cp.async`'s).
        let eff = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let mut addrs = [0u64; 32];
        if let Some(super::fast::FastTarget::Shared(cta)) =
            self.fast_targets(w, eff, space, addr, 16, false, &mut addrs)
        {
            let mut offs = [0u32; 32];
            for (off, &a) in offs.iter_mut().zip(&addrs).take(n) {
                *off = (a - crate::memory::SHARED_BASE as u64) as u32;
            }
            // The lanes' race checks in one call, in lane order (a row's copy has no effect
            // to order them with).
            if self.race.checking() {
                self.race
                    .read_rows(w as u32, cta, &offs[..n], 16, pc)
                    .map_err(|(i, c)| {
                        let t = w as u32 * 32 + i as u32;
                        self.race_report(c, cta, t, pc, false, true)
                    })?;
            }
            for (row, &off) in rows.iter_mut().zip(&offs).take(n) {
                row.copy_from_slice(
                    &self.ctas[cta as usize].shared[off as usize..off as usize + 16],
                );
            }
            self.ldmatrix_fragments(w, ds, &rows, trans);
            return Ok(());
        }
        for (i, row) in rows.iter_mut().enumerate().take(n) {
            let a = self.addr_value(w, i, addr);
            let (cta, off) = self.matrix_row(w, i, pc, space, a)?;
            if self.race.checking() {
                let t = w as u32 * 32 + i as u32;
                self.race
                    .read(t, cta, off, 16, pc)
                    .map_err(|c| self.race_report(c, cta, t, pc, false, true))?;
            }
            row.copy_from_slice(&self.ctas[cta as usize].shared[off as usize..off as usize + 16]);
        }
        self.ldmatrix_fragments(w, ds, &rows, trans);
        Ok(())
    }

    /// The destination registers of an `ldmatrix` from its rows (row `r` of matrix `m` is
    /// `rows[m * 8 + r]`).
    fn ldmatrix_fragments(&mut self, w: usize, ds: &[u32], rows: &[[u8; 16]; 32], trans: bool) {
        let elem = |m: usize, r: usize, c: usize| -> u64 {
            let b = &rows[m * 8 + r][c * 2..c * 2 + 2];
            u16::from_le_bytes([b[0], b[1]]) as u64
        };
        for (m, &d) in ds.iter().enumerate() {
            for lane in 0..32usize {
                let (g, t) = (lane / 4, lane % 4);
                let v = if trans {
                    elem(m, 2 * t, g) | elem(m, 2 * t + 1, g) << 16
                } else {
                    elem(m, g, 2 * t) | elem(m, g, 2 * t + 1) << 16
                };
                self.warps[w].set_reg(d, lane, v);
            }
        }
    }

    fn stmatrix(
        &mut self,
        w: usize,
        pc: u32,
        vals: &[Src],
        addr: Addr,
        space: Space,
        trans: bool,
    ) -> Res<()> {
        self.warps[w].effects += 1;
        if self.race.checking() {
            self.race.next_store();
        }
        for (m, v) in vals.iter().enumerate() {
            let regs: Vec<u64> = (0..32).map(|l| self.src_value(w, l, *v)).collect();
            // half(l, h): the low (h = 0) or high half of lane l's register.
            let half = |l: usize, h: usize| ((regs[l] >> (16 * h)) & 0xffff) as u16;
            for r in 0..8usize {
                let mut row = [0u8; 16];
                for c in 0..8usize {
                    let x = if trans {
                        // Element (r, c) of the stored matrix is element (c, r) of the fragment.
                        half(4 * c + r / 2, r % 2)
                    } else {
                        half(4 * r + c / 2, c % 2)
                    };
                    row[2 * c..2 * c + 2].copy_from_slice(&x.to_le_bytes());
                }
                let lane = m * 8 + r;
                let a = self.addr_value(w, lane, addr);
                let (cta, off) = self.matrix_row(w, lane, pc, space, a)?;
                if self.race.checking() {
                    let t = w as u32 * 32 + lane as u32;
                    self.race
                        .write(t, cta, off, 16, pc)
                        .map_err(|c| self.race_report(c, cta, t, pc, false, false))?;
                }
                self.ctas[cta as usize].shared[off as usize..off as usize + 16]
                    .copy_from_slice(&row);
            }
        }
        Ok(())
    }

    /// The matrix (rows x cols, row-major) of a fragment held in `srcs` by the warp's lanes,
    /// into `out` (its allocation reused: see [`TensorState::scratch`]), each element as
    /// `per` copies of `conv` of its value (A, for [`accumulate`], is two f32 copies; B one
    /// f32; C one f64); `coord` places element `i` of a lane, and `shape` names the fragment
    /// (which matrix, its k), for the table of those places computed once per shape
    /// ([`fragment_places`]).
    #[allow(clippy::too_many_arguments)]
    fn gather_into<T: Copy + Default>(
        &self,
        w: usize,
        srcs: &[Src],
        ty: Elem,
        dims: (usize, usize),
        shape: (Fragment, u32),
        coord: impl Fn(u32, u32) -> (u32, u32),
        (out, per, conv): (&mut Vec<T>, usize, impl Fn(f64) -> T),
    ) {
        let bits = ty.bits();
        let per_lane = srcs.len() as u32 * (32 / bits);
        let key = (shape.0, shape.1, bits, srcs.len() as u32);
        let places = fragment_places(key, 32 * per_lane, |i| {
            let (r, c) = coord(i / per_lane, i % per_lane);
            r * dims.1 as u32 + c
        });
        // The element decoding chosen once per fragment, not per element (the common operand
        // types get a loop of their own).
        out.clear();
        out.resize(dims.0 * dims.1 * per, T::default());
        let g = (w, srcs, &places[..], &mut out[..], per);
        match (ty, bits) {
            (Elem::F16, _) => self.gather_as::<16, T>(g, |x| conv(elem_value(Elem::F16, x))),
            (Elem::Bf16, _) => self.gather_as::<16, T>(g, |x| conv(elem_value(Elem::Bf16, x))),
            (Elem::F32, _) => self.gather_as::<32, T>(g, |x| conv(elem_value(Elem::F32, x))),
            (_, 8) => self.gather_as::<8, T>(g, |x| conv(elem_value(ty, x))),
            (_, 16) => self.gather_as::<16, T>(g, |x| conv(elem_value(ty, x))),
            _ => self.gather_as::<32, T>(g, |x| conv(elem_value(ty, x))),
        }
    }

    /// [`Machine::gather_into`]'s loop for elements of `BITS` bits (`32 / BITS` to a
    /// register), `decode` inlined.
    #[inline(always)]
    fn gather_as<const BITS: u32, T: Copy>(
        &self,
        (w, srcs, places, out, copies): (usize, &[Src], &[u32], &mut [T], usize),
        decode: impl Fn(u64) -> T,
    ) {
        let per = (32 / BITS) as usize;
        let mask = if BITS == 32 {
            u32::MAX as u64
        } else {
            (1u64 << BITS) - 1
        };
        let regs = &self.warps[w].regs;
        let n = srcs.len();
        debug_assert_eq!(places.len(), 32 * n * per, "a place per element");
        // Register by register, its 32 lanes an array.
        for (j, s) in srcs.iter().enumerate() {
            let row: [u64; 32] = match *s {
                Src::Reg(r) => regs[r as usize * 32..r as usize * 32 + 32]
                    .try_into()
                    .expect("32 lanes"),
                Src::Imm(v) => [v; 32],
            };
            for (lane, &v) in row.iter().enumerate() {
                let at = &places[(lane * n + j) * per..(lane * n + j + 1) * per];
                for (e, &p) in at.iter().enumerate() {
                    let x = decode((v >> (e as u32 * BITS)) & mask);
                    let p = p as usize * copies;
                    out[p..p + copies].fill(x);
                }
            }
        }
    }

    /// [`Machine::gather_into`] through `memo`, as f32 (`copies` of each element: 2 for A,
    /// 1 for B, the layouts [`accumulate`] reads): the index of its entry that holds the
    /// matrix of fragment `srcs`, gathered now unless an entry was gathered from the same
    /// registers holding the same values (gathering is a function of those alone).
    #[allow(clippy::too_many_arguments)]
    fn gather_memo(
        &self,
        w: usize,
        srcs: &[Src],
        ty: Elem,
        dims: (usize, usize),
        shape: (Fragment, u32),
        coord: impl Fn(u32, u32) -> (u32, u32),
        (memo, copies): (&mut FragMemo, usize),
    ) -> usize {
        let regs = &self.warps[w].regs;
        let row = |s: &Src| match *s {
            Src::Reg(r) => &regs[r as usize * 32..r as usize * 32 + 32],
            Src::Imm(_) => &[],
        };
        let key = Some((ty, dims, shape));
        let hit = memo.entries.iter().position(|e| {
            e.key == key
                && e.srcs == srcs
                && srcs
                    .iter()
                    .zip(e.values.chunks_exact(32))
                    .all(|(s, old)| matches!(s, Src::Imm(_)) || row(s) == old)
        });
        if let Some(i) = hit {
            return i;
        }
        if memo.entries.len() < MEMO_FRAGMENTS {
            memo.entries.push(FragEntry::default());
            memo.next = memo.entries.len() - 1;
        }
        let i = memo.next;
        memo.next = (memo.next + 1) % MEMO_FRAGMENTS;
        let e = &mut memo.entries[i];
        e.key = key;
        e.srcs.clear();
        e.srcs.extend_from_slice(srcs);
        e.values.clear();
        for s in srcs {
            match s {
                Src::Reg(_) => e.values.extend_from_slice(row(s)),
                Src::Imm(_) => e.values.extend_from_slice(&[0; 32]),
            }
        }
        // Every operand type is exact in f32 (see `mac`).
        let out = (&mut e.matrix, copies, |x: f64| x as f32);
        self.gather_into(w, srcs, ty, dims, shape, coord, out);
        i
    }

    fn mma(&mut self, w: usize, m: &Mma) {
        if self.made_up() {
            // A probe run's data is made up: the registers keep what they held.
            return;
        }
        let k = m.k as usize;
        let bits = m.a_ty.bits();
        let mut c = std::mem::take(&mut self.tensor.scratch);
        let [mut a_memo, mut b_memo] = std::mem::take(&mut self.tensor.frag_memo);
        // A fragment serves the MMAs of several n tiles and a B fragment those of several m
        // tiles: each is gathered once while its registers hold the same values.
        let ai = self.gather_memo(
            w,
            &m.a,
            m.a_ty,
            (16, k),
            (Fragment::A, m.k),
            |l, i| a_coord(m.k, bits, l, i),
            (&mut a_memo, 2),
        );
        // B as k rows of 8 columns, the layout [`accumulate`] reads (one panel).
        let bi = self.gather_memo(
            w,
            &m.b,
            m.b_ty,
            (k, 8),
            (Fragment::B, m.k),
            |l, i| b_coord(m.k, bits, l, i),
            (&mut b_memo, 1),
        );
        let mut d = [0.0f64; 128];
        if m.c_ty == Elem::F32 && m.c.len() == 4 {
            // f32 accumulators (the common C) with their places computed ([`unpack_f32`]).
            let regs = &self.warps[w].regs;
            let imms: [[u64; 32]; 4] =
                std::array::from_fn(|j| [if let Src::Imm(v) = m.c[j] { v } else { 0 }; 32]);
            let rows: [&[u64]; 4] = std::array::from_fn(|j| match m.c[j] {
                Src::Reg(r) => &regs[r as usize * 32..r as usize * 32 + 32],
                Src::Imm(_) => &imms[j][..],
            });
            unpack_acc(&mut d, &rows, &[], Elem::F32);
        } else {
            let out = (&mut c, 1, |x: f64| x);
            self.gather_into(w, &m.c, m.c_ty, (16, 8), (Fragment::C, 8), c_coord, out);
            d.copy_from_slice(&c);
        }
        accumulate(
            &mut d,
            &a_memo.entries[ai].matrix,
            &b_memo.entries[bi].matrix,
            k,
            8,
        );
        self.tensor.scratch = c;
        self.tensor.frag_memo = [a_memo, b_memo];
        let places = c_places(8, m.d_ty, m.d.len());
        let mut values = [0u64; 4 * 32];
        let values = &mut values[..m.d.len() * 32];
        pack_acc(values, &d, &places, m.d_ty, m.satfinite);
        for (j, &dr) in m.d.iter().enumerate() {
            if dr != crate::decode::SINK {
                let at = dr as usize * 32;
                self.warps[w].regs[at..at + 32].copy_from_slice(&values[j * 32..j * 32 + 32]);
            }
        }
    }

    /// `wgmma.wait_group n`: the groups but the newest `n` complete; their results reach the
    /// registers and the warp's threads acquire what their shared-memory reads saw. A
    /// wgmma.mma_async is one operation of the warpgroup (§9.7.15.5.2): it completes only once
    /// all four warps issued it, so the wait blocks until they have, and acquires what each
    /// issuing warp had seen.
    fn wgmma_wait(&mut self, w: usize, pc: u32, n: u32) -> Step {
        let key = self.warpgroup_key(w);
        let st = self.wgmma_state(w);
        let count = st.groups.len().saturating_sub(n as usize);
        let seqs: Vec<Option<u64>> = st
            .groups
            .iter()
            .take(count)
            .flatten()
            .map(|p| p.seq)
            .collect();
        let mut joined: Vec<Option<Clock>> = Vec::with_capacity(seqs.len());
        if let Some(log) = self.tensor.warpgroups.get(&key).filter(|l| !l.given_up) {
            for seq in &seqs {
                match seq {
                    Some(k) => match log.issued_by_all(*k) {
                        Some(e) => joined.push(Some(e.vc.clone())),
                        None => {
                            self.warps[w].block(u32::MAX, Block::Warpgroup, pc, pc);
                            return Step::Yield(u32::MAX);
                        }
                    },
                    None => joined.push(None),
                }
            }
        }
        let st = self.wgmma_state(w);
        let mut done = Vec::new();
        for _ in 0..count {
            done.extend(st.groups.pop_front().expect("group"));
        }
        st.rebuild();
        let completed = done.len() as u64;
        let mut acquired: Clock = Vec::new();
        for (i, p) in done.iter().enumerate() {
            // A chain of wgmmas on one accumulator (the usual k loop) leaves the last one's
            // values: an earlier one's registers, all written again next, are skipped.
            if done.get(i + 1).is_none_or(|next| next.d != p.d) {
                for (j, &r) in p.d.iter().enumerate() {
                    if r != crate::decode::SINK {
                        let at = r as usize * 32;
                        self.warps[w].regs[at..at + 32]
                            .copy_from_slice(&p.values[j * 32..j * 32 + 32]);
                    }
                }
            }
            let vc = joined.get(i).and_then(|j| j.as_ref()).unwrap_or(&p.vc);
            if acquired.len() < vc.len() {
                acquired.resize(vc.len(), 0);
            }
            join_into(&mut acquired, vc);
        }
        // The results' vectors serve the next wgmmas' (a few: one group's worth).
        for p in done {
            if self.tensor.spare_values.len() < 8 {
                self.tensor.spare_values.push(p.values);
            }
            if self.tensor.spare_tiles.len() < 8 && !p.tile.is_empty() {
                self.tensor.spare_tiles.push(p.tile);
            }
        }
        // Acquiring each group's clock in turn is acquiring their join once (an empty clock
        // is acquired by no one).
        if !acquired.is_empty() {
            for lane in 0..32u32 {
                self.race.acquire(w as u32 * 32 + lane, &acquired);
            }
        }
        if let Some(log) = self.tensor.warpgroups.get_mut(&key) {
            log.waited[(self.warps[w].index % 4) as usize] += completed;
            log.trim();
        }
        Step::Next
    }

    /// The (CTA rank, warpgroup index) of warp `w`.
    fn warpgroup_key(&self, w: usize) -> (u32, u32) {
        let warp = &self.warps[w];
        (warp.cta, warp.index / 4)
    }

    /// Wakes the warps of `w`'s warpgroup that wait in wgmma.wait_group for the rest of it.
    fn wake_warpgroup(&mut self, w: usize) {
        let key = self.warpgroup_key(w);
        let first = w - (self.warps[w].index % 4) as usize;
        let at = self.warps[w].clock;
        for v in first..(first + 4).min(self.warps.len()) {
            if v != w
                && self.warpgroup_key(v) == key
                && lanes(self.warps[v].blocked).any(|l| self.warps[v].why[l] == Block::Warpgroup)
            {
                self.wake_lanes(v, u32::MAX, at);
            }
        }
    }

    /// Checks this warp's next wgmma.mma_async against its warpgroup's (see [`crate::tensor_state::WarpgroupLog`])
    /// and joins its issuing clock `vc` into the operation's; returns its index.
    fn warpgroup_agrees(
        &mut self,
        w: usize,
        pc: u32,
        (a, b, scale_d): (Option<u64>, u64, bool),
        vc: &Clock,
    ) -> Res<Option<u64>> {
        let key = self.warpgroup_key(w);
        let q = (self.warps[w].index % 4) as usize;
        let log = self.tensor.warpgroups.entry(key).or_default();
        if log.given_up {
            return Ok(None);
        }
        let k = log.counts[q];
        let room = log.entries.len() < 1 << 16;
        match k
            .checked_sub(log.base)
            .and_then(|i| log.entries.get_mut(i as usize))
        {
            Some(e) => {
                if (e.pc, e.a_desc, e.b_desc, e.scale_d) != (pc, a, b, scale_d) {
                    let what = if e.pc != pc {
                        "a different wgmma.mma_async"
                    } else if (e.a_desc, e.b_desc) != (a, b) {
                        "the same wgmma.mma_async with different matrix descriptors"
                    } else {
                        "the same wgmma.mma_async with a different scale-d"
                    };
                    let (opc, other) = (e.pc, e.first);
                    return Err(Report::new(
                        FindingKind::WarpCollective,
                        WGMMA_SPEC,
                        format!("the warps of a warpgroup execute {what}"),
                    )
                    .site(self.site(w, u32::MAX, pc, &format!("issue its wgmma.mma_async number {}", k + 1)))
                    .site(self.site(other, u32::MAX, opc, "issued its own"))
                    .note("wgmma.mma_async is executed by the warpgroup as one instruction: all four warps must execute the same one, with the same descriptors")
                    .into());
                }
                if vc.len() > e.vc.len() {
                    e.vc.resize(vc.len(), 0);
                }
                join_into(&mut e.vc, vc);
            }
            None if room => log.entries.push_back(WarpgroupEntry {
                pc,
                a_desc: a,
                b_desc: b,
                scale_d,
                first: w,
                vc: vc.clone(),
            }),
            None => {
                log.given_up = true;
                return Ok(None);
            }
        }
        log.counts[q] += 1;
        log.trim();
        self.wake_warpgroup(w);
        Ok(Some(k))
    }

    fn wgmma_fence_report(&self, w: usize, pc: u32, why: String) -> Stop {
        Report::new(FindingKind::WgmmaFenceMissing, FENCE_SPEC, why)
            .site(self.site(w, u32::MAX, pc, "issue the wgmma.mma_async"))
            .note("wgmma.fence must be executed before the first wgmma.mma_async and between a register access and a wgmma.mma_async that accesses the same register (as accumulator or A fragment), except for accumulator accesses across wgmma.mma_async of the same shape")
            .into()
    }

    /// Reads a shared-memory operand of `wgmma.mma_async` through its descriptor: `rows`
    /// (`mn` indices) by `k`, as f32 (exact for every operand type), into
    /// `out[mn_index * k + kk]`, or with `k_rows` into [`accumulate`]'s panels (B, with
    /// `mn_index` its column: [`b_index`]); `bufs` lends the chunk lists their allocations,
    /// `places` (B's) keeps them with the reads' race checks' needs for the next warps.
    #[allow(clippy::too_many_arguments)]
    fn wgmma_operand(
        &mut self,
        w: usize,
        pc: u32,
        desc: Desc,
        ty: Elem,
        mn: std::ops::Range<u32>,
        k: u32,
        mn_major: bool,
        k_rows: bool,
        agent: u32,
        vc: &[u32],
        out: &mut Vec<f32>,
        bufs: &mut OperandScratch,
        memo: Option<&mut OperandMemo>,
        places: Option<&mut OperandPlaces>,
    ) -> Res<Option<usize>> {
        let bits = ty.bits();
        let eb = bits / 8;
        let t = 16 / eb;
        let rows = mn.len();
        // Every element is written below, each by one chunk (the chunks step through k, and
        // for a transposed operand through mn, by whole chunks: k and n are multiples of a
        // chunk's elements), so the matrix is not zeroed first (4 % of a `wgmma` kernel's host
        // instructions): only a change of size clears it.
        if out.len() != rows * k as usize {
            out.clear();
            out.resize(rows * k as usize, 0.0);
        }
        // With `places` (B): the chunks' places as a warp found them for the same descriptor
        // and shape in the same CTA, its mbarriers where they were (a function of those
        // alone: `place_chunks`), with their race checks' needs. Each warp of a warpgroup
        // found them anew, and checked every chunk's write: in the `wgmma` matmul 256³,
        // 8.2 M host instructions of its 151.9 M were the places and the memo's comparison
        // (`desc.chunk`'s divisions among them), 23.5 M the operands' race checks.
        let own = self.warps[w].cta;
        let key = (
            [
                desc.start,
                desc.lbo,
                desc.sbo,
                desc.base_offset,
                desc.swizzle,
            ],
            ty,
            (mn.start, mn.end),
            k,
            mn_major,
            own,
            self.ctas[own as usize].mbar_epoch,
        );
        let placed = places.map(
            |p| match p.entries.iter().position(|e| e.key == Some(key)) {
                Some(i) => (&mut p.entries[i], true),
                None => {
                    if p.entries.len() < crate::tensor_state::PLACED_OPERANDS {
                        p.entries.push(Default::default());
                        p.next = p.entries.len() - 1;
                    }
                    let i = p.next;
                    p.next = (p.next + 1) % crate::tensor_state::PLACED_OPERANDS;
                    let e = &mut p.entries[i];
                    e.key = None;
                    (e, false)
                }
            },
        );
        let mut refused = None;
        let (chunks, at, needs) = match placed {
            Some((e, true)) => (&e.chunks, &e.at, Some(&mut e.needs)),
            Some((e, false)) => {
                let fast = self.place_chunks(
                    w,
                    pc,
                    desc,
                    t,
                    mn.clone(),
                    k,
                    mn_major,
                    &mut e.chunks,
                    &mut e.at,
                );
                match fast {
                    Ok(true) => {
                        e.key = Some(key);
                        e.needs.clear();
                        (&e.chunks, &e.at, Some(&mut e.needs))
                    }
                    Ok(false) => (&e.chunks, &e.at, None),
                    Err(stop) => {
                        refused = Some(stop);
                        (&e.chunks, &e.at, None)
                    }
                }
            }
            None => {
                let OperandScratch { chunks, at } = bufs;
                if let Err(stop) =
                    self.place_chunks(w, pc, desc, t, mn.clone(), k, mn_major, chunks, at)
                {
                    refused = Some(stop);
                }
                (&*chunks, &*at, None)
            }
        };
        // The race checks of the chunks' reads, in chunk order, up to the first one `resolve`
        // refused (the first conflict in chunk order is the one reported, before a refused
        // chunk's finding, as when each chunk was checked in turn).
        if self.race.checking() {
            match needs {
                Some(needs) => self.race.async_read_chunks(agent, vc, own, at, needs, pc),
                None => self.race.async_reads(agent, vc, at, pc),
            }
            .map_err(|(i, c)| retitle(self.race_report(c, at[i].0, agent, pc, true, true)))?;
        }
        if let Some(e) = refused {
            return Err(e);
        }
        // With a memo: a matrix decoded from chunks in the same places holding the same bytes
        // is this operand's (decoding is a function of those alone); its entry is returned.
        let key = Some((ty, rows, k, mn.start, mn_major, k_rows));
        if let Some(m) = &memo {
            let hit = m.entries.iter().position(|e| {
                e.key == key
                    && e.at == *at
                    && at
                        .iter()
                        .zip(e.bytes.chunks_exact(16))
                        .all(|(&(cta, off, _), old)| {
                            self.ctas[cta as usize].shared[off as usize..off as usize + 16] == *old
                        })
            });
            if hit.is_some() {
                return Ok(hit);
            }
        }
        // The element decoding chosen once per operand, inlined in a loop of its own for the
        // common types (it was a function pointer called per element).
        let fill = Fill {
            chunks,
            at,
            panels: k_rows,
            dims: (rows, k as usize),
            mn_start: mn.start,
            mn_major,
        };
        let f32_of = |t: Elem, x: u64| elem_value(t, x) as f32;
        match (ty, bits) {
            (Elem::F16, _) => fill.run::<2>(self, out, |x| f32_of(Elem::F16, x)),
            (Elem::Bf16, _) => fill.run::<2>(self, out, |x| f32_of(Elem::Bf16, x)),
            (_, 8) => fill.run::<1>(self, out, |x| f32_of(ty, x)),
            (_, 16) => fill.run::<2>(self, out, |x| f32_of(ty, x)),
            _ => fill.run::<4>(self, out, |x| f32_of(ty, x)),
        }
        let Some(m) = memo else {
            return Ok(None);
        };
        // The matrix moves into the memo's next entry (whose old matrix becomes `out`, to be
        // overwritten by the next decoding).
        if m.entries.len() < crate::tensor_state::MEMO_OPERANDS {
            m.entries.push(Default::default());
            m.next = m.entries.len() - 1;
        }
        let i = m.next;
        m.next = (m.next + 1) % crate::tensor_state::MEMO_OPERANDS;
        let e = &mut m.entries[i];
        e.key = key;
        e.at.clear();
        e.at.extend_from_slice(at);
        e.bytes.clear();
        for &(cta, off, _) in at.iter() {
            e.bytes.extend_from_slice(
                &self.ctas[cta as usize].shared[off as usize..off as usize + 16],
            );
        }
        std::mem::swap(out, &mut e.matrix);
        Ok(Some(i))
    }

    /// The chunks of an operand (`(mn, k)` of each one's first element: K-major, `(mn, k / t)`
    /// in order; MN-major, `(k, mn / t)`) into `chunks`, and where each lies into `at`, in
    /// chunk order, up to the first one `resolve` refuses (its finding is the error).
    /// `Ok(true)`: every chunk lies in the executing CTA's shared memory, 16-byte aligned and
    /// on no mbarrier, found without `resolve`: places that are a function of the descriptor,
    /// the shape, the CTA and its mbarriers' slots alone ([`OperandPlaces`]).
    #[allow(clippy::too_many_arguments)]
    fn place_chunks(
        &mut self,
        w: usize,
        pc: u32,
        desc: Desc,
        t: u32,
        mn: std::ops::Range<u32>,
        k: u32,
        mn_major: bool,
        chunks: &mut Vec<(u32, u32)>,
        at: &mut Vec<(u32, u32, u32)>,
    ) -> Res<bool> {
        // (Two plain loops: a `flat_map` extended the vector element by element through its
        // general path, 2 % of a `wgmma` kernel's host instructions.)
        chunks.clear();
        if mn_major {
            for kk in 0..k {
                for m in mn.clone().step_by(t as usize) {
                    chunks.push((m, kk));
                }
            }
        } else {
            for m in mn.clone() {
                for kk in (0..k).step_by(t as usize) {
                    chunks.push((m, kk));
                }
            }
        }
        // The executing CTA's shared memory, where every chunk of a well-formed descriptor
        // lies: a chunk there needs none of `resolve`'s checks to fail (as `fast_targets`).
        let own = self.warps[w].cta;
        let lo = crate::memory::SHARED_BASE;
        let hi = lo + self.shape.shared_bytes;
        let no_mbarriers = self.ctas[own as usize].mbar_slots.iter().all(|s| *s == 0);
        at.clear();
        let mut all_fast = true;
        for &(m0, k0) in chunks.iter() {
            let a = desc.chunk(m0, k0, t, mn_major);
            let in_own = a >= lo && a.checked_add(16).is_some_and(|end| end <= hi);
            let fast = in_own
                && a.is_multiple_of(16)
                && (no_mbarriers || self.ctas[own as usize].holds_mbarrier(a, 16).is_none());
            if fast {
                at.push((own, a - lo, 16));
                continue;
            }
            all_fast = false;
            match self.resolve(w, 0, pc, Space::Shared, a as u64, 16)? {
                super::mem::Target::Shared { cta, off } => at.push((cta, off, 16)),
                _ => unreachable!("shared target"),
            }
        }
        Ok(all_fast)
    }

    fn wgmma(&mut self, w: usize, pc: u32, g: &Wgmma) -> Res<()> {
        let shape = (g.n, g.k, g.d_ty, g.a_ty, g.b_ty);
        let a_regs: Vec<u32> = match &g.a {
            WgmmaA::Regs(srcs) => srcs
                .iter()
                .filter_map(|s| match s {
                    Src::Reg(r) => Some(*r),
                    Src::Imm(_) => None,
                })
                .collect(),
            WgmmaA::Desc(_) => Vec::new(),
        };
        // The fence and in-flight rules for the registers it accesses.
        {
            let st = self.wgmma_state(w);
            let fenced = st.fenced;
            let touched: Option<u32> = g.d.iter().chain(&a_regs).copied().find(|&r| st.touched(r));
            let mut conflict = None;
            for &r in &g.d {
                if let Some((role, at)) = st.in_flight(r) {
                    let same = role == Role::Accumulator
                        && st.pending().any(|p| p.pc == at && p.shape == shape);
                    if !same {
                        conflict = Some((r, role, at));
                    }
                }
            }
            for &r in &a_regs {
                if let Some((Role::Accumulator, at)) = st.in_flight(r) {
                    conflict = Some((r, Role::Accumulator, at));
                }
            }
            if !fenced {
                return Err(self.wgmma_fence_report(
                    w,
                    pc,
                    "wgmma.mma_async without a wgmma.fence before it".into(),
                ));
            }
            if let Some(r) = touched {
                let name = self.prog.reg_names[r as usize].clone();
                return Err(self.wgmma_fence_report(w, pc, format!("wgmma.mma_async accesses `{name}`, which another instruction accessed after the last wgmma.fence")));
            }
            if let Some((r, role, at)) = conflict {
                return Err(self.in_flight_report(w, u32::MAX, pc, r, role, at));
            }
        }
        let warp = &self.warps[w];
        let q = warp.index % 4;
        let group_end = (warp.index / 4) * 4 + 4;
        if group_end > self.shape.warps_per_cta {
            return Err(Report::new(
                FindingKind::WarpCollective,
                WGMMA_SPEC,
                "wgmma.mma_async is executed by a warp of an incomplete warpgroup",
            )
            .site(self.site(w, u32::MAX, pc, "execute it"))
            .note("a warpgroup is four consecutive warps of the CTA, the first with a warp index that is a multiple of 4")
            .into());
        }
        let scale_d = (self.uniform(w, pc, g.scale_d.0, "scale-d", WGMMA_SPEC)? != 0) ^ g.scale_d.1;
        let k = g.k;
        let n = g.n;
        // The async agent reading shared memory, with what every thread of the warp has seen.
        let t0 = w as u32 * 32;
        let mut vc = self.race.issue_async(t0).to_clock();
        self.race.join_lanes(w as u32, !1, &mut vc);
        let desc = |m: &mut Self, s: Src, what: &str| -> Res<Desc> {
            let d = Desc::parse(m.uniform(w, pc, s, what, WGMMA_SPEC)?);
            if d.base_offset != 0 && d.swizzle != 0 {
                let site = &m.prog.sites[pc as usize];
                return Err(crate::error::SimError::Unsupported {
                    function: m.prog.funcs[site.func as usize].name.clone(),
                    line: site.line,
                    instruction: site.text.to_string(),
                    reason: format!("a matrix descriptor ({what}) with a non-zero base offset"),
                }
                .into());
            }
            Ok(d)
        };
        if self.made_up() {
            // A probe run's data is made up: no operand is read and the accumulators keep
            // what they held; the group is in flight as the protocol needs.
            let a_raw = match &g.a {
                WgmmaA::Desc(s) => Some(self.src_value(w, 0, *s)),
                WgmmaA::Regs(_) => None,
            };
            let b_raw = self.src_value(w, 0, g.b_desc);
            let seq = self.warpgroup_agrees(w, pc, (a_raw, b_raw, scale_d), &vc)?;
            let values = g
                .d
                .iter()
                .flat_map(|&r| self.warps[w].regs[r as usize * 32..r as usize * 32 + 32].to_vec())
                .collect();
            let pending = Pending {
                pc,
                shape,
                d: g.d.clone(),
                a_regs,
                values,
                tile: Vec::new(),
                vc,
                seq,
            };
            self.tensor.warps[w].push_open(pending);
            return Ok(());
        }
        let mut s = std::mem::take(&mut self.tensor.wgmma_scratch);
        match &g.a {
            WgmmaA::Desc(a) => {
                let d = desc(self, *a, "a-desc")?;
                let mn = 16 * q..16 * q + 16;
                let ty = g.a_ty;
                self.wgmma_operand(
                    w,
                    pc,
                    d,
                    ty,
                    mn,
                    k,
                    g.trans_a,
                    false,
                    t0,
                    &vc,
                    &mut s.a,
                    &mut s.operand,
                    None,
                    None,
                )?;
            }
            WgmmaA::Regs(srcs) => {
                let bits = g.a_ty.bits();
                self.gather_into(
                    w,
                    srcs,
                    g.a_ty,
                    (16, k as usize),
                    (Fragment::A, k),
                    |l, i| a_coord(k, bits, l, i),
                    (&mut s.a, 1, |x: f64| x as f32),
                )
            }
        };
        let bd = desc(self, g.b_desc, "b-desc")?;
        let a_raw = match &g.a {
            WgmmaA::Desc(s) => Some(self.src_value(w, 0, *s)),
            WgmmaA::Regs(_) => None,
        };
        let b_raw = self.src_value(w, 0, g.b_desc);
        let seq = self.warpgroup_agrees(w, pc, (a_raw, b_raw, scale_d), &vc)?;
        // B as k rows of n columns.
        let (ty, mn) = (g.b_ty, 0..n);
        let b = self.wgmma_operand(
            w,
            pc,
            bd,
            ty,
            mn,
            k,
            g.trans_b,
            true,
            t0,
            &vc,
            &mut s.b,
            &mut s.operand,
            Some(&mut s.b_memo),
            Some(&mut s.b_places),
        )?;
        let sa = if g.neg_a { -1.0 } else { 1.0 };
        let sb = if g.neg_b { -1.0 } else { 1.0 };
        // The warp's 16 rows of D (n columns), each output the accumulator (or 0) plus the
        // products in k order; A's rows are scaled first by the signs, as `sa * a * sb * b`
        // evaluates (in f64, as the products are: a sign changed is still exact in f32), and
        // each element is written twice, the layout [`accumulate`] reads.
        let (k, cols) = (k as usize, n as usize);
        s.a2.clear();
        s.a2.extend(s.a.iter().flat_map(|&x| [(sa * x as f64 * sb) as f32; 2]));
        let places = c_places(n, g.d_ty, g.d.len());
        s.d.clear();
        let st = &self.tensor.warps[w];
        // f32 accumulators that the newest pending wgmma of this warp wrote (a chain's k loop)
        // are its tile rounded to f32: what unpacking its registers' lanes gives, since the
        // C fragment places every element of the tile once.
        let kept = |p: &&Pending| {
            g.d_ty == Elem::F32
                && p.shape.0 == n
                && p.shape.2 == Elem::F32
                && p.tile.len() == 16 * cols
                && places.len() == 16 * cols
        };
        match st.chained(&g.d).filter(kept) {
            Some(p) if scale_d => s.d.extend(p.tile.iter().map(|&y| y as f32 as f64)),
            _ if scale_d => {
                s.d.resize(16 * cols, 0.0);
                let olds: Vec<&[u64]> = st
                    .pending_values_of(&g.d)
                    .into_iter()
                    .zip(&g.d)
                    .map(|(p, &r)| {
                        p.unwrap_or(&self.warps[w].regs[r as usize * 32..r as usize * 32 + 32])
                    })
                    .collect();
                unpack_acc(&mut s.d, &olds, &places, g.d_ty);
            }
            _ => s.d.resize(16 * cols, 0.0),
        }
        let b = match b {
            Some(i) => &s.b_memo.entries[i].matrix,
            None => &s.b,
        };
        accumulate(&mut s.d, &s.a2, b, k, cols);
        let mut values = self.tensor.spare_values.pop().unwrap_or_default();
        values.clear();
        values.resize(g.d.len() * 32, 0);
        pack_acc(&mut values, &s.d, &places, g.d_ty, g.satfinite);
        // The tile goes with the result; the next wgmma's is a kept one.
        let mut tile = Vec::new();
        if g.d_ty == Elem::F32 {
            let spare = self.tensor.spare_tiles.pop().unwrap_or_default();
            tile = std::mem::replace(&mut s.d, spare);
        }
        self.tensor.wgmma_scratch = s;
        let pending = Pending {
            pc,
            shape,
            d: g.d.clone(),
            a_regs,
            values,
            tile,
            vc,
            seq,
        };
        self.tensor.warps[w].push_open(pending);
        self.stats.async_ops += 1;
        Ok(())
    }
}

/// A `wgmma` operand's 16-byte chunks and where they lie, to place their elements in the
/// operand's matrix ([`Fill::run`]).
struct Fill<'a> {
    chunks: &'a [(u32, u32)],
    at: &'a [(u32, u32, u32)],
    /// The matrix is B in [`accumulate`]'s panels ([`b_index`]); otherwise row-major by mn.
    panels: bool,
    /// (mn indices, k).
    dims: (usize, usize),
    mn_start: u32,
    mn_major: bool,
}

impl Fill<'_> {
    /// Decodes each chunk's elements of `EB` bytes (little-endian, `16 / EB` to a chunk)
    /// into `out`, `decode` inlined: a chunk's elements are consecutive k (K-major) or mn
    /// (MN-major), so their places in `out` are one stride apart. In panels too: only f16
    /// and bf16 operands are MN-major (the decoder takes `.trans` for those alone), and a
    /// chunk's eight mn, a multiple of 8 from the first, lie in one panel (8 or 16 wide).
    #[inline(always)]
    fn run<const EB: usize>(&self, m: &Machine<'_>, out: &mut [f32], decode: impl Fn(u64) -> f32) {
        let (rows, k) = self.dims;
        for (&(m0, k0), &(cta, off, _)) in self.chunks.iter().zip(self.at) {
            let bytes = &m.ctas[cta as usize].shared[off as usize..off as usize + 16];
            let (mn, kk) = ((m0 - self.mn_start) as usize, k0 as usize);
            let (mut i, step) = match (self.panels, self.mn_major) {
                (false, false) => (mn * k + kk, 1),
                (false, true) => (mn * k + kk, k),
                (true, false) => (
                    b_index(mn, kk, k, rows),
                    PANEL.min(rows - mn / PANEL * PANEL),
                ),
                (true, true) => {
                    debug_assert!(mn % PANEL + 16 / EB <= PANEL.min(rows - mn / PANEL * PANEL));
                    (b_index(mn, kk, k, rows), 1)
                }
            };
            for x in bytes.chunks_exact(EB) {
                let v = match EB {
                    1 => x[0] as u64,
                    2 => u16::from_le_bytes([x[0], x[1]]) as u64,
                    _ => u32::from_le_bytes([x[0], x[1], x[2], x[3]]) as u64,
                };
                out[i] = decode(v);
                i += step;
            }
        }
    }
}

/// A race report of a wgmma read, in wgmma's words (the report names bulk copies).
fn retitle(stop: Stop) -> Stop {
    match stop {
        Stop::Finding(mut r) => {
            r.message = r
                .message
                .replace("a bulk copy reads", "wgmma.mma_async reads")
                .replace(
                    "the asynchronous copy that writes it",
                    "the operation that writes it",
                );
            for s in &mut r.sites {
                s.what = s.what.replace(
                    "an asynchronous copy issued here",
                    "wgmma.mma_async issued here",
                );
            }
            Stop::Finding(r)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixteen_bit_operands_widen_as_the_general_decoder() {
        for bits in 0..=0xffffu64 {
            for (ty, fmt) in [(Elem::F16, Fmt::F16), (Elem::Bf16, Fmt::Bf16)] {
                let fast = elem_value(ty, bits);
                let general = super::super::half::decode(fmt, bits as u32);
                assert_eq!(fast.to_bits(), general.to_bits(), "{fmt:?} {bits:#06x}");
            }
        }
    }

    /// Every operand type's values, as [`elem_value`] decodes them, are exact in f32, NaNs
    /// included bit for bit: the f32 operand matrices [`accumulate`] reads widen back to the
    /// f64 values the sums took before (every pattern of the 8- and 16-bit types, every
    /// tf32 pattern with a few low-bit fillings).
    #[test]
    fn operand_values_are_exact_in_f32() {
        let check = |t: Elem, bits: u64| {
            let v = elem_value(t, bits);
            assert_eq!(
                ((v as f32) as f64).to_bits(),
                v.to_bits(),
                "{t:?} {bits:#x}"
            );
        };
        for t in [Elem::F16, Elem::Bf16] {
            (0..1 << 16).for_each(|b| check(t, b));
        }
        for t in [Elem::E4m3, Elem::E5m2, Elem::S8, Elem::U8] {
            (0..1 << 8).for_each(|b| check(t, b));
        }
        for hi in 0..1u64 << 19 {
            for lo in [0, 1, 0x1000, 0x1fff] {
                check(Elem::Tf32, hi << 13 | lo);
            }
        }
    }

    /// The multiply-add of each operand type as [`accumulate`] computes it from f32 operands
    /// is bit for bit the f64 fold of the decoded values in k order, on random bit patterns
    /// weighted to the special ones (exponent all ones: infinities and NaNs; all zeros:
    /// zeros and subnormals), at `mma.sync`'s and `wgmma`'s shapes.
    #[test]
    fn tensor_step_matches_the_plain_fold_for_every_operand_type() {
        use super::super::mac::tests::assert_blocked_is_by_output;
        // (type, its bits, the exponent field's mask).
        let types = [
            (Elem::F16, 16, 0x7c00u64),
            (Elem::Bf16, 16, 0x7f80),
            (Elem::Tf32, 32, 0x7f80_0000),
            (Elem::E4m3, 8, 0x78),
            (Elem::E5m2, 8, 0x7c),
            (Elem::S8, 8, 0x80),
            (Elem::U8, 8, 0x80),
        ];
        let mut seed = 5u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 17
        };
        for (t, bits, exp) in types {
            let element = |x: u64| {
                let b = (x >> 2) & ((1u64 << bits) - 1);
                match x % 4 {
                    0 => b | exp,
                    1 => b & !exp,
                    _ => b,
                }
            };
            for (rows, k, n) in [
                (16, 16, 8),
                (16, 32, 8),
                (16, 8, 8),
                (16, 16, 256),
                (16, 32, 24),
            ] {
                for _ in 0..8 {
                    let a: Vec<f64> = (0..rows * k)
                        .map(|_| elem_value(t, element(next())))
                        .collect();
                    let b: Vec<f64> = (0..k * n).map(|_| elem_value(t, element(next()))).collect();
                    // Accumulators as the registers give them (f32), or a chain's f64 sums.
                    let init: Vec<f64> = (0..rows * n)
                        .map(|i| {
                            let c = elem_value(Elem::F32, next() & 0xffff_ffff);
                            if i % 2 == 0 { c } else { c * 1.000_000_1 }
                        })
                        .collect();
                    let what = format!("{t:?} {rows}x{k}x{n}");
                    assert_blocked_is_by_output(init, &a, &b, (k, n), &what);
                }
            }
        }
    }

    #[test]
    fn descriptor_fields() {
        // Triton's A operand: 128-byte swizzle, SBO 1024, start 0x1000.
        let v = (1u64 << 62) | (64u64 << 32) | (0x1000 >> 4);
        let d = Desc::parse(v);
        assert_eq!(
            d,
            Desc {
                start: 0x1000,
                lbo: 0,
                sbo: 1024,
                base_offset: 0,
                swizzle: 128
            }
        );
        assert_eq!(Desc::parse(3 << 62).swizzle, 32);
        assert_eq!(Desc::parse(2 << 62).swizzle, 64);
        assert_eq!(Desc::parse(0).swizzle, 0);
    }

    #[test]
    fn swizzle_permutes_chunks_within_rows() {
        for s in [32u32, 64, 128] {
            let atom = 8 * s;
            for row in 0..8u32 {
                let mut seen: Vec<u32> =
                    (0..s / 16).map(|c| swizzle(row * s + 16 * c, s)).collect();
                seen.sort_unstable();
                let want: Vec<u32> = (0..s / 16).map(|c| row * s + 16 * c).collect();
                // Within the repeating pattern, a row's chunks stay in their row.
                assert_eq!(seen, want, "swizzle {s} row {row}");
                assert!(swizzle(row * s, s) < atom);
            }
        }
        // 128B: row 1's first chunk is its second.
        assert_eq!(swizzle(128, 128), 128 + 16);
        assert_eq!(swizzle(7 * 128 + 7 * 16, 128), 7 * 128);
    }

    /// A `wgmma`'s f32 accumulators unpacked from the registers its predecessor packed are its
    /// tile rounded to f32 element by element (what a chain's `wgmma` takes from the kept
    /// tile, `Pending::tile`), at every n: the C fragment places each element once.
    #[test]
    fn f32_accumulators_round_trip_as_the_tile_rounded() {
        let mut seed = 11u64;
        for n in (8..=256).step_by(8) {
            let regs = n as usize / 2;
            let places = c_places(n, Elem::F32, regs);
            assert_eq!(places.len(), 16 * n as usize);
            let tile: Vec<f64> = (0..16 * n as usize)
                .map(|i| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    match i % 97 {
                        0 => f64::NAN,
                        1 => f64::INFINITY,
                        2 => -0.0,
                        3 => 1e300,
                        _ => ((seed >> 11) as f64 - 2f64.powi(52)) * 2f64.powi(-40),
                    }
                })
                .collect();
            let mut values = vec![0u64; regs * 32];
            pack_acc(&mut values, &tile, &places, Elem::F32, false);
            let rows: Vec<&[u64]> = values.chunks_exact(32).collect();
            let mut back = vec![0.0; tile.len()];
            unpack_acc(&mut back, &rows, &places, Elem::F32);
            for (x, y) in back.iter().zip(&tile) {
                assert_eq!(x.to_bits(), (*y as f32 as f64).to_bits(), "n = {n}");
            }
        }
    }

    /// Every element of each fragment has one owner, and the owners cover the matrix.
    #[test]
    fn fragment_layouts_cover_their_matrices() {
        for (k, bits) in [(16, 16), (8, 16), (8, 32), (4, 32), (32, 8), (16, 8)] {
            let per = 32 / bits;
            let (ar, br) = crate::decode::frag_regs(
                k,
                match bits {
                    16 => Elem::F16,
                    32 => Elem::Tf32,
                    _ => Elem::S8,
                },
            );
            let mut a = vec![0; 16 * k as usize];
            let mut b = vec![0; 8 * k as usize];
            for lane in 0..32 {
                for i in 0..ar as u32 * per {
                    let (r, c) = a_coord(k, bits, lane, i);
                    a[(r * k + c) as usize] += 1;
                }
                for i in 0..br as u32 * per {
                    let (r, c) = b_coord(k, bits, lane, i);
                    b[(r * 8 + c) as usize] += 1;
                }
            }
            assert!(a.iter().all(|&x| x == 1), "A k{k} {bits}-bit");
            assert!(b.iter().all(|&x| x == 1), "B k{k} {bits}-bit");
        }
        let mut c = [0; 16 * 8];
        for lane in 0..32 {
            for i in 0..4 {
                let (r, col) = c_coord(lane, i);
                c[(r * 8 + col) as usize] += 1;
            }
        }
        assert!(c.iter().all(|&x| x == 1));
    }

    /// The accumulator's table and [`unpack`]/[`pack`] place each register element where
    /// [`c_coord`] does, and a tile read from registers packs back to them.
    #[test]
    fn accumulator_places_follow_c_coord() {
        for (ty, cols) in [
            (Elem::F32, 8u32),
            (Elem::F32, 256),
            (Elem::F16, 64),
            (Elem::S32, 8),
        ] {
            let per = 32 / ty.bits();
            let regs = (cols / 8 * 4 / per) as usize;
            let places = c_places(cols, ty, regs);
            let values: Vec<u64> = (0..regs * 32)
                .map(|i| match ty {
                    Elem::F16 => (i as u64 % 2000) << 16 | (i as u64 % 3000),
                    _ => (i as u64) << 8,
                })
                .collect();
            let olds: Vec<&[u64]> = values.chunks(32).collect();
            let mut d = vec![f64::NAN; 16 * cols as usize];
            unpack_acc(&mut d, &olds, &places, ty);
            for lane in 0..32u32 {
                for j in 0..regs as u32 {
                    for e in 0..per {
                        let (r, c) = c_coord(lane, j * per + e);
                        let want = elem_value(ty, values[(j * 32 + lane) as usize] >> (16 * e));
                        assert_eq!(d[(r * cols + c) as usize], want, "{ty:?} {cols}");
                    }
                }
            }
            let mut back = vec![0; regs * 32];
            pack_acc(&mut back, &d, &places, ty, false);
            assert_eq!(back, values, "{ty:?} {cols}");
        }
    }

    #[test]
    fn canonical_layouts_match_the_isa_examples() {
        // §9.7.15.5.1.2.1.3, MN-major no-swizzle bf16: ((8,1,2),(8,2)):((1,8,64),(8,128)) in
        // elements, LBO 128 and SBO 64 elements (T = 8).
        let d = Desc {
            start: 0,
            lbo: 256,
            sbo: 128,
            base_offset: 0,
            swizzle: 0,
        };
        for mn in 0..16u32 {
            for k in 0..16u32 {
                let elem = (mn % 8) + (mn / 8) * 64 + (k % 8) * 8 + (k / 8) * 128;
                let chunk_start = elem / 8 * 16;
                assert_eq!(d.chunk(mn, k, 8, true), chunk_start, "mn {mn} k {k}");
            }
        }
        // MN-major 64B swizzle bf16: ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 256, SBO 512.
        let d = Desc {
            start: 0,
            lbo: 512,
            sbo: 1024,
            base_offset: 0,
            swizzle: 64,
        };
        for mn in (0..64u32).step_by(8) {
            for k in 0..16u32 {
                let elem =
                    (mn % 8) + ((mn / 8) % 4) * 8 + (mn / 32) * 256 + (k % 8) * 32 + (k / 8) * 512;
                assert_eq!(
                    d.chunk(mn, k, 8, true),
                    swizzle(elem * 2, 64),
                    "mn {mn} k {k}"
                );
            }
        }
        // K-major 32B swizzle tf32 (T = 4): ((8,2),(4,4)):((8,64),(1,4)) over k < 8 (one
        // instruction's K extent), SBO 64 elements.
        let d = Desc {
            start: 0,
            lbo: 16,
            sbo: 256,
            base_offset: 0,
            swizzle: 32,
        };
        for mn in 0..16u32 {
            for k in (0..8u32).step_by(4) {
                let elem = (mn % 8) * 8 + (mn / 8) * 64 + k;
                assert_eq!(d.chunk(mn, k, 4, false), swizzle(elem * 4, 32));
            }
        }
    }
}
