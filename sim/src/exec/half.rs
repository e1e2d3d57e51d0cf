//! Narrow floating-point formats (f16, bf16, e4m3, e5m2): exact decoding, and encoding with
//! IEEE round-to-nearest-even from an exact value; the conversions and packed arithmetic of
//! `decode/half.rs`.
//!
//! An exact value is given as an f64 `v` and a remainder `rem` (the exact value is `v + rem`,
//! `|rem|` at most half an ulp of `v`, as from [`two_sum`]): `v` decides the rounding except
//! when it lies exactly halfway between two representable values, where the sign of `rem`
//! does. So sums and fused multiply-adds of half-precision values round exactly once, as the
//! PTX ISA requires of `.rn`.
//!
//! NaN results of arithmetic and of conversions from f32 are the canonical NaNs `0x7fff` (f16,
//! bf16) and `0x7f` (e4m3, e5m2). The conversion of an f64 NaN to f16 or bf16
//! (`cvt.rn.f16.f64`) is another instruction on an H100 and gives another NaN: for the f64 of
//! `f32::NAN` `0x7e00` and `0x7fc0` (`examples/quantize.rs` in the GPU differential) — the quiet
//! bit with the NaN's sign and payload's top bits, measured for that one NaN, assumed for the
//! others ([`converted_nan`]).

/// The f16 or bf16 an f32/f64 NaN converts to: its sign, the quiet bit, and the payload's top
/// bits (the fp8 formats keep their one NaN).
pub(crate) fn converted_nan(v: f64, f: Fmt) -> u32 {
    let bits = v.to_bits();
    let sign = ((bits >> 63) as u32) << 15;
    let payload = bits & ((1 << 52) - 1);
    match f {
        Fmt::F16 => sign | 0x7e00 | (payload >> 42) as u32,
        Fmt::Bf16 => sign | 0x7fc0 | (payload >> 45) as u32,
        Fmt::E4m3 | Fmt::E5m2 => nan_bits(f),
    }
}

use super::map::{map1, map2, map3};
use crate::decode::{Fmt, HArith, HalfOp};

struct Params {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    has_inf: bool,
}

fn params(f: Fmt) -> Params {
    match f {
        Fmt::F16 => Params {
            exp_bits: 5,
            man_bits: 10,
            bias: 15,
            has_inf: true,
        },
        Fmt::Bf16 => Params {
            exp_bits: 8,
            man_bits: 7,
            bias: 127,
            has_inf: true,
        },
        Fmt::E4m3 => Params {
            exp_bits: 4,
            man_bits: 3,
            bias: 7,
            has_inf: false,
        },
        Fmt::E5m2 => Params {
            exp_bits: 5,
            man_bits: 2,
            bias: 15,
            has_inf: true,
        },
    }
}

/// 2^e, exactly: built from its exponent bits (`powi` is a loop of multiplications, and the
/// narrow-float arithmetic of a probe run calls this for every element).
fn pow2(e: i32) -> f64 {
    if (-1022..=1023).contains(&e) {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        2f64.powi(e)
    }
}

/// The largest finite value of `f`.
pub(crate) fn max_finite(f: Fmt) -> f64 {
    let p = params(f);
    let top = (1 << p.exp_bits) - 1;
    // e4m3 uses its top exponent for finite values (all but mantissa 111, the NaN).
    let (exp, man) = if p.has_inf {
        (top - 1, (1u32 << p.man_bits) - 1)
    } else {
        (top, (1u32 << p.man_bits) - 2)
    };
    (1.0 + man as f64 / pow2(p.man_bits as i32)) * pow2(exp - p.bias)
}

pub(crate) fn nan_bits(f: Fmt) -> u32 {
    match f {
        Fmt::F16 | Fmt::Bf16 => 0x7fff,
        Fmt::E4m3 | Fmt::E5m2 => 0x7f,
    }
}

/// The value of an f16 bit pattern (the low 16 bits of `bits`), exactly; a NaN is the
/// canonical `f64::NAN`, as [`decode`] gives. The magnitude's bits placed at the top of an f64's
/// exponent and mantissa fields are the value times 2^-1008 (a subnormal f16 becomes a
/// subnormal f64), and the product with 2^1008 is exact: no branch on the exponent, and no call
/// into the `half` crate (which tests for F16C at every call).
#[inline(always)]
pub(crate) fn f16_value(bits: u32) -> f64 {
    let mag = (bits & 0x7fff) as u64;
    if mag >= 0x7c00 {
        return if mag == 0x7c00 {
            if bits & 0x8000 != 0 {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        } else {
            f64::NAN
        };
    }
    let v = f64::from_bits(mag << 42) * f64::from_bits((1008 + 1023) << 52);
    if bits & 0x8000 != 0 { -v } else { v }
}

/// The value of a bf16 bit pattern (the low 16 bits of `bits`), exactly; a NaN is the canonical
/// `f64::NAN`, as [`decode`] gives.
#[inline(always)]
pub(crate) fn bf16_value(bits: u32) -> f64 {
    let v = f32::from_bits((bits & 0xffff) << 16) as f64;
    if v.is_nan() { f64::NAN } else { v }
}

/// The value of the `f.bits()`-bit pattern `bits`.
pub(crate) fn decode(f: Fmt, bits: u32) -> f64 {
    match f {
        Fmt::F16 => f16_value(bits),
        Fmt::Bf16 => bf16_value(bits),
        Fmt::E4m3 | Fmt::E5m2 => decode_any(f, bits),
    }
}

/// [`decode`] from the format's fields, for any format.
fn decode_any(f: Fmt, bits: u32) -> f64 {
    let p = params(f);
    let width = f.bits();
    let sign = if bits >> (width - 1) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let exp = (bits >> p.man_bits) & ((1 << p.exp_bits) - 1);
    let man = bits & ((1 << p.man_bits) - 1);
    let top = (1 << p.exp_bits) - 1;
    if p.has_inf && exp == top {
        return if man == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if !p.has_inf && exp == top && man == (1 << p.man_bits) - 1 {
        return f64::NAN;
    }
    let m = man as f64 / pow2(p.man_bits as i32);
    if exp == 0 {
        sign * m * pow2(1 - p.bias)
    } else {
        sign * (1.0 + m) * pow2(exp as i32 - p.bias)
    }
}

/// The error of `a + b` rounded to f64: `a + b == s + err` exactly (Knuth's TwoSum).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    (s, err)
}

/// The exact value `v + rem` rounded to nearest even in `f`; out of range it becomes infinity
/// (or NaN for e4m3), or with `satfinite` the largest finite value of its sign.
pub(crate) fn encode(v: f64, rem: f64, f: Fmt, satfinite: bool) -> u32 {
    let fast = match f {
        Fmt::F16 => encode_normal::<10, 15>(v, rem),
        Fmt::Bf16 => encode_normal::<7, 127>(v, rem),
        Fmt::E4m3 | Fmt::E5m2 => None,
    };
    if let Some(bits) = fast {
        return bits;
    }
    encode_any(v, rem, f, satfinite)
}

/// [`encode`] of f32 value `x` (its bits) to f16 or bf16 (`MAN` mantissa bits, exponent bias
/// `BIAS`) where [`encode_normal`] gives it, inlined at the caller (`cvt.rn.f16.f32` and
/// `cvt.rn.bf16.f32` per lane, a Triton epilogue's conversion of every output: `encode` out of
/// line cost its call and register saves per element, half its instructions); `None` where
/// `encode` takes its general path.
#[inline(always)]
pub(crate) fn encode_f32_normal<const MAN: u32, const BIAS: i32>(x: u32) -> Option<u32> {
    encode_normal::<MAN, BIAS>(f32::from_bits(x) as f64, 0.0)
}

/// [`encode`] for f16 and bf16 (`MAN` mantissa bits, exponent bias `BIAS`, an infinity) when
/// `v` is in the normal range and does not round past the largest finite value: the f64's
/// mantissa rounded to nearest even by its bits (the tie decided by `rem`, as in
/// [`encode_any`]), a carry into the exponent included. `None` (zeros, subnormal results,
/// overflow, infinities, NaN) leaves it to [`encode_any`]. Equal on all f16 and bf16 results of
/// f32 inputs (a unit test compares them).
#[inline(always)]
fn encode_normal<const MAN: u32, const BIAS: i32>(v: f64, rem: f64) -> Option<u32> {
    let bits = v.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if e < 1 - BIAS || e > BIAS {
        return None;
    }
    let shift = 52 - MAN;
    let mant = bits & ((1u64 << 52) - 1);
    let base = (((e + BIAS) as u64) << MAN) | (mant >> shift);
    let rest = mant & ((1u64 << shift) - 1);
    let half = 1u64 << (shift - 1);
    let neg = bits >> 63 != 0;
    let rem = if neg { -rem } else { rem };
    let up = rest > half || (rest == half && (rem > 0.0 || (rem == 0.0 && base & 1 == 1)));
    let h = base + up as u64;
    // The infinity's pattern or beyond: overflow, which `encode_any` handles.
    if h >= ((2u64 * BIAS as u64 + 1) << MAN) {
        return None;
    }
    // Both formats are 16 bits wide: the sign is bit 15.
    Some(((neg as u32) << 15) | h as u32)
}

/// [`encode`] for any value and format.
fn encode_any(v: f64, rem: f64, f: Fmt, satfinite: bool) -> u32 {
    let p = params(f);
    let width = f.bits();
    if v.is_nan() {
        return nan_bits(f);
    }
    let neg = v.is_sign_negative();
    let sign_bit = (neg as u32) << (width - 1);
    let a = v.abs();
    let rem = if neg { -rem } else { rem };
    let max = max_finite(f);
    let overflow = || {
        if satfinite {
            sign_bit | encode(max, 0.0, f, false)
        } else if p.has_inf {
            sign_bit | (((1 << p.exp_bits) - 1) << p.man_bits)
        } else {
            nan_bits(f)
        }
    };
    if a.is_infinite() {
        return overflow();
    }
    if a == 0.0 {
        return sign_bit;
    }
    let emin = 1 - p.bias;
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let qe = e.max(emin) - p.man_bits as i32;
    let q = pow2(qe);
    let n = a / q;
    let r = n.floor();
    let frac = n - r;
    let up = frac > 0.5 || (frac == 0.5 && (rem > 0.0 || (rem == 0.0 && (r as u64) & 1 == 1)));
    let mag = (r + up as u8 as f64) * q;
    if mag > max {
        return overflow();
    }
    if mag == 0.0 {
        return sign_bit;
    }
    if mag < pow2(emin) {
        let man = (mag / pow2(emin - p.man_bits as i32)) as u32;
        return sign_bit | man;
    }
    let e2 = ((mag.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let man = (mag / pow2(e2 - p.man_bits as i32)) as u32 - (1 << p.man_bits);
    sign_bit | (((e2 + p.bias) as u32) << p.man_bits) | man
}

fn is_subnormal(f: Fmt, bits: u32) -> bool {
    let p = params(f);
    (bits >> p.man_bits) & ((1 << p.exp_bits) - 1) == 0 && bits & ((1 << p.man_bits) - 1) != 0
}

/// PTX `min`/`max`: a NaN operand yields the other one; `-0.0 < +0.0`.
fn minmax(f: Fmt, x: u32, y: u32, max: bool) -> u32 {
    let (a, b) = (decode(f, x), decode(f, y));
    match (a.is_nan(), b.is_nan()) {
        (true, true) => return nan_bits(f),
        (true, false) => return y,
        (false, true) => return x,
        _ => {}
    }
    if a == b {
        let a_neg = a.is_sign_negative();
        return if a_neg ^ max { x } else { y };
    }
    if (a < b) ^ max { x } else { y }
}

/// One lane of half-precision arithmetic.
#[allow(clippy::too_many_arguments)]
fn arith(op: HArith, f: Fmt, x: u32, y: u32, z: u32, ftz: bool, sat: bool, relu: bool) -> u32 {
    let width = f.bits();
    let sign = 1u32 << (width - 1);
    let flush = |b: u32| {
        if ftz && is_subnormal(f, b) {
            b & sign
        } else {
            b
        }
    };
    let (x, y, z) = (flush(x), flush(y), flush(z));
    let (a, b, c) = (decode(f, x), decode(f, y), decode(f, z));
    let bits = match op {
        // neg and abs of a NaN give the canonical NaN (as on an H100).
        HArith::Neg | HArith::Abs if a.is_nan() => return nan_bits(f),
        HArith::Neg => return x ^ sign,
        HArith::Abs => return x & !sign,
        HArith::Min => return minmax(f, x, y, false),
        HArith::Max => return minmax(f, x, y, true),
        HArith::Add => {
            let (s, e) = two_sum(a, b);
            encode(s, e, f, false)
        }
        HArith::Sub => {
            let (s, e) = two_sum(a, -b);
            encode(s, e, f, false)
        }
        // Products of two half-precision values are exact in f64.
        HArith::Mul => encode(a * b, 0.0, f, false),
        HArith::Fma => {
            let (s, e) = two_sum(a * b, c);
            encode(s, e, f, false)
        }
    };
    let mut bits = flush(bits);
    let v = decode(f, bits);
    // .relu clamps negative results, -0 included, to +0.
    if relu && v.is_sign_negative() {
        bits = 0;
    }
    if relu && v.is_nan() {
        bits = nan_bits(f);
    }
    if sat {
        bits = if v.is_nan() || v <= 0.0 {
            0
        } else if v >= 1.0 {
            encode(1.0, 0.0, f, false)
        } else {
            bits
        };
    }
    bits
}

/// An f32 (bit pattern) converted to `f` with `.rn`, `.relu` and `.satfinite`. Out of line:
/// the lane loops of [`exec`] inline the common case ([`from_f32_normal`]) and call this for
/// the rest, which kept in them made their closures too large to inline.
#[inline(never)]
fn from_f32(x: u64, f: Fmt, relu: bool, satfinite: bool) -> u32 {
    let v = f32::from_bits(x as u32) as f64;
    if relu && v.is_nan() {
        return nan_bits(f);
    }
    // .relu clamps negative values, -0 included, to +0.
    if relu && v.is_sign_negative() {
        return 0;
    }
    encode(v, 0.0, f, satfinite)
}

/// [`from_f32`] to f16 (`MAN` 10, `BIAS` 15) or bf16 (7, 127), where [`encode_f32_normal`]
/// gives the result (a normal number: `.satfinite` changes only overflows) and `.relu` leaves
/// the value as it is (a positive value: a NaN is none of those), inlined in the lane loop;
/// `None` where `from_f32` itself is needed.
#[inline(always)]
fn from_f32_normal<const MAN: u32, const BIAS: i32>(x: u64, relu: bool) -> Option<u32> {
    if relu && x as u32 >> 31 != 0 {
        return None;
    }
    encode_f32_normal::<MAN, BIAS>(x as u32)
}

pub(super) fn exec(regs: &mut [u64], eff: u32, op: &HalfOp) {
    match *op {
        HalfOp::FromF32 {
            d,
            a,
            b,
            to,
            relu,
            satfinite,
        } => {
            // The conversions of f32 to f16 and bf16 (a Triton epilogue's `cvt.rn.bf16x2.f32`
            // of every output) with their common case inlined ([`from_f32_normal`]).
            let general = move |x| from_f32(x, to, relu, satfinite);
            let w = to.bits();
            match (to, b) {
                (Fmt::F16, None) => map1(regs, eff, d, a, move |x| {
                    from_f32_normal::<10, 15>(x, relu).unwrap_or_else(|| general(x)) as u64
                }),
                (Fmt::Bf16, None) => map1(regs, eff, d, a, move |x| {
                    from_f32_normal::<7, 127>(x, relu).unwrap_or_else(|| general(x)) as u64
                }),
                (_, None) => map1(regs, eff, d, a, move |x| general(x) as u64),
                (Fmt::F16, Some(b)) => map2(regs, eff, d, a, b, move |x, y| {
                    let one = |v| from_f32_normal::<10, 15>(v, relu).unwrap_or_else(|| general(v));
                    ((one(x) << w) | one(y)) as u64
                }),
                (Fmt::Bf16, Some(b)) => map2(regs, eff, d, a, b, move |x, y| {
                    let one = |v| from_f32_normal::<7, 127>(v, relu).unwrap_or_else(|| general(v));
                    ((one(x) << w) | one(y)) as u64
                }),
                (_, Some(b)) => map2(regs, eff, d, a, b, move |x, y| {
                    ((general(x) << w) | general(y)) as u64
                }),
            }
        }
        HalfOp::F8FromF16x2 { d, a, to, relu } => map1(regs, eff, d, a, move |x| {
            let one = |h: u64| {
                let v = decode(Fmt::F16, (h & 0xffff) as u32);
                if relu && v.is_nan() {
                    nan_bits(to)
                } else if relu && v.is_sign_negative() {
                    0
                } else {
                    encode(v, 0.0, to, true)
                }
            };
            ((one(x >> 16) << 8) | one(x)) as u64
        }),
        HalfOp::F16x2FromF8 { d, a, from, relu } => map1(regs, eff, d, a, move |x| {
            let one = |b: u64| {
                let v = decode(from, (b & 0xff) as u32);
                if relu && v.is_nan() {
                    nan_bits(Fmt::F16)
                } else if relu && v.is_sign_negative() {
                    0
                } else {
                    encode(v, 0.0, Fmt::F16, false)
                }
            };
            ((one(x >> 8) << 16) | one(x)) as u64
        }),
        HalfOp::Arith {
            op,
            fmt,
            lanes,
            d,
            a,
            b,
            c,
            ftz,
            sat,
            relu,
        } => map3(regs, eff, d, a, b, c, move |x, y, z| {
            let w = fmt.bits();
            let m = (1u64 << w) - 1;
            let mut out = 0u64;
            for l in 0..lanes as u32 {
                let s = l * w;
                let r = arith(
                    op,
                    fmt,
                    ((x >> s) & m) as u32,
                    ((y >> s) & m) as u32,
                    ((z >> s) & m) as u32,
                    ftz,
                    sat,
                    relu,
                );
                out |= (r as u64) << s;
            }
            out
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inlined f32-to-half conversion of `cvt.rn{.relu}{.satfinite}.f16x2.f32` and its
    /// bf16 form ([`from_f32_normal`]) is [`from_f32`]'s where it gives a result: on f32
    /// patterns weighted to the exponents around the formats' ranges and to mantissas at and
    /// beside the rounding ties, with and without `.relu` and `.satfinite`; and it gives one
    /// for most of them.
    #[test]
    fn inlined_from_f32_is_from_f32() {
        let mut rng = crate::rng::Rng::new(17);
        let mut given = 0;
        for i in 0..200_000u64 {
            let mant = match rng.below(4) {
                0 => rng.below(1 << 23),
                // At a tie for bf16 (16 bits dropped) or f16 (13), or one beside it.
                1 => ((rng.below(1 << 7) << 16) | 0x8000) + rng.below(3) - 1,
                2 => ((rng.below(1 << 10) << 13) | 0x1000) + rng.below(3) - 1,
                _ => (1 << 23) - 1 - rng.below(4),
            } & ((1 << 23) - 1);
            let exp = match rng.below(3) {
                0 => rng.below(256),
                1 => 127 - 16 + rng.below(34),
                _ => [0, 1, 254, 255][rng.below(4) as usize],
            };
            let x = (rng.below(2) << 31) | (exp << 23) | mant;
            let (relu, satfinite) = (i % 3 == 0, i % 5 == 0);
            for (f, fast) in [
                (Fmt::F16, from_f32_normal::<10, 15>(x, relu)),
                (Fmt::Bf16, from_f32_normal::<7, 127>(x, relu)),
            ] {
                if let Some(bits) = fast {
                    given += 1;
                    assert_eq!(bits, from_f32(x, f, relu, satfinite), "{x:#010x} to {f:?}");
                }
            }
        }
        assert!(given > 150_000, "inlined results: {given}");
    }

    #[test]
    fn every_f16_and_bf16_pattern_round_trips() {
        for f in [Fmt::F16, Fmt::Bf16] {
            for bits in 0..=0xffffu32 {
                let v = decode(f, bits);
                let back = encode(v, 0.0, f, false);
                if v.is_nan() {
                    assert_eq!(back, 0x7fff);
                } else {
                    assert_eq!(back, bits, "{f:?} {bits:#06x} {v}");
                }
            }
        }
        for f in [Fmt::E4m3, Fmt::E5m2] {
            for bits in 0..=0xffu32 {
                let v = decode(f, bits);
                if !v.is_nan() {
                    assert_eq!(encode(v, 0.0, f, false), bits, "{f:?} {bits:#04x}");
                }
            }
        }
    }

    #[test]
    fn sixteen_bit_decoding_is_the_general_one() {
        for f in [Fmt::F16, Fmt::Bf16] {
            for bits in 0..=0xffffu32 {
                let (fast, general) = (decode(f, bits), decode_any(f, bits));
                assert_eq!(fast.to_bits(), general.to_bits(), "{f:?} {bits:#06x}");
            }
        }
    }

    #[test]
    fn sixteen_bit_encoding_is_the_general_one() {
        let check = |v: f64| {
            for f in [Fmt::F16, Fmt::Bf16] {
                for rem in [0.0, -0.0, 1e-300, -1e-300] {
                    for sat in [false, true] {
                        let (fast, general) = (encode(v, rem, f, sat), encode_any(v, rem, f, sat));
                        assert_eq!(
                            fast,
                            general,
                            "{f:?} {v:e} ({:#x}) rem {rem:e} sat {sat}",
                            v.to_bits()
                        );
                    }
                }
            }
        };
        // f32 inputs across the whole range (conversions), and f64s with low mantissa bits.
        for x in (0..=u32::MAX).step_by(9973) {
            check(f32::from_bits(x) as f64);
            check(f64::from_bits(
                (f32::from_bits(x) as f64).to_bits() | 0x1_2345,
            ));
        }
        // Every finite pattern, the midpoints to its neighbour (ties), and just beside them.
        for f in [Fmt::F16, Fmt::Bf16] {
            for bits in 0..0x7fffu32 {
                let (lo, hi) = (decode(f, bits), decode(f, bits + 1));
                if !hi.is_finite() {
                    // Past the largest finite value: the midpoint to the next would-be value.
                    check(lo + (lo - decode(f, bits - 1)) / 2.0);
                    continue;
                }
                let mid = (lo + hi) / 2.0;
                for v in [
                    lo,
                    mid,
                    f64::from_bits(mid.to_bits() - 1),
                    f64::from_bits(mid.to_bits() + 1),
                ] {
                    check(v);
                    check(-v);
                }
            }
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(max_finite(Fmt::F16), 65504.0);
        assert_eq!(max_finite(Fmt::E4m3), 448.0);
        assert_eq!(max_finite(Fmt::E5m2), 57344.0);
        assert_eq!(decode(Fmt::F16, 0x3c00), 1.0);
        assert_eq!(decode(Fmt::F16, 0x0001), 2f64.powi(-24));
        assert_eq!(decode(Fmt::Bf16, 0x3f80), 1.0);
        assert_eq!(decode(Fmt::E4m3, 0x7e), 448.0);
        assert!(decode(Fmt::E4m3, 0x7f).is_nan());
        assert_eq!(decode(Fmt::E5m2, 0x7c), f64::INFINITY);
        // Ties to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10.
        assert_eq!(encode(1.0 + 2f64.powi(-11), 0.0, Fmt::F16, false), 0x3c00);
        assert_eq!(
            encode(1.0 + 3.0 * 2f64.powi(-11), 0.0, Fmt::F16, false),
            0x3c02
        );
        // The remainder breaks the tie.
        assert_eq!(encode(1.0 + 2f64.powi(-11), 1e-30, Fmt::F16, false), 0x3c01);
        // Overflow: infinity, or the largest finite value with .satfinite.
        assert_eq!(encode(65520.0, 0.0, Fmt::F16, false), 0x7c00);
        assert_eq!(encode(65519.0, 0.0, Fmt::F16, false), 0x7bff);
        assert_eq!(encode(-1e6, 0.0, Fmt::F16, true), 0xfbff);
        assert_eq!(encode(500.0, 0.0, Fmt::E4m3, true), 0x7e);
        assert_eq!(encode(464.0, 0.0, Fmt::E4m3, true), 0x7e);
        assert_eq!(encode(-1e9, 0.0, Fmt::E5m2, true), 0xfb);
        // Subnormals round to nearest even too.
        assert_eq!(encode(1.5 * 2f64.powi(-24), 0.0, Fmt::F16, false), 0x0002);
        assert_eq!(encode(0.5 * 2f64.powi(-24), 0.0, Fmt::F16, false), 0x0000);
        assert_eq!(encode(-0.0, 0.0, Fmt::Bf16, false), 0x8000);
    }

    #[test]
    fn f32_to_half_matches_a_reference_rounding() {
        // A reference: round the f32 bit pattern directly (ties to even on the dropped bits).
        let reference_bf16 = |x: u32| -> u32 {
            let lsb = (x >> 16) & 1;
            (x.wrapping_add(0x7fff + lsb)) >> 16
        };
        let mut s = 12345u32;
        for _ in 0..200_000 {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            let v = f32::from_bits(s);
            if v.is_nan() {
                continue;
            }
            assert_eq!(
                from_f32(s as u64, Fmt::Bf16, false, false),
                reference_bf16(s),
                "{v}"
            );
            // f16: compare with the value nearest to v among the two neighbours.
            let h = from_f32(s as u64, Fmt::F16, false, false);
            let hv = decode(Fmt::F16, h);
            if hv.is_finite() && hv != 0.0 {
                let up = decode(Fmt::F16, h + 1);
                let down = decode(Fmt::F16, h.wrapping_sub(1) & 0xffff);
                let err = (hv - v as f64).abs();
                assert!(err <= (up - v as f64).abs() && err <= (down - v as f64).abs());
            }
        }
    }

    #[test]
    fn fma_rounds_once() {
        let one = 0x3c00u32;
        let f = |v: f64| encode(v, 0.0, Fmt::F16, false);
        let fma = |a, b, c| arith(HArith::Fma, Fmt::F16, a, b, c, false, false, false);
        // 1 * 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even.
        assert_eq!(fma(one, one, f(2f64.powi(-11))), one);
        // Just above halfway: up.
        let c = f(2f64.powi(-11) + 2f64.powi(-21));
        assert_eq!(fma(one, one, c), 0x3c01);
        // (1 + 2^-10)(1 - 2^-11) + 2^-24 = 1 + 2^-11 - 2^-21 + 2^-24: below halfway.
        assert_eq!(fma(0x3c01, 0x3bff, 0x0001), one);
        // bf16: (1 + 2^-7) * (1 + 2^-7) = 1 + 2^-6 + 2^-14: rounds to 1 + 2^-6.
        let x = encode(1.0 + 2f64.powi(-7), 0.0, Fmt::Bf16, false);
        let r = arith(HArith::Mul, Fmt::Bf16, x, x, 0, false, false, false);
        assert_eq!(decode(Fmt::Bf16, r), 1.0 + 2f64.powi(-6));
    }
}
