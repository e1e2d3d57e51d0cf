//! The host types of the fp8 formats a kernel stores: [`F8E4M3`] and [`F8E5M2`] (OCP FP8, as
//! the PTX ISA's `.e4m3` and `.e5m2`), named `f8e4m3` and `f8e5m2` in kernels.
//!
//! Their conversions are the simulator's, so a CPU reference built from them computes what a
//! kernel's `as` computes: [`F8E4M3::from_f32`] rounds to nearest even and saturates as
//! `cvt.rn.satfinite.e4m3x2.f32` does (NaN stays NaN; infinities and values beyond the
//! largest finite become the largest finite value of their sign), and widening is exact.
//! (The `float8` crate was the candidate; its `is_nan`/`is_infinite` misclassify finite
//! codes — 448 is "infinite" — so these small types stand in.)

use crate::decode::Fmt as NarrowFormat;
use crate::exec::half::{decode as narrow_decode, encode as narrow_encode};
use std::cmp::Ordering;
use std::fmt;

macro_rules! fp8 {
    ($(#[$doc:meta])* $name:ident, $fmt:ident, nan = $nan:literal, max = $max:literal, is_inf = $inf:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default)]
        #[repr(transparent)]
        pub struct $name(u8);

        impl $name {
            /// `+0.0`.
            pub const ZERO: $name = $name(0);
            /// The largest finite value.
            pub const MAX: $name = $name($max);
            /// The most negative finite value.
            pub const MIN: $name = $name($max | 0x80);
            /// The NaN that conversions produce.
            pub const NAN: $name = $name($nan);

            /// The value with this encoding.
            pub const fn from_bits(bits: u8) -> $name {
                $name(bits)
            }
            /// The encoding.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
            /// `x` rounded to nearest even, saturating to the largest finite value (as a
            /// kernel's `x as` this type, `cvt.rn.satfinite`); NaN gives [`Self::NAN`].
            pub fn from_f32(x: f32) -> $name {
                $name(narrow_encode(x as f64, 0.0, NarrowFormat::$fmt, true) as u8)
            }
            /// The value, exactly.
            pub fn to_f32(self) -> f32 {
                self.to_f64() as f32
            }
            /// The value, exactly.
            pub fn to_f64(self) -> f64 {
                narrow_decode(NarrowFormat::$fmt, self.0 as u32)
            }
            /// Whether this is a NaN encoding.
            pub fn is_nan(self) -> bool {
                self.to_f64().is_nan()
            }
            /// Whether this is an infinity.
            pub fn is_infinite(self) -> bool {
                let inf: fn(u8) -> bool = $inf;
                inf(self.0)
            }
            /// Whether this is neither NaN nor infinite.
            pub fn is_finite(self) -> bool {
                !self.is_nan() && !self.is_infinite()
            }
        }

        /// IEEE equality: NaN equals nothing, `-0.0 == 0.0`.
        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.to_f64() == other.to_f64()
            }
        }

        impl PartialOrd for $name {
            fn partial_cmp(&self, other: &$name) -> Option<Ordering> {
                self.to_f64().partial_cmp(&other.to_f64())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl From<$name> for f32 {
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            fn from(x: $name) -> f64 {
                x.to_f64()
            }
        }
    };
}

fp8!(
    /// OCP FP8 E4M3: 4 exponent bits (bias 7), 3 mantissa bits; no infinities; NaN is
    /// `S.1111.111`; largest finite 448; smallest subnormal 2^-9.
    F8E4M3, E4m3, nan = 0x7f, max = 0x7e, is_inf = |_| false
);
fp8!(
    /// OCP FP8 E5M2: 5 exponent bits (bias 15), 2 mantissa bits; IEEE-like, with
    /// infinities `S.11111.00`; largest finite 57344; smallest subnormal 2^-16.
    F8E5M2, E5m2, nan = 0x7f, max = 0x7b, is_inf = |b| b & 0x7f == 0x7c
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification_and_edges_of_every_code() {
        let mut nans = (0, 0);
        for b in 0..=255u8 {
            let (x, y) = (F8E4M3::from_bits(b), F8E5M2::from_bits(b));
            nans.0 += x.is_nan() as u32;
            nans.1 += y.is_nan() as u32;
            assert!(!x.is_infinite());
            assert_eq!(y.is_infinite(), y.to_f64().is_infinite(), "{b:#04x}");
            // Every non-NaN code round-trips through f32 (an infinity saturates).
            if !x.is_nan() {
                assert_eq!(F8E4M3::from_f32(x.to_f32()).to_bits(), b);
            }
            if y.is_finite() {
                assert_eq!(F8E5M2::from_f32(y.to_f32()).to_bits(), b);
            }
        }
        assert_eq!(nans, (2, 6));
        assert_eq!(F8E4M3::MAX.to_f32(), 448.0);
        assert_eq!(F8E5M2::MAX.to_f32(), 57344.0);
        assert_eq!(F8E4M3::from_f32(f32::INFINITY), F8E4M3::MAX);
        assert_eq!(F8E5M2::from_f32(f32::NEG_INFINITY), F8E5M2::MIN);
        assert_eq!(F8E4M3::from_f32(1e9), F8E4M3::MAX);
        assert!(F8E4M3::from_f32(f32::NAN).is_nan());
        assert_eq!(F8E4M3::from_bits(1).to_f64(), 2f64.powi(-9));
        assert_eq!(F8E5M2::from_bits(1).to_f64(), 2f64.powi(-16));
        // Ties to even: 1 + 2^-4 lies halfway between 1 and 1 + 2^-3.
        assert_eq!(F8E4M3::from_f32(1.0625).to_f32(), 1.0);
        assert_eq!(F8E4M3::from_f32(1.1875).to_f32(), 1.25);
        assert_eq!(F8E4M3::from_f32(-0.0).to_bits(), 0x80);
        assert_eq!(F8E4M3::from_f32(0.0), F8E4M3::from_f32(-0.0));
        assert!(F8E4M3::NAN != F8E4M3::NAN);
    }
}
