//! `phasegate-runtime`: the kernel-language types that rustc checks kernels against, and the
//! description of a generated kernel ([`KernelSpec`]).

#![warn(missing_docs)]

pub mod fp8;
pub mod generate;
pub mod kernel;
pub mod lang;
pub mod rng;
pub mod sim;

#[cfg(feature = "cuda")]
pub mod cuda;

pub use kernel::{ElemType, KernelSpec, MapType, ParamSpec, ParamType, ScalarKind};
