//! Barrier latencies measured inside kernels with `clock64()`: each kernel runs its barrier
//! `iters` times and thread 0 of each block writes the elapsed cycles to `cycles[block]`.
//! The GPU benchmark (`tools/gpu-bench`) runs these beside the same loops written in CUDA C++
//! with inline PTX. `cargo run --example latency` prints their PTX.

use phasegate::prelude::*;

/// `bar.sync 0` over the whole block.
#[kernel]
pub fn bar_sync_latency(cycles: &mut [u64], iters: u32) {
    let start = clock64();
    for _ in 0..iters {
        sync_threads();
    }
    let end = clock64();
    if thread_idx_x() == 0 {
        cycles[block_idx_x()] = end - start;
    }
}

/// `bar.red.popc.u32` over the whole block; the count goes to `counts` so it is used.
#[kernel]
pub fn bar_red_popc_latency(cycles: &mut [u64], counts: &mut [u32], iters: u32) {
    let votes = cta_reduction_barrier::<1>();
    let mut total = 0u32;
    let start = clock64();
    for i in 0..iters {
        total += votes.popc((thread_idx_x() ^ i) & 1 == 0);
    }
    let end = clock64();
    if thread_idx_x() == 0 {
        cycles[block_idx_x()] = end - start;
        counts[block_idx_x()] = total;
    }
}

/// One mbarrier phase: every thread arrives, then waits with `try_wait.parity`.
#[kernel(target = "sm_90")]
pub fn mbarrier_phase_latency(cycles: &mut [u64], iters: u32) {
    let mut bar = mbarrier()
        .init(thread_idx_x() == 0, block_dim_x())
        .publish()
        .into_dynamic();
    let start = clock64();
    for _ in 0..iters {
        bar.arrive();
        bar.wait();
    }
    let end = clock64();
    if thread_idx_x() == 0 {
        cycles[block_idx_x()] = end - start;
    }
}

/// A producer/consumer round with named barriers: warps 0-1 `arrive` on barrier 1 and `sync`
/// on barrier 2; warps 2-3 `sync` on 1 and `arrive` on 2. Launch with 128 threads.
#[kernel]
pub fn ping_pong_latency(cycles: &mut [u64], iters: u32) {
    let full = named_barrier::<1, 128>();
    let empty = named_barrier::<2, 128>();
    let start = clock64();
    if warp_id() < 2 {
        for _ in 0..iters {
            full.arrive();
            empty.sync();
        }
    } else {
        for _ in 0..iters {
            full.sync();
            empty.arrive();
        }
    }
    let end = clock64();
    if thread_idx_x() == 0 {
        cycles[block_idx_x()] = end - start;
    }
}

/// `barrier.cluster.arrive.release.aligned` + `wait.acquire.aligned`, clusters of 2 CTAs.
#[kernel(cluster = "2,1,1")]
pub fn cluster_latency(cycles: &mut [u64], iters: u32) {
    let mut cluster = cluster_barrier();
    let start = clock64();
    for _ in 0..iters {
        cluster = cluster.arrive_release_aligned().wait_acquire_aligned();
    }
    let end = clock64();
    if thread_idx_x() == 0 {
        cycles[block_idx_x()] = end - start;
    }
}

fn main() {
    for ptx in [
        bar_sync_latency::PTX,
        bar_red_popc_latency::PTX,
        mbarrier_phase_latency::PTX,
        ping_pong_latency::PTX,
        cluster_latency::PTX,
    ] {
        println!("{ptx}");
    }
}
