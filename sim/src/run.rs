//! One launch: check the shape against the kernel and the simulator's limits, place the
//! arguments, run the clusters (in order, or in parallel with the same result: see
//! [`parallel`]), copy the buffers back.

use super::args::ArgValue;
use super::cluster::{Totals, run_rest_in_order};
use super::decode::{self, Program};
use super::machine::{LaunchMem, Shape, volume};
use super::memory::{MAX_SHARED_BYTES, SHARED_BASE};
use super::parallel;
use super::trace::Trace;
use crate::error::SimError;
use crate::launch::{Launch, check_block};
use crate::outcome::Outcome;
use crate::tensormap::TensorSource;
use phasegate_ptx::Module;

/// Most threads in one cluster: vector clocks are quadratic in it.
const MAX_CLUSTER_THREADS: u64 = 4096;
/// CUDA's limit on a kernel's parameters.
const MAX_PARAM_BYTES: u32 = 32764;
/// Local memory per thread (the hardware's limit) and `.param` frames per thread.
const MAX_LOCAL_BYTES: u32 = 512 * 1024;
const MAX_FRAME_BYTES: u32 = 64 * 1024;

pub(crate) fn run(
    module: &Module,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
    trace: Option<&mut Trace>,
) -> Result<Outcome, SimError> {
    let prog = decode::decode(module, entry)?;
    run_decoded(&prog, entry, launch, args, trace)
}

/// [`run`] of an entry decoded already: [`crate::explore`] runs one launch under many
/// schedules, and decoding a kernel is a fixed cost per launch (up to a tenth of a short
/// launch's time in the CUTLASS GEMMs).
pub(crate) fn run_decoded(
    prog: &Program,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
    trace: Option<&mut Trace>,
) -> Result<Outcome, SimError> {
    let shape = shape(prog, launch)?;
    let mut mem = LaunchMem {
        global: prog.global.clone(),
        kernel_params: vec![0; prog.kernel_param_bytes as usize],
        unfenced: Vec::new(),
    };
    let buffers = place_args(prog, &mut mem, args)?;
    let _span =
        tracing::debug_span!("launch", entry, grid = ?shape.grid, block = ?shape.block).entered();
    let clusters = volume(shape.grid) / volume(shape.cluster);
    let result = if trace.is_none() && parallel::worthwhile(clusters) {
        parallel::run_clusters(prog, &shape, &mut mem, launch)
    } else {
        run_in_order(prog, &shape, &mut mem, launch, trace)
    };
    return_buffers(&mut mem, &buffers, args);
    result
}

/// The clusters one after another on the launch's memory: the semantics of a launch, which
/// a parallel run reproduces (see [`parallel`]). A traced run always runs so: its timeline
/// lays the clusters end to end.
fn run_in_order(
    prog: &Program,
    shape: &Shape,
    mem: &mut LaunchMem,
    launch: &Launch,
    trace: Option<&mut Trace>,
) -> Result<Outcome, SimError> {
    let totals = Totals::new(launch.schedule);
    run_rest_in_order(prog, shape, mem, launch, trace, totals, 0)
}

fn check_dims(what: &str, d: (u32, u32, u32)) -> Result<(), SimError> {
    if d.0 == 0 || d.1 == 0 || d.2 == 0 {
        return Err(SimError::Launch(format!(
            "{what} {d:?} has a zero dimension"
        )));
    }
    Ok(())
}

pub(crate) fn shape(prog: &Program, launch: &Launch) -> Result<Shape, SimError> {
    check_dims("grid", launch.grid)?;
    check_dims("block", launch.block)?;
    let threads = volume(launch.block);
    if threads > 1024 {
        return Err(SimError::Launch(format!(
            "a block of {threads} threads; at most 1024"
        )));
    }
    check_block(
        "the kernel",
        prog.shape.reqntid,
        prog.shape.maxntid.map(volume),
        launch.block,
    )
    .map_err(SimError::Launch)?;
    let cluster = match (launch.cluster, prog.shape.reqnctapercluster) {
        (Some(c), Some(r)) if c != r => {
            return Err(SimError::Launch(format!(
                "the kernel requires clusters of {r:?} (.reqnctapercluster), the launch has {c:?}"
            )));
        }
        (Some(c), _) => c,
        (None, Some(r)) => r,
        (None, None) if prog.shape.explicit_cluster => {
            return Err(SimError::Launch(
                "the kernel is .explicitcluster: give the launch a cluster shape".into(),
            ));
        }
        (None, None) => (1, 1, 1),
    };
    check_dims("cluster", cluster)?;
    if volume(cluster) > 16 {
        return Err(SimError::Launch(format!(
            "a cluster of {} CTAs; at most 16",
            volume(cluster)
        )));
    }
    if !launch.grid.0.is_multiple_of(cluster.0)
        || !launch.grid.1.is_multiple_of(cluster.1)
        || !launch.grid.2.is_multiple_of(cluster.2)
    {
        return Err(SimError::Launch(format!(
            "the grid {:?} is not a multiple of the cluster shape {cluster:?}",
            launch.grid
        )));
    }
    let warps_per_cta = (threads as u32).div_ceil(32);
    let cluster_threads = volume(cluster) * warps_per_cta as u64 * 32;
    if cluster_threads > MAX_CLUSTER_THREADS {
        return Err(SimError::Launch(format!(
            "a cluster of {cluster_threads} threads; the simulator's happens-before tracking supports at most {MAX_CLUSTER_THREADS}"
        )));
    }
    if prog.kernel_param_bytes > MAX_PARAM_BYTES {
        return Err(SimError::Launch(format!(
            "{} bytes of kernel parameters; at most {MAX_PARAM_BYTES}",
            prog.kernel_param_bytes
        )));
    }
    if prog.local_bytes > MAX_LOCAL_BYTES || prog.frame_bytes > MAX_FRAME_BYTES {
        return Err(SimError::Launch(format!(
            "{} bytes of local memory and {} of parameter frames per thread exceed the simulator's {MAX_LOCAL_BYTES} and {MAX_FRAME_BYTES}",
            prog.local_bytes, prog.frame_bytes
        )));
    }
    let static_bytes = prog.shared_static_end - SHARED_BASE;
    let dynamic_start = prog.dynamic_shared_offset() - SHARED_BASE as u64;
    let total = dynamic_start + launch.dynamic_shared_bytes as u64;
    if total > MAX_SHARED_BYTES as u64 {
        return Err(SimError::Launch(format!(
            "{static_bytes} bytes of static and {} of dynamic shared memory exceed the {MAX_SHARED_BYTES} bytes of a CTA",
            launch.dynamic_shared_bytes
        )));
    }
    Ok(Shape {
        grid: launch.grid,
        block: launch.block,
        cluster,
        explicit_cluster: launch.cluster.is_some()
            || prog.shape.reqnctapercluster.is_some()
            || prog.shape.explicit_cluster,
        threads_per_cta: threads as u32,
        warps_per_cta,
        ctas_per_cluster: volume(cluster) as u32,
        shared_bytes: total as u32,
        dynamic_shared_bytes: launch.dynamic_shared_bytes,
    })
}

/// Writes the parameter block and moves each buffer argument (and each tensor map's own
/// tensor, each struct's buffers) into global memory (its place in `args` is empty until
/// [`return_buffers`]); returns (argument index, the buffer's index in a struct argument,
/// global buffer index). Tensor maps and structs are written once every buffer has its address.
fn place_args(
    prog: &Program,
    mem: &mut LaunchMem,
    args: &mut [ArgValue],
) -> Result<Vec<(usize, Option<usize>, usize)>, SimError> {
    if args.len() != prog.kernel_params.len() {
        let names: Vec<&str> = prog.kernel_params.iter().map(|p| p.name.as_str()).collect();
        return Err(SimError::Args(format!(
            "the kernel takes {} parameters ({}), {} given",
            names.len(),
            names.join(", "),
            args.len()
        )));
    }
    for (i, (p, a)) in prog.kernel_params.iter().zip(args.iter()).enumerate() {
        let size = match a {
            ArgValue::Buffer(_) => 8,
            ArgValue::TensorMap(t) if t.in_global => 8,
            ArgValue::TensorMap(_) => 128,
            ArgValue::Struct(st) => st.bytes.len(),
            other => other.param_bytes().expect("scalar").len(),
        };
        if size != p.size as usize {
            let what = match a {
                ArgValue::Buffer(_) => "a buffer is passed as an 8-byte pointer".to_string(),
                ArgValue::TensorMap(t) if t.in_global => {
                    "a tensor map in global memory is passed as an 8-byte pointer".to_string()
                }
                ArgValue::TensorMap(_) => "a tensor map is 128 bytes".to_string(),
                ArgValue::Struct(_) => format!("the struct's bytes are {size}"),
                _ => format!("the argument ({}) has {size}", a.kind_name()),
            };
            return Err(SimError::Args(format!(
                "parameter {i} (`{}`, .{}) has {} bytes; {what}",
                p.name, p.ty, p.size
            )));
        }
        if let ArgValue::Struct(st) = a {
            let view: Vec<Result<usize, &'static str>> = args
                .iter()
                .map(|a| match a {
                    ArgValue::Buffer(b) => Ok(b.len()),
                    other => Err(other.kind_name()),
                })
                .collect();
            st.check(i, &view)?;
        }
        // Tensor maps are checked before any buffer moves (buffers are 256-byte aligned: the
        // offset stands for the address).
        if let ArgValue::TensorMap(t) = a {
            if let TensorSource::Arg(j) = t.tensor
                && !matches!(args.get(j), Some(ArgValue::Buffer(_)))
            {
                return Err(SimError::Args(format!(
                    "the tensor map of argument {i} (`{}`) is over argument {j}, which is not a buffer",
                    p.name
                )));
            }
            let mut map = t.map.clone();
            map.address = t.offset;
            map.validate().map_err(|e| {
                SimError::Args(format!(
                    "the tensor map of argument {i} (`{}`): {e}",
                    p.name
                ))
            })?;
        }
    }
    let mut buffers = Vec::new();
    let mut base_of = vec![None; args.len()];
    let mut struct_bases = vec![Vec::new(); args.len()];
    for (i, (p, a)) in prog.kernel_params.iter().zip(args.iter_mut()).enumerate() {
        if let ArgValue::Struct(st) = a {
            for (k, b) in st.buffers.iter_mut().enumerate() {
                let what = format!("buffer `{}` of argument {i} (`{}`)", b.name, p.name);
                struct_bases[i].push(mem.global.alloc(std::mem::take(&mut b.data), false, what));
                buffers.push((i, Some(k), mem.global.buffers.len() - 1));
            }
            continue;
        }
        let data = match a {
            ArgValue::Buffer(data) => std::mem::take(data),
            ArgValue::TensorMap(t) => match &mut t.tensor {
                TensorSource::Own(data) => std::mem::take(data),
                TensorSource::Arg(_) => continue,
            },
            _ => continue,
        };
        let what = if matches!(a, ArgValue::Buffer(_)) {
            format!("argument {i} (`{}`)", p.name)
        } else {
            format!("the tensor of argument {i} (`{}`)", p.name)
        };
        base_of[i] = Some(mem.global.alloc(data, false, what));
        buffers.push((i, None, mem.global.buffers.len() - 1));
    }
    for (i, (p, a)) in prog.kernel_params.iter().zip(args.iter()).enumerate() {
        let bytes = match a {
            ArgValue::Buffer(_) => base_of[i].expect("allocated").to_le_bytes().to_vec(),
            ArgValue::TensorMap(t) => {
                let base = match t.tensor {
                    TensorSource::Own(_) => base_of[i],
                    TensorSource::Arg(j) => base_of[j],
                };
                let mut map = t.map.clone();
                map.address = base.expect("checked: a buffer") + t.offset;
                let encoded = map.encode().to_vec();
                if t.in_global {
                    let at = mem.global.alloc(
                        encoded,
                        false,
                        format!("the tensor map of argument {i} (`{}`)", p.name),
                    );
                    at.to_le_bytes().to_vec()
                } else {
                    encoded
                }
            }
            ArgValue::Struct(st) => st.patched(&struct_bases[i], &base_of),
            other => other.param_bytes().expect("scalar"),
        };
        mem.kernel_params[p.offset as usize..(p.offset + p.size) as usize].copy_from_slice(&bytes);
    }
    Ok(buffers)
}

/// Moves the buffers' final contents back into the arguments.
fn return_buffers(
    mem: &mut LaunchMem,
    buffers: &[(usize, Option<usize>, usize)],
    args: &mut [ArgValue],
) {
    for &(i, k, b) in buffers {
        let data = std::mem::take(&mut mem.global.buffers[b].bytes);
        match &mut args[i] {
            ArgValue::Struct(st) => st.buffers[k.expect("a struct's buffer")].data = data,
            ArgValue::TensorMap(t) => t.tensor = TensorSource::Own(data),
            other => *other = ArgValue::Buffer(data),
        }
    }
}
