//! The kernel of the book's "Getting started" chapter (`book/src/getting-started.md`, which
//! includes this file piece by piece between its `ANCHOR` comments): a block-wide sum through
//! shared memory, simulated against a CPU sum, and the same kernel with one barrier left out,
//! whose data race the simulator reports.
//!
//! `cargo run --example first_kernel`; `tests/book_commands.rs` checks what it prints against
//! the book.

// ANCHOR: kernel
use phasegate::prelude::*;

/// `sums[b]` = the sum of the 256 elements `x[256 b ..]` that block `b` reads.
#[kernel(block = "256,1,1")]
pub fn block_sum(x: &[f32], sums: &mut [f32]) {
    let mut partial = shared_array::<f32, 256>();
    let t = thread_idx_x();
    partial[t] = x[block_idx_x() * 256 + t];
    sync_threads(); // every load is in shared memory before anyone adds
    let mut half = 128;
    while half > 0 {
        if t < half {
            partial[t] = partial[t] + partial[t + half];
        }
        sync_threads(); // this level is done before the next reads it
        half /= 2;
    }
    if t == 0 {
        sums[block_idx_x()] = partial[0];
    }
}
// ANCHOR_END: kernel

// ANCHOR: racy
/// `block_sum` without the barrier between the loads and the first level of the tree: thread
/// `t` adds `partial[t + 128]` before thread `t + 128` may have stored it.
#[kernel(block = "256,1,1")]
pub fn block_sum_racy(x: &[f32], sums: &mut [f32]) {
    let mut partial = shared_array::<f32, 256>();
    let t = thread_idx_x();
    partial[t] = x[block_idx_x() * 256 + t];
    let mut half = 128;
    while half > 0 {
        if t < half {
            partial[t] = partial[t] + partial[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        sums[block_idx_x()] = partial[0];
    }
}
// ANCHOR_END: racy

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // ANCHOR: simulate
    use phasegate::runtime::sim::{Launch, RunError};

    let blocks = 4;
    let x: Vec<f32> = (0..256 * blocks).map(|i| (i % 17) as f32 - 8.0).collect();
    let mut sums = vec![f32::NAN; blocks as usize];
    let launch = Launch {
        grid: (blocks, 1, 1),
        block: (256, 1, 1),
        ..Launch::default()
    };
    let stats = block_sum::simulate(&launch, (&x[..], &mut sums[..]))?;
    for (b, sum) in sums.iter().enumerate() {
        // These values are small integers, so every order of additions gives the exact sum.
        let want: f32 = x[b * 256..(b + 1) * 256].iter().sum();
        assert_eq!(*sum, want, "block {b}");
    }
    println!(
        "block_sum: {} CTAs, {} thread-instructions, sums {sums:?}",
        stats.ctas, stats.thread_instructions
    );
    // ANCHOR_END: simulate

    // ANCHOR: schedules
    use phasegate::runtime::sim::{Policy, Schedule};

    // The same launch under other orders of the warps: a correct kernel gives the same sums.
    for policy in [
        Policy::Random,
        Policy::Pct { depth: 2 },
        Policy::Pct { depth: 3 },
    ] {
        for seed in 0..4 {
            let launch = Launch {
                schedule: Schedule { policy, seed },
                ..launch.clone()
            };
            let mut again = vec![f32::NAN; blocks as usize];
            block_sum::simulate(&launch, (&x[..], &mut again[..]))?;
            assert_eq!(again, sums, "{policy:?}, seed {seed}");
        }
    }
    println!("block_sum: the same sums under 12 more schedules");
    // ANCHOR_END: schedules

    // ANCHOR: finding
    match block_sum_racy::simulate(&launch, (&x[..], &mut sums[..])) {
        Err(RunError::Finding(report)) => println!("block_sum_racy: {report}"),
        other => return Err(format!("expected a finding, got {other:?}").into()),
    }
    // ANCHOR_END: finding
    Ok(())
}
