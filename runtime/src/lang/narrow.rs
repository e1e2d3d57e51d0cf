//! The storage floats: `f16`, `bf16`, `f8e4m3`, `f8e5m2`.
//!
//! A kernel loads, stores, passes and converts them; it computes in f32, where each of them
//! is exact. Their host types are `half::{f16, bf16}` and phasegate's
//! [`F8E4M3`](crate::fp8::F8E4M3) / [`F8E5M2`](crate::fp8::F8E5M2) (named `f8e4m3` /
//! `f8e5m2` here, as a kernel writes them), so buffers of them go to `simulate` and to the
//! GPU as they are.
//!
//! Rust has no `as` between these and the primitive types; `#[kernel]` gives rustc
//! `cast::<T, _>(x)` for each `x as T` that involves one of them, and lowers it to the PTX
//! `cvt` with `as`'s meaning (round to nearest even; to an integer, truncate and saturate, NaN
//! to 0).

use super::{Element, outside_kernel, sealed};

pub use half::{bf16, f16};

/// OCP FP8 E4M3 (4 exponent, 3 mantissa bits; no infinities; largest finite 448), as kernels
/// name [`F8E4M3`](crate::fp8::F8E4M3).
#[allow(non_camel_case_types)]
pub type f8e4m3 = crate::fp8::F8E4M3;

/// OCP FP8 E5M2 (5 exponent, 2 mantissa bits; IEEE-like with infinities; largest finite
/// 57344), as kernels name [`F8E5M2`](crate::fp8::F8E5M2).
#[allow(non_camel_case_types)]
pub type f8e5m2 = crate::fp8::F8E5M2;

macro_rules! storage {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
    )*};
}
storage!(f16, bf16, f8e4m3, f8e5m2);
// Vectors moved in one access: a packed pair (4 bytes), 8 and 16 bytes of halves; 2, 4, 8
// and 16 bytes of fp8.
storage!(
    [f16; 2],
    [f16; 4],
    [f16; 8],
    [bf16; 2],
    [bf16; 4],
    [bf16; 8],
    [f8e4m3; 2],
    [f8e4m3; 4],
    [f8e4m3; 8],
    [f8e4m3; 16],
    [f8e5m2; 2],
    [f8e5m2; 4],
    [f8e5m2; 8],
    [f8e5m2; 16]
);

/// `x as T` where `x` or `T` is a storage float: the conversions the kernel language has.
pub trait CastTo<T>: Copy {}

/// What `#[kernel]` gives rustc for `x as T` when `x` or `T` is a storage float.
pub fn cast<T, F: CastTo<T>>(_x: F) -> T {
    outside_kernel("as")
}

macro_rules! casts {
    ($($to:ty),* ; $from:tt) => {$(casts!(@one $to; $from);)*};
    (@one $to:ty; [$($from:ty),*]) => {$(impl CastTo<$to> for $from {})*};
}
casts!(f16, bf16, f8e4m3, f8e5m2; [u32, i32, u64, i64, f32, f64, bool, f16, bf16, f8e4m3, f8e5m2]);
casts!(u32, i32, u64, i64, f32, f64, bool; [f16, bf16, f8e4m3, f8e5m2]);
