//! The kernel language as rustc sees it.
//!
//! `#[kernel]` lowers a kernel's body to PTX, and also keeps the body as ordinary Rust in a
//! function that is never called, type-checked against the items of this module. That copy
//! is what turns misuse into rustc errors on the user's own tokens: indexing a global slice
//! with an `i32`, storing through `&[f32]`, calling a function the language does not have.
//!
//! These items describe types only. Called outside a kernel they panic with a message saying
//! so; the simulator and the GPU run the PTX, never this Rust.

use core::marker::PhantomData;
use core::ops::{Index, IndexMut, Range, RangeInclusive};

pub mod cluster;
pub mod copy;
pub mod device;
pub mod mbarrier;
pub mod named;
pub mod narrow;
pub mod ping_pong;
pub mod pipeline;
pub mod registers;
pub mod softmax;
pub mod split;
pub mod tma;
pub mod wgmma;

pub use cluster::*;
pub use copy::*;
pub use device::*;
pub use mbarrier::*;
pub use named::*;
pub use narrow::*;
pub use ping_pong::*;
pub use pipeline::*;
pub use registers::*;
pub use softmax::*;
pub use split::*;
pub use tma::*;
pub use wgmma::*;

/// Panics: kernel-language items have no meaning on the host.
#[cold]
#[track_caller]
fn outside_kernel(what: &str) -> ! {
    panic!(
        "phasegate kernel-language item `{what}` was called outside a kernel: it only describes \
         types for rustc; simulate or launch the kernel to run it"
    )
}

mod sealed {
    pub trait Sealed {}
}

/// A value that a kernel keeps in registers and moves through memory: `u32`, `i32`, `u64`,
/// `i64`, `f32`, `f64`, and the 8- and 16-byte vectors `[T; 2]`, `[T; 4]` of those; the
/// storage floats `f16`, `bf16`, `f8e4m3`, `f8e5m2` and their vectors (see [`narrow`]).
pub trait Element: Copy + sealed::Sealed {}

/// The scalar types of the kernel language.
pub trait Scalar: Element {}

/// Integer scalars (PTX integer semantics: arithmetic wraps).
pub trait Integer: Scalar {}

/// Floating-point scalars (IEEE round-to-nearest-even, never contracted implicitly).
pub trait Float: Scalar {}

macro_rules! scalars {
    ($trait:ident: $($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
        impl Scalar for $t {}
        impl $trait for $t {}
    )*};
}
scalars!(Integer: u32, i32, u64, i64);
scalars!(Float: f32, f64);

macro_rules! vectors {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {}
    )*};
}
vectors!(
    [u32; 2], [i32; 2], [f32; 2], [u32; 4], [i32; 4], [f32; 4], [u64; 2], [i64; 2], [f64; 2]
);

/// A slice in global memory: what a `&[T]` / `&mut [T]` kernel parameter is inside a kernel.
/// It is indexed by `u32`, like CUDA's 32-bit thread indices; the address arithmetic is 64-bit.
pub struct Global<T: Element>(PhantomData<T>);

impl<T: Element> Index<u32> for Global<T> {
    type Output = T;
    fn index(&self, _: u32) -> &T {
        outside_kernel("global slice index")
    }
}

impl<T: Element> IndexMut<u32> for Global<T> {
    fn index_mut(&mut self, _: u32) -> &mut T {
        outside_kernel("global slice index")
    }
}

/// A statically sized array in the CTA's shared memory, made by [`shared_array`].
pub struct SharedArray<T: Element, const N: usize>(PhantomData<T>);

impl<T: Element, const N: usize> Index<u32> for SharedArray<T, N> {
    type Output = T;
    fn index(&self, _: u32) -> &T {
        outside_kernel("shared array index")
    }
}

impl<T: Element, const N: usize> IndexMut<u32> for SharedArray<T, N> {
    fn index_mut(&mut self, _: u32) -> &mut T {
        outside_kernel("shared array index")
    }
}

/// Shared memory a bulk or asynchronous copy can write: a [`SharedArray`] or [`DynamicShared`].
pub trait SharedDst<T: Element> {}

impl<T: Element, const N: usize> SharedDst<T> for SharedArray<T, N> {}
impl<T: Element> SharedDst<T> for DynamicShared<T> {}

/// The CTA's dynamic shared memory seen as elements of `T` (`.extern .shared .align 16 .b8
/// name[]`); its size is chosen at launch.
pub struct DynamicShared<T: Element>(PhantomData<T>);

/// The dynamic shared memory of the CTA, after the buffers of any [`Pipeline`].
pub fn dynamic_shared<T: Element>() -> DynamicShared<T> {
    outside_kernel("dynamic_shared")
}

impl<T: Element> Index<u32> for DynamicShared<T> {
    type Output = T;
    fn index(&self, _: u32) -> &T {
        outside_kernel("dynamic shared index")
    }
}

impl<T: Element> IndexMut<u32> for DynamicShared<T> {
    fn index_mut(&mut self, _: u32) -> &mut T {
        outside_kernel("dynamic shared index")
    }
}

/// Declares `N` elements of `T` in shared memory (`.shared .align 16 .b8 name[N * size]`),
/// one allocation per CTA shared by all its threads. Bind it with `let mut` to store into it.
pub fn shared_array<T: Element, const N: usize>() -> SharedArray<T, N> {
    outside_kernel("shared_array")
}

macro_rules! special_registers {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {$(
        $(#[$doc])*
        pub fn $name() -> u32 {
            outside_kernel(stringify!($name))
        }
    )*};
}

special_registers! {
    /// `%tid.x`: the thread's index in its CTA.
    thread_idx_x, /// `%tid.y`
    thread_idx_y, /// `%tid.z`
    thread_idx_z,
    /// `%ntid.x`: threads per CTA.
    block_dim_x, /// `%ntid.y`
    block_dim_y, /// `%ntid.z`
    block_dim_z,
    /// `%ctaid.x`: the CTA's index in the grid.
    block_idx_x, /// `%ctaid.y`
    block_idx_y, /// `%ctaid.z`
    block_idx_z,
    /// `%nctaid.x`: CTAs per grid.
    grid_dim_x, /// `%nctaid.y`
    grid_dim_y, /// `%nctaid.z`
    grid_dim_z,
    /// `%clusterid.x`: the cluster's index in the grid (sm_90).
    cluster_idx_x, /// `%clusterid.y`
    cluster_idx_y, /// `%clusterid.z`
    cluster_idx_z,
    /// `%cluster_nctaid.x`: CTAs per cluster (sm_90).
    cluster_dim_x, /// `%cluster_nctaid.y`
    cluster_dim_y, /// `%cluster_nctaid.z`
    cluster_dim_z,
    /// `%cluster_ctaid.x`: the CTA's index in its cluster (sm_90).
    cluster_block_idx_x, /// `%cluster_ctaid.y`
    cluster_block_idx_y, /// `%cluster_ctaid.z`
    cluster_block_idx_z,
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster (sm_90).
    cluster_cta_rank,
    /// `%laneid`: the thread's lane in its warp, 0..32.
    lane_id,
    /// The warp's index in its CTA: the linear thread index divided by 32. (Not `%warpid`,
    /// which names a physical warp slot and may change during execution.)
    warp_id,
}

/// `%clock64`: the cycle counter of the SM the thread runs on (for timing inside a kernel).
pub fn clock64() -> u64 {
    outside_kernel("clock64")
}

/// `bar.sync 0`: waits until every thread of the CTA has arrived; orders their memory
/// accesses. Reach it with CTA-uniform control.
pub fn sync_threads() {
    outside_kernel("sync_threads")
}

/// The smaller of two values (`min`; for floats, a NaN operand yields the other operand).
pub fn min<T: Scalar>(_a: T, _b: T) -> T {
    outside_kernel("min")
}

/// The larger of two values (`max`; for floats, a NaN operand yields the other operand).
pub fn max<T: Scalar>(_a: T, _b: T) -> T {
    outside_kernel("max")
}

/// `a * b + c` with one rounding (`fma.rn`).
pub fn fma<T: Float>(_a: T, _b: T, _c: T) -> T {
    outside_kernel("fma")
}

/// The absolute value (`abs`; `i32::MIN` stays `i32::MIN`, as PTX wraps).
pub fn abs<T: Scalar>(_a: T) -> T {
    outside_kernel("abs")
}

/// The square root, correctly rounded (`sqrt.rn`).
pub fn sqrt<T: Float>(_a: T) -> T {
    outside_kernel("sqrt")
}

/// The iterator of `(start..end).step_by(step)` in a kernel, where the step has the range's
/// type (Rust's own `step_by` takes a `usize`).
pub struct StepBy<T>(PhantomData<T>);

impl<T> Iterator for StepBy<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        outside_kernel("step_by")
    }
}

/// Ranges a kernel `for` loop may step through.
pub trait KernelRange {
    /// The integer type of the range's bounds, which the step must have too.
    type Item: Integer;
}

impl<T: Integer> KernelRange for Range<T> {
    type Item = T;
}

impl<T: Integer> KernelRange for RangeInclusive<T> {
    type Item = T;
}

/// What `#[kernel]` turns `(a..b).step_by(s)` into for rustc.
pub fn step_by<R: KernelRange>(_range: R, _step: R::Item) -> StepBy<R::Item> {
    outside_kernel("step_by")
}
