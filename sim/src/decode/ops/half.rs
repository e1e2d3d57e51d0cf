//! The ops of half-precision and fp8 conversions and packed arithmetic ([`HalfOp`]), with
//! the narrow formats ([`Fmt`]); `decode::half` decodes them and `exec::half` executes them.

use super::parts::Src;

/// A narrow floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fmt {
    F16,
    Bf16,
    /// fp8 with 4 exponent and 3 mantissa bits: no infinities, NaN is S.1111.111, max 448.
    E4m3,
    /// fp8 with 5 exponent and 2 mantissa bits: IEEE-like, with infinities.
    E5m2,
}

impl Fmt {
    pub(crate) fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::Bf16 => 16,
            Fmt::E4m3 | Fmt::E5m2 => 8,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HArith {
    Add,
    Sub,
    Mul,
    Fma,
    Neg,
    Abs,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum HalfOp {
    /// `cvt.rn{.relu}{.satfinite}.{f16,bf16}.f32 d, a` and the packed forms
    /// `cvt.rn{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b`,
    /// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a, b`: `a` goes to the upper half.
    FromF32 {
        d: u32,
        a: Src,
        b: Option<Src>,
        to: Fmt,
        relu: bool,
        satfinite: bool,
    },
    /// `cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f16x2 d, a`.
    F8FromF16x2 { d: u32, a: Src, to: Fmt, relu: bool },
    /// `cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a`.
    F16x2FromF8 {
        d: u32,
        a: Src,
        from: Fmt,
        relu: bool,
    },
    /// Arithmetic on `.f16`/`.bf16` (`lanes` 1) or `.f16x2`/`.bf16x2` (`lanes` 2).
    Arith {
        op: HArith,
        fmt: Fmt,
        lanes: u8,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        ftz: bool,
        sat: bool,
        relu: bool,
    },
}
