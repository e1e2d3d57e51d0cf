//! Float arithmetic, comparisons and conversions.
//!
//! Round-to-nearest-even results are IEEE-exact, as the hardware's. `.approx` instructions
//! are computed exactly (within the spec's error bound, which allows any value in it).
//! `.ftz` flushes subnormal inputs and results to sign-preserving zero; `.sat` clamps to
//! [0, 1] with NaN → 0.

use super::map::{map1, map2, map3};
use crate::decode::*;
use crate::state::lanes;

#[inline(always)]
fn ftz32(x: f32, on: bool) -> f32 {
    if on && x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

#[inline(always)]
fn ftz64(x: f64, on: bool) -> f64 {
    if on && x.is_subnormal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

#[inline(always)]
fn sat32(x: f32, on: bool) -> f32 {
    if !on {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

#[inline(always)]
fn sat64(x: f64, on: bool) -> f64 {
    if !on {
        x
    } else if x.is_nan() {
        0.0
    } else {
        x.clamp(0.0, 1.0)
    }
}

/// PTX `min`/`max`: a NaN operand yields the other operand; `-0.0 < +0.0`.
#[inline(always)]
fn minmax64(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if a == b {
        return if a.is_sign_negative() ^ max { a } else { b };
    }
    if (a < b) ^ max { a } else { b }
}

fn un64(op: FUn, x: f64) -> f64 {
    match op {
        FUn::Neg => -x,
        FUn::Abs => x.abs(),
        FUn::Sqrt => x.sqrt(),
        FUn::Rsqrt => 1.0 / x.sqrt(),
        FUn::Rcp => 1.0 / x,
        FUn::Ex2 => x.exp2(),
        FUn::Lg2 => x.log2(),
        FUn::Sin => x.sin(),
        FUn::Cos => x.cos(),
        FUn::Tanh => x.tanh(),
    }
}

fn un32(op: FUn, x: f32) -> f32 {
    match op {
        FUn::Neg => -x,
        FUn::Abs => x.abs(),
        FUn::Sqrt => x.sqrt(),
        FUn::Rsqrt => 1.0 / x.sqrt(),
        FUn::Rcp => 1.0 / x,
        FUn::Ex2 => x.exp2(),
        FUn::Lg2 => x.log2(),
        FUn::Sin => x.sin(),
        FUn::Cos => x.cos(),
        FUn::Tanh => x.tanh(),
    }
}

/// The NaN an x86 `addss`/`mulss` gives whose first source is `b` and second `a` (how
/// [`bin32`] compiled, and so the simulator's f32 add and mul have always given it): the first
/// source's if it is a NaN, else the second's, quieted; else `r`, the default NaN of an invalid
/// operation (`inf - inf`, `0 * inf`), which does not depend on the order.
#[inline(always)]
fn nan_of(r: f32, a: f32, b: f32) -> f32 {
    let quiet = |x: f32| f32::from_bits(x.to_bits() | 0x0040_0000);
    if b.is_nan() {
        quiet(b)
    } else if a.is_nan() {
        quiet(a)
    } else {
        r
    }
}

/// f32 `a + b`, its NaN payload fixed by [`nan_of`] whichever operand order LLVM compiles the
/// addition with (it may swap a commutative operation's operands where it inlines it, which
/// changed NaN payloads once): a lane loop of its own that inlines, where [`bin32`] is a call
/// per lane.
#[inline(always)]
fn add32(a: f32, b: f32) -> f32 {
    let r = a + b;
    if r.is_nan() { nan_of(r, a, b) } else { r }
}

/// f32 `a * b`, as [`add32`].
#[inline(always)]
fn mul32(a: f32, b: f32) -> f32 {
    let r = a * b;
    if r.is_nan() { nan_of(r, a, b) } else { r }
}

/// Not inlined: a NaN result carries the payload of the operand the compiled `addss` or
/// `mulss` names first, and LLVM may swap the operands of a commutative operation where it
/// inlines it (a vectorised lane loop did, and changed NaN payloads), so this keeps one
/// compiled form (add and mul have loops of their own, [`add32`] and [`mul32`]).
#[inline(never)]
fn bin32(op: FBin, a: f32, b: f32) -> f32 {
    match op {
        FBin::Add => a + b,
        FBin::Sub => a - b,
        FBin::Mul => a * b,
        FBin::Div => a / b,
        FBin::Min => minmax64(a as f64, b as f64, false) as f32,
        FBin::Max => minmax64(a as f64, b as f64, true) as f32,
        // The canonical NaN of PTX: 0x7FFFFFFF.
        FBin::MinNaN | FBin::MaxNaN if a.is_nan() || b.is_nan() => f32::from_bits(0x7fff_ffff),
        FBin::MinNaN => minmax64(a as f64, b as f64, false) as f32,
        FBin::MaxNaN => minmax64(a as f64, b as f64, true) as f32,
        FBin::Copysign => b.copysign(a),
    }
}

fn bin64(op: FBin, a: f64, b: f64) -> f64 {
    match op {
        FBin::Add => a + b,
        FBin::Sub => a - b,
        FBin::Mul => a * b,
        FBin::Div => a / b,
        FBin::Min => minmax64(a, b, false),
        FBin::Max => minmax64(a, b, true),
        FBin::MinNaN | FBin::MaxNaN if a.is_nan() || b.is_nan() => {
            f64::from_bits(0x7fff_ffff_ffff_ffff)
        }
        FBin::MinNaN => minmax64(a, b, false),
        FBin::MaxNaN => minmax64(a, b, true),
        FBin::Copysign => b.copysign(a),
    }
}

/// A unary f32 op over the lanes, with `op` known at compile time: the common operations
/// get a lane loop of their own instead of a match on the operation per lane, and the
/// loop without `.ftz` and `.sat` (the usual case) skips their tests. Same results as
/// `un32` with the flushes and clamp around it.
#[inline(always)]
fn un32_with(
    regs: &mut [u64],
    eff: u32,
    d: u32,
    a: Src,
    ftz: bool,
    sat: bool,
    op: impl Fn(f32) -> f32,
) {
    if !ftz && !sat {
        map1(regs, eff, d, a, |x| {
            op(f32::from_bits(x as u32)).to_bits() as u64
        })
    } else {
        map1(regs, eff, d, a, |x| {
            let r = op(ftz32(f32::from_bits(x as u32), ftz));
            sat32(ftz32(r, ftz), sat).to_bits() as u64
        })
    }
}

/// A binary f32 op over the lanes, `op` known at compile time (see [`un32_with`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn bin32_with(
    regs: &mut [u64],
    eff: u32,
    d: u32,
    a: Src,
    b: Src,
    ftz: bool,
    sat: bool,
    op: impl Fn(f32, f32) -> f32,
) {
    if !ftz && !sat {
        map2(regs, eff, d, a, b, |x, y| {
            op(f32::from_bits(x as u32), f32::from_bits(y as u32)).to_bits() as u64
        })
    } else {
        map2(regs, eff, d, a, b, |x, y| {
            let r = op(
                ftz32(f32::from_bits(x as u32), ftz),
                ftz32(f32::from_bits(y as u32), ftz),
            );
            sat32(ftz32(r, ftz), sat).to_bits() as u64
        })
    }
}

pub(super) fn exec(regs: &mut [u64], eff: u32, kind: &Kind) {
    match *kind {
        Kind::Float1 {
            op,
            ty: FTy::F32,
            d,
            a,
            ftz,
            sat,
        } => match op {
            FUn::Ex2 => un32_with(regs, eff, d, a, ftz, sat, f32::exp2),
            FUn::Neg => un32_with(regs, eff, d, a, ftz, sat, |x| -x),
            FUn::Abs => un32_with(regs, eff, d, a, ftz, sat, f32::abs),
            FUn::Rcp => un32_with(regs, eff, d, a, ftz, sat, |x| 1.0 / x),
            _ => un32_with(regs, eff, d, a, ftz, sat, move |x| un32(op, x)),
        },
        Kind::Float1 {
            op,
            ty: FTy::F64,
            d,
            a,
            ftz,
            sat,
        } => map1(regs, eff, d, a, move |x| {
            sat64(ftz64(un64(op, ftz64(f64::from_bits(x), ftz)), ftz), sat).to_bits()
        }),
        Kind::Float2 {
            op,
            ty: FTy::F32,
            d,
            a,
            b,
            ftz,
            sat,
        } => match op {
            FBin::Add => bin32_with(regs, eff, d, a, b, ftz, sat, add32),
            FBin::Mul => bin32_with(regs, eff, d, a, b, ftz, sat, mul32),
            FBin::Sub => bin32_with(regs, eff, d, a, b, ftz, sat, |x, y| x - y),
            FBin::Div => bin32_with(regs, eff, d, a, b, ftz, sat, |x, y| x / y),
            FBin::Max => bin32_with(regs, eff, d, a, b, ftz, sat, |x, y| {
                minmax64(x as f64, y as f64, true) as f32
            }),
            FBin::Min => bin32_with(regs, eff, d, a, b, ftz, sat, |x, y| {
                minmax64(x as f64, y as f64, false) as f32
            }),
            _ => bin32_with(regs, eff, d, a, b, ftz, sat, move |x, y| bin32(op, x, y)),
        },
        Kind::Float2 {
            op,
            ty: FTy::F64,
            d,
            a,
            b,
            ftz,
            sat,
        } => map2(regs, eff, d, a, b, move |x, y| {
            sat64(
                ftz64(
                    bin64(
                        op,
                        ftz64(f64::from_bits(x), ftz),
                        ftz64(f64::from_bits(y), ftz),
                    ),
                    ftz,
                ),
                sat,
            )
            .to_bits()
        }),
        Kind::Fma {
            ty: FTy::F32,
            d,
            a,
            b,
            c,
            ftz,
            sat,
        } => map3(regs, eff, d, a, b, c, move |x, y, z| {
            let f = |v: u64| ftz32(f32::from_bits(v as u32), ftz);
            sat32(ftz32(f(x).mul_add(f(y), f(z)), ftz), sat).to_bits() as u64
        }),
        Kind::Fma {
            ty: FTy::F64,
            d,
            a,
            b,
            c,
            ftz,
            sat,
        } => map3(regs, eff, d, a, b, c, move |x, y, z| {
            let f = |v: u64| ftz64(f64::from_bits(v), ftz);
            sat64(ftz64(f(x).mul_add(f(y), f(z)), ftz), sat).to_bits()
        }),
        // f16 to f32 (Triton's loads of half-precision data) in a loop of its own, without
        // `cvt`'s match on the types per lane: what `cvt` gives without `.sat`, `.ftz` or an
        // integer rounding (a NaN becomes the canonical NaN, other values widen exactly).
        Kind::Cvt {
            d,
            a,
            from: CvtTy::F16,
            to: CvtTy::Float(FTy::F32),
            rnd,
            sat: false,
            ftz: false,
        } if !matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) => {
            map1(regs, eff, d, a, |x| {
                if x as u32 & 0x7fff > 0x7c00 {
                    0x7fff_ffff
                } else {
                    (super::half::f16_value(x as u32) as f32).to_bits() as u64
                }
            })
        }
        Kind::Cvt {
            d,
            a,
            from,
            to,
            rnd,
            sat,
            ftz,
        } => {
            // f32 to f16 or bf16 (a Triton epilogue's conversion of every output) with the
            // common case inlined in the lane loop ([`cvt_f32_to_half`]).
            let general = move |x| cvt(x, from, to, rnd, sat, ftz);
            match (from, to) {
                (CvtTy::Float(FTy::F32), CvtTy::F16) => map1(regs, eff, d, a, move |x| {
                    cvt_f32_to_half::<10, 15>(x).unwrap_or_else(|| general(x))
                }),
                (CvtTy::Float(FTy::F32), CvtTy::Bf16) => map1(regs, eff, d, a, move |x| {
                    cvt_f32_to_half::<7, 127>(x).unwrap_or_else(|| general(x))
                }),
                _ => map1(regs, eff, d, a, general),
            }
        }
        _ => unreachable!("not a float op"),
    }
}

/// A value of type `t` as f64 (exact for every supported type but 64-bit integers).
fn to_f64(x: u64, t: CvtTy) -> f64 {
    match t {
        CvtTy::Float(FTy::F32) => f32::from_bits(x as u32) as f64,
        CvtTy::Float(FTy::F64) => f64::from_bits(x),
        // A NaN keeps its payload here (`f16_to_f32`); other values widen exactly.
        CvtTy::F16 if x as u32 & 0x7fff > 0x7c00 => f16_to_f32(x as u16) as f64,
        CvtTy::F16 => super::half::f16_value(x as u32),
        CvtTy::Bf16 => f32::from_bits((x as u32 & 0xffff) << 16) as f64,
        CvtTy::Int(it) => {
            if it.signed {
                it.extend(x) as i64 as f64
            } else {
                (x & it.mask()) as f64
            }
        }
    }
}

fn round(v: f64, rnd: Rnd) -> f64 {
    match rnd {
        Rnd::Rni | Rnd::Rn => v.round_ties_even(),
        Rnd::Rzi | Rnd::Rz | Rnd::Default => v.trunc(),
        Rnd::Rmi | Rnd::Rm => v.floor(),
        Rnd::Rpi | Rnd::Rp => v.ceil(),
    }
}

/// `cvt`: integer↔integer (with `.sat` clamping), integer↔float, float↔float.
pub(super) fn cvt(x: u64, from: CvtTy, to: CvtTy, rnd: Rnd, sat: bool, ftz: bool) -> u64 {
    match (from, to) {
        (CvtTy::Int(f), CvtTy::Int(t)) => {
            let v = f.extend(x);
            if sat {
                let (lo, hi): (i128, i128) = if t.signed {
                    (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
                } else {
                    (0, (1i128 << t.bits) - 1)
                };
                let wide = if f.signed {
                    v as i64 as i128
                } else {
                    v as i128
                };
                (wide.clamp(lo, hi) as u64) & t.mask()
            } else {
                v & t.mask()
            }
        }
        (CvtTy::Int(f), CvtTy::Float(t)) => {
            // Integer to float rounds to nearest even, as `as` does, from the exact integer.
            let r = match (f.signed, t) {
                (true, FTy::F32) => (f.extend(x) as i64 as f32).to_bits() as u64,
                (false, FTy::F32) => ((x & f.mask()) as f32).to_bits() as u64,
                (true, FTy::F64) => (f.extend(x) as i64 as f64).to_bits(),
                (false, FTy::F64) => ((x & f.mask()) as f64).to_bits(),
            };
            finish_float(r, t, sat, ftz)
        }
        (CvtTy::Int(f), CvtTy::F16 | CvtTy::Bf16) => {
            float_to_half(to_f64(x, CvtTy::Int(f)), to, false)
        }
        (_, CvtTy::Int(t)) => {
            let v = to_f64(x, from);
            let v = if ftz
                && v.abs() < f32::MIN_POSITIVE as f64
                && matches!(from, CvtTy::Float(FTy::F32))
            {
                0.0
            } else {
                v
            };
            let r = round(v, rnd);
            // Float to integer saturates; NaN gives 0.
            let out = if r.is_nan() {
                0u64
            } else if t.signed {
                let lo = -(2f64.powi(t.bits as i32 - 1));
                let hi = 2f64.powi(t.bits as i32 - 1) - 1.0;
                (r.clamp(lo, hi) as i64) as u64
            } else {
                r.clamp(0.0, 2f64.powi(t.bits as i32) - 1.0) as u64
            };
            out & t.mask()
        }
        (_, CvtTy::Float(t)) => {
            let mut v = to_f64(x, from);
            // NaNs as an H100 converts them (examples/tensor_gpu.rs): an f16 NaN becomes the
            // canonical NaN, a bf16 one keeps its bits (the ISA leaves it unspecified).
            if v.is_nan() && t == FTy::F32 {
                match from {
                    CvtTy::F16 => return 0x7fff_ffff,
                    CvtTy::Bf16 => return (x & 0xffff) << 16,
                    _ => {}
                }
            }
            if ftz && from == CvtTy::Float(FTy::F32) && (v as f32).is_subnormal() {
                v = 0.0f64.copysign(v);
            }
            if matches!(rnd, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi) {
                v = round(v, rnd);
            }
            let r = match t {
                FTy::F32 => (v as f32).to_bits() as u64,
                FTy::F64 => v.to_bits(),
            };
            finish_float(r, t, sat, ftz)
        }
        (_, CvtTy::F16 | CvtTy::Bf16) => {
            float_to_half(to_f64(x, from), to, from == CvtTy::Float(FTy::F64))
        }
    }
}

fn finish_float(bits: u64, t: FTy, sat: bool, ftz: bool) -> u64 {
    match t {
        FTy::F32 => sat32(ftz32(f32::from_bits(bits as u32), ftz), sat).to_bits() as u64,
        FTy::F64 => sat64(f64::from_bits(bits), sat).to_bits(),
    }
}

fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let v = m as f32 * 2f32.powi(-24);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// A value (exact in f64: every f32, f64, f16, bf16 and integer of at most 53 bits) to f16 or
/// bf16, rounded to nearest even once (no double rounding through f32). A NaN gives the
/// canonical NaN 0x7fff from an f32, as an H100 does (`book/src/gpu/validation.md`), and from an
/// f64 the NaN an H100's f64 conversion gives ([`super::half::converted_nan`]).
/// [`cvt`] from f32 to f16 (`MAN` 10, `BIAS` 15) or bf16 (7, 127), whatever the rounding
/// modifier, `.sat` and `.ftz` ([`float_to_half`] rounds to nearest even and takes none), where
/// the result is a normal number: `None` elsewhere (zeros, subnormals, overflow, infinities,
/// NaN), for `cvt` itself.
#[inline(always)]
fn cvt_f32_to_half<const MAN: u32, const BIAS: i32>(x: u64) -> Option<u64> {
    super::half::encode_f32_normal::<MAN, BIAS>(x as u32).map(u64::from)
}

fn float_to_half(v: f64, to: CvtTy, from_f64: bool) -> u64 {
    let fmt = if to == CvtTy::Bf16 {
        crate::decode::Fmt::Bf16
    } else {
        crate::decode::Fmt::F16
    };
    if v.is_nan() && from_f64 {
        return super::half::converted_nan(v, fmt) as u64;
    }
    super::half::encode(v, 0.0, fmt, false) as u64
}

/// An integer comparison in a loop of its own.
#[inline(always)]
fn int_compare(
    regs: &mut [u64],
    eff: u32,
    d: u32,
    a: Src,
    b: Src,
    it: IntTy,
    f: impl Fn(std::cmp::Ordering) -> bool,
) {
    if it.signed {
        map2(regs, eff, d, a, b, move |x, y| {
            f((it.extend(x) as i64).cmp(&(it.extend(y) as i64))) as u64
        })
    } else {
        let m = it.mask();
        map2(regs, eff, d, a, b, move |x, y| {
            f((x & m).cmp(&(y & m))) as u64
        })
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn setp(
    regs: &mut [u64],
    eff: u32,
    cmp: Cmp,
    ty: CvtTy,
    d: u32,
    dn: u32,
    a: Src,
    b: Src,
    comb: Option<(BoolOp, Src, bool)>,
) {
    // The common form: an integer comparison into one predicate.
    if let (CvtTy::Int(it), None, SINK) = (ty, comb, dn) {
        use std::cmp::Ordering::*;
        match cmp {
            Cmp::Eq | Cmp::Equ => return int_compare(regs, eff, d, a, b, it, |o| o == Equal),
            Cmp::Ne | Cmp::Neu => return int_compare(regs, eff, d, a, b, it, |o| o != Equal),
            Cmp::Lt | Cmp::Ltu => return int_compare(regs, eff, d, a, b, it, |o| o == Less),
            Cmp::Le | Cmp::Leu => return int_compare(regs, eff, d, a, b, it, |o| o != Greater),
            Cmp::Gt | Cmp::Gtu => return int_compare(regs, eff, d, a, b, it, |o| o == Greater),
            Cmp::Ge | Cmp::Geu => return int_compare(regs, eff, d, a, b, it, |o| o != Less),
            Cmp::Num | Cmp::Nan => {}
        }
    }
    let val = |regs: &[u64], s: Src, i: usize| match s {
        Src::Reg(r) => regs[r as usize * 32 + i],
        Src::Imm(v) => v,
    };
    for i in lanes(eff) {
        let (av, bv) = (val(regs, a, i), val(regs, b, i));
        let r = match ty {
            CvtTy::Int(it) => {
                let (x, y) = (it.extend(av), it.extend(bv));
                let ord = if it.signed {
                    (x as i64).cmp(&(y as i64))
                } else {
                    x.cmp(&y)
                };
                use std::cmp::Ordering::*;
                match cmp {
                    Cmp::Eq | Cmp::Equ => ord == Equal,
                    Cmp::Ne | Cmp::Neu => ord != Equal,
                    Cmp::Lt | Cmp::Ltu => ord == Less,
                    Cmp::Le | Cmp::Leu => ord != Greater,
                    Cmp::Gt | Cmp::Gtu => ord == Greater,
                    Cmp::Ge | Cmp::Geu => ord != Less,
                    Cmp::Num => true,
                    Cmp::Nan => false,
                }
            }
            _ => {
                let (x, y) = (to_f64(av, ty), to_f64(bv, ty));
                let nan = x.is_nan() || y.is_nan();
                match cmp {
                    Cmp::Eq => !nan && x == y,
                    Cmp::Ne => !nan && x != y,
                    Cmp::Lt => !nan && x < y,
                    Cmp::Le => !nan && x <= y,
                    Cmp::Gt => !nan && x > y,
                    Cmp::Ge => !nan && x >= y,
                    Cmp::Equ => nan || x == y,
                    Cmp::Neu => nan || x != y,
                    Cmp::Ltu => nan || x < y,
                    Cmp::Leu => nan || x <= y,
                    Cmp::Gtu => nan || x > y,
                    Cmp::Geu => nan || x >= y,
                    Cmp::Num => !nan,
                    Cmp::Nan => nan,
                }
            }
        };
        let (out, out_n) = match comb {
            Some((op, c, neg)) => {
                let c = (val(regs, c, i) != 0) ^ neg;
                let f = |v: bool| match op {
                    BoolOp::And => v & c,
                    BoolOp::Or => v | c,
                    BoolOp::Xor => v ^ c,
                };
                (f(r), f(!r))
            }
            _ => (r, !r),
        };
        if d != SINK {
            regs[d as usize * 32 + i] = out as u64;
        }
        if dn != SINK {
            regs[dn as usize * 32 + i] = out_n as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inlined f32-to-half conversion ([`cvt_f32_to_half`]) is [`cvt`]'s where it gives a
    /// result: on f32 patterns weighted to the exponents around the formats' ranges and to
    /// mantissas at and beside the rounding ties, under every rounding modifier, `.sat` and
    /// `.ftz`; and it gives one for most of them.
    #[test]
    fn inlined_f32_to_half_is_cvt() {
        let mut rng = crate::rng::Rng::new(13);
        let mut given = 0;
        let rnds = [Rnd::Default, Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
        for i in 0..200_000u64 {
            let mant = match rng.below(4) {
                0 => rng.below(1 << 23) as u32,
                // At a tie for bf16 (16 bits dropped) or f16 (13), or one beside it.
                1 => ((rng.below(1 << 7) as u32) << 16 | 0x8000) + rng.below(3) as u32 - 1,
                2 => ((rng.below(1 << 10) as u32) << 13 | 0x1000) + rng.below(3) as u32 - 1,
                _ => (1 << 23) - 1 - rng.below(4) as u32,
            } & ((1 << 23) - 1);
            let exp = match rng.below(3) {
                0 => rng.below(256) as u32,
                1 => 127 - 16 + rng.below(34) as u32,
                _ => [0, 1, 254, 255][rng.below(4) as usize],
            };
            let x = (rng.below(2) as u32) << 31 | exp << 23 | mant;
            let (rnd, sat, ftz) = (rnds[(i % 5) as usize], i % 7 == 0, i % 3 == 0);
            let f32_ty = CvtTy::Float(FTy::F32);
            for (to, fast) in [
                (CvtTy::F16, cvt_f32_to_half::<10, 15>(x as u64)),
                (CvtTy::Bf16, cvt_f32_to_half::<7, 127>(x as u64)),
            ] {
                if let Some(bits) = fast {
                    given += 1;
                    assert_eq!(
                        bits,
                        cvt(x as u64, f32_ty, to, rnd, sat, ftz),
                        "{x:#010x} to {to:?}"
                    );
                }
            }
        }
        assert!(given > 200_000, "inlined results: {given}");
    }

    /// The inlined add and mul give the NaNs of the release build's out-of-line `bin32`, which
    /// the simulator used for them before (checked on the binaries: `addss`/`mulss` with `b`
    /// as the first source): `b`'s payload if it is a NaN, else `a`'s, quieted; the default NaN
    /// `0xffc00000` of an invalid operation. (The test build's `bin32` took `a`'s first: the
    /// payload had depended on how the compiler laid out the call.)
    #[test]
    fn inlined_add_and_mul_keep_the_nan_payloads() {
        let values = [
            0x7fc0_0001u32,
            0x7fc0_0abc,
            0xffc1_2345,
            0x7f80_0007,
            0xff80_0123,
            0x3f80_0000,
            0x7f80_0000,
            0xff80_0000,
            0x0000_0000,
            0x8000_0000,
            0x0000_0001,
        ]
        .map(f32::from_bits);
        let quiet = |x: f32| x.to_bits() | 0x0040_0000;
        for a in values {
            for b in values {
                for (op, inlined, plain) in [
                    (
                        "add",
                        add32 as fn(f32, f32) -> f32,
                        (|x, y| x + y) as fn(f32, f32) -> f32,
                    ),
                    ("mul", mul32, |x, y| x * y),
                ] {
                    let expected = if b.is_nan() {
                        quiet(b)
                    } else if a.is_nan() {
                        quiet(a)
                    } else if plain(a, b).is_nan() {
                        0xffc0_0000
                    } else {
                        plain(a, b).to_bits()
                    };
                    let got = inlined(a, b).to_bits();
                    assert_eq!(got, expected, "{op} {:#x} {:#x}", a.to_bits(), b.to_bits());
                }
            }
        }
    }
}
