//! `phasegate-runtime`: the kernel-language types that rustc checks kernels against, the
//! description of a generated kernel ([`KernelSpec`]), `KERNEL::simulate` over the simulator
//! ([`sim`], which re-exports `phasegate-sim`), and the GPU launch (`cuda`, feature `cuda`).

#![warn(missing_docs)]

pub mod kernel;
pub mod lang;
pub mod sim;

/// The host types of the fp8 formats (`phasegate_sim::fp8`), which kernels name `f8e4m3` and
/// `f8e5m2`.
pub use phasegate_sim::fp8;
/// Random barrier-correct kernels for differential testing (`phasegate_sim::generate`).
pub use phasegate_sim::generate;
/// The random-number generator of schedules and generated kernels (`phasegate_sim::rng`).
pub use phasegate_sim::rng;

#[cfg(feature = "cuda")]
pub mod cuda;

pub use kernel::{ElemType, KernelSpec, MapType, ParamSpec, ParamType, ScalarKind};
