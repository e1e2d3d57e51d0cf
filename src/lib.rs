//! # phasegate
//!
//! Rust GPU kernels whose barriers cannot be misused silently.
//!
//! A kernel is a Rust function under [`#[kernel]`](kernel). From it phasegate makes PTX text
//! (with `.loc` lines back to the Rust source) and a [`KernelSpec`](runtime::KernelSpec)
//! describing its entry and parameters:
//!
//! ```
//! use phasegate::prelude::*;
//!
//! #[kernel]
//! fn scale(x: &[f32], y: &mut [f32], a: f32, n: u32) {
//!     let i = block_idx_x() * block_dim_x() + thread_idx_x();
//!     if i < n {
//!         y[i] = a * x[i];
//!     }
//! }
//!
//! assert!(scale::PTX.contains(".visible .entry scale("));
//! assert_eq!(scale::SPEC.params.len(), 4);
//! ```
//!
//! Kernels call ordinary Rust functions marked [`#[device]`](device), which are inlined into
//! their PTX (const generics substituted, barrier handles' typestate checked across the call):
//!
//! ```
//! use phasegate::prelude::*;
//!
//! #[device]
//! fn clamp<const HI: u32>(x: u32) -> u32 {
//!     x.min(HI)
//! }
//!
//! #[kernel]
//! fn clamped(y: &mut [u32]) {
//!     let t = thread_idx_x();
//!     y[t] = clamp::<100>(t * 3);
//! }
//!
//! assert!(clamped::PTX.contains("min.u32"));
//! ```
//!
//! The crates behind it: [`ptx`] (the PTX model, writer, reader and feature table),
//! [`lints`] (the barrier analyzer), [`runtime`] (kernel-language types and kernel
//! descriptions), `phasegate-macros`. [`cli`] is the `phasegate` command as a library function.

#![warn(missing_docs)]

pub use phasegate_lints as lints;
#[doc(hidden)]
pub use phasegate_macros::__phasegate_step;
pub use phasegate_macros::device;
pub use phasegate_macros::kernel;
pub use phasegate_ptx as ptx;
pub use phasegate_runtime as runtime;
/// The kernel language, as rustc sees it (see [`runtime::lang`]).
pub use phasegate_runtime::lang;

/// `use phasegate::prelude::*;` brings in `#[kernel]` and the kernel-language functions.
pub mod prelude {
    pub use crate::device;
    pub use crate::kernel;
    pub use crate::lang::*;
    pub use crate::runtime::KernelSpec;
}

pub mod cli;
