//! The `simulate` function every `#[kernel]` module has: results through `&mut` slices, and a
//! finding as an `Err` with its report.

#[path = "../examples/scale.rs"]
#[allow(dead_code)]
mod scale;

use phasegate::prelude::*;
use phasegate::runtime::sim::{FindingKind, Launch, RunError};

/// The roles wait on each other: each syncs on the barrier the other arrives on afterwards.
/// The analyzer rejects it, so it is allowed here to see the simulator find the same hang.
#[kernel(block = "64,1,1", allow(named_barrier_deadlock))]
fn crossed(out: &mut [u32]) {
    let first = named_barrier::<1, 64>();
    let second = named_barrier::<2, 64>();
    if warp_id() == 0 {
        first.sync();
        second.arrive();
    } else {
        second.sync();
        first.arrive();
    }
    out[thread_idx_x()] = 1;
}

#[test]
fn results_come_back_through_mut_slices() -> Result<(), RunError> {
    let x: Vec<f32> = (0..100).map(|i| i as f32 * 0.5 - 7.0).collect();
    let mut y = vec![0.0f32; 100];
    let launch = Launch {
        grid: (2, 1, 1),
        block: (64, 1, 1),
        ..Launch::default()
    };
    let stats = scale::scale::simulate(&launch, (&x[..], &mut y[..], 3.0f32, 100u32))?;
    assert!(stats.thread_instructions > 0);
    for (a, b) in x.iter().zip(&y) {
        assert_eq!(*b, 3.0 * a);
    }
    Ok(())
}

#[test]
fn a_deadlock_is_an_error_with_its_report() {
    let mut out = vec![0u32; 64];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (64, 1, 1),
        ..Launch::default()
    };
    match crossed::simulate(&launch, (&mut out[..],)) {
        Err(RunError::Finding(report)) => {
            assert_eq!(report.kind, FindingKind::Deadlock, "{report}");
            let text = report.to_string();
            assert!(text.contains("9.7.13.1") || text.contains("§"), "{text}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[path = "kernels/mod.rs"]
#[allow(dead_code)]
mod kernels;

/// A required block shape folds `%ntid` and `%tid.z` into constants; the kernel computes what
/// the same kernel without the shape computes.
#[test]
fn a_required_block_shape_computes_what_the_general_kernel_computes() -> Result<(), RunError> {
    let launch = Launch {
        grid: (3, 2, 1),
        block: (32, 4, 1),
        ..Launch::default()
    };
    let (mut a, mut b) = (vec![u32::MAX; 6 * 1024], vec![u32::MAX; 6 * 1024]);
    kernels::shaped::simulate(&launch, (&mut a[..],))?;
    kernels::unshaped::simulate(&launch, (&mut b[..],))?;
    assert_eq!(a, b);
    assert!(
        a.iter().any(|&v| (96..u32::MAX).contains(&v)),
        "warp 3 writes its id"
    );
    Ok(())
}

/// A launch outside the kernel's bounds is a launch error, as the driver's
/// `CUDA_ERROR_INVALID_VALUE` (PTX ISA §11.4.2 `.maxntid`, §11.4.3 `.reqntid`).
#[test]
fn launches_outside_the_bounds_are_errors() {
    let mut out = vec![0u32; 4096];
    let wrong_shape = Launch {
        grid: (1, 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    };
    match kernels::shaped::simulate(&wrong_shape, (&mut out[..],)) {
        Err(RunError::Simulator(e)) => assert!(e.to_string().contains(".reqntid"), "{e}"),
        other => panic!("expected a launch error, got {other:?}"),
    }
    let too_many = Launch {
        grid: (1, 1, 1),
        block: (512, 1, 1),
        ..Launch::default()
    };
    match kernels::bounded::simulate(&too_many, (&mut out[..],)) {
        Err(RunError::Simulator(e)) => assert!(e.to_string().contains(".maxntid"), "{e}"),
        other => panic!("expected a launch error, got {other:?}"),
    }
    let within = Launch {
        grid: (2, 1, 1),
        block: (256, 1, 1),
        ..Launch::default()
    };
    kernels::bounded::simulate(&within, (&mut out[..],))
        .expect("256 threads are within the bounds");
    assert_eq!(out[256 + 255], 7);
}
