//! The CPU simulator: [`phasegate_sim`], re-exported whole, and the layer that runs a
//! `#[kernel]` from its [`KernelSpec`]: [`simulate_spec`], [`simulate`] and [`run`] (what a
//! kernel module's generated `simulate` calls).
//!
//! The simulator runs PTX and knows nothing of the kernel language; a [`KernelSpec`] is the
//! kernel language's description of a kernel (parameters as Rust types: `&mut [f32]`, `bf16`,
//! `TensorMap<..>`). Checking arguments against that signature, with messages that name the
//! Rust types, is the kernel language's business, so it stays here: this file is the whole of
//! `runtime`'s use of `phasegate_sim` for simulation. A second, plain parameter description
//! owned by the simulator would repeat [`ParamType`] and [`MapType`](crate::MapType) field for
//! field and convert between the two on every launch, while the simulator learns nothing from
//! it that the PTX's `.param` declarations do not already tell it.

pub use phasegate_sim::*;

use crate::kernel::{KernelSpec, ParamType, ScalarKind};

/// Runs a `#[kernel]` from its [`KernelSpec`]: the arguments are checked against its
/// parameters (a slice needs a buffer whose size is a multiple of the element, a scalar the
/// same kind), then its PTX text runs with at least the dynamic shared memory the kernel needs
/// (as the CUDA launch path gives it).
pub fn simulate_spec(
    spec: &KernelSpec,
    launch: &Launch,
    args: &mut [ArgValue],
) -> Result<Outcome, SimError> {
    check_spec(spec, args)?;
    let launch = Launch {
        dynamic_shared_bytes: launch.dynamic_shared_bytes.max(spec.dynamic_shared_bytes),
        ..launch.clone()
    };
    simulate_ptx(spec.ptx, spec.entry, &launch, args)
}

/// Runs a `#[kernel]` with typed arguments: `(&x, &mut y, 2.0f32, n)`; slices given as
/// `&mut` receive the results.
pub fn simulate<A: KernelArgs>(
    spec: &KernelSpec,
    launch: &Launch,
    args: A,
) -> Result<Outcome, SimError> {
    let mut values = args.values();
    let outcome = simulate_spec(spec, launch, &mut values)?;
    args.write_back(&values);
    Ok(outcome)
}

/// [`simulate`], with a finding as `Err`: what a `#[kernel]`'s generated `simulate` calls.
pub fn run<A: KernelArgs>(spec: &KernelSpec, launch: &Launch, args: A) -> Result<Stats, RunError> {
    match simulate(spec, launch, args) {
        Ok(Outcome::Completed(stats)) => Ok(stats),
        Ok(Outcome::Finding(report)) => Err(RunError::Finding(report)),
        Err(e) => Err(RunError::Simulator(e)),
    }
}

/// Checks arguments against a `#[kernel]`'s parameters.
fn check_spec(spec: &KernelSpec, args: &[ArgValue]) -> Result<(), SimError> {
    if spec.params.len() != args.len() {
        return Err(SimError::Args(format!(
            "`{}` takes {} arguments, {} given",
            spec.entry,
            spec.params.len(),
            args.len()
        )));
    }
    for (p, a) in spec.params.iter().zip(args) {
        let ok = match (p.ty, a) {
            (ParamType::Slice { elem, .. }, ArgValue::Buffer(b)) => {
                b.len() % elem.size() as usize == 0
            }
            (ParamType::MapSlots, ArgValue::Buffer(b)) => b.len() % 128 == 0,
            (ParamType::Scalar(ScalarKind::U32), ArgValue::U32(_))
            | (ParamType::Scalar(ScalarKind::I32), ArgValue::I32(_))
            | (ParamType::Scalar(ScalarKind::U64), ArgValue::U64(_))
            | (ParamType::Scalar(ScalarKind::I64), ArgValue::I64(_))
            | (ParamType::Scalar(ScalarKind::F32), ArgValue::F32(_))
            | (ParamType::Scalar(ScalarKind::F64), ArgValue::F64(_))
            | (ParamType::Scalar(ScalarKind::Bool), ArgValue::Bool(_)) => true,
            (ParamType::TensorMap(want), ArgValue::TensorMap(arg)) => {
                if let Err(e) = want.check_arg(arg) {
                    return Err(SimError::Args(format!(
                        "tensor map for parameter `{}` of `{}`: {e}",
                        p.name, spec.entry
                    )));
                }
                true
            }
            (
                ParamType::Scalar(
                    k @ (ScalarKind::F16
                    | ScalarKind::Bf16
                    | ScalarKind::F8E4M3
                    | ScalarKind::F8E5M2),
                ),
                ArgValue::Bytes(b),
            ) => b.len() == k.size() as usize,
            _ => false,
        };
        if !ok {
            let want = match p.ty {
                ParamType::Slice { elem, .. } => {
                    format!("a buffer of {}-byte elements", elem.size())
                }
                ParamType::Scalar(k) => format!("a {}", k.rust_name()),
                ParamType::TensorMap(_) => "a tensor map (`TensorMapArg`)".into(),
                ParamType::MapSlots => "a buffer of 128-byte tensor-map slots".into(),
            };
            return Err(SimError::Args(format!(
                "parameter `{}` of `{}` takes {want}, given {}",
                p.name,
                spec.entry,
                a.kind_name()
            )));
        }
    }
    Ok(())
}
