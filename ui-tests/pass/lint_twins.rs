//! The correct twins of the lint cases in `ui-tests/fail/lint_*.rs`: they compile untouched.
use phasegate::prelude::*;

/// A warp-specialised role split with a counted barrier: warp-uniform control is enough.
#[kernel]
fn role_split(out: &mut [u32]) {
    let t = thread_idx_x();
    if warp_id() < 2 {
        named_barrier::<1, 64>().sync();
    }
    sync_threads();
    out[t] = t;
}

/// One count per barrier id; a run-time id within range.
#[kernel]
fn counts(out: &mut [u32]) {
    if warp_id() < 2 {
        named_barrier::<1, 64>().sync();
    }
    if warp_id() < 4 {
        named_barrier::<2, 128>().sync();
    }
    named_barrier_dyn(3, 64 * 0 + block_dim_x()).sync();
    out[0] = 1;
}

/// Reductions and syncs on different barriers.
#[kernel]
fn red_and_sync(out: &mut [u32]) {
    let t = thread_idx_x();
    let count = cta_reduction_barrier::<1>().popc(t % 3 == 0);
    cta_barrier::<2>().sync();
    out[t] = count;
}

/// Every phase waited for before the next arrive.
#[kernel(target = "sm_90")]
fn waits(out: &mut [u32]) {
    let mut bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish().into_dynamic();
    bar.arrive();
    bar.wait();
    bar.arrive();
    bar.wait();
    out[0] = bar.parity();
}

/// The writing threads fence the generic proxy before the barrier the bulk store follows.
#[kernel(target = "sm_90a")]
fn fenced(y: &mut [[f32; 4]]) {
    let mut tile = shared_array::<[f32; 4], 128>();
    let t = thread_idx_x();
    tile[t] = [1.0, 2.0, 3.0, 4.0];
    fence_proxy_async();
    sync_threads();
    if t == 0 {
        bulk_store(y, 0, &tile, 0, 128);
        bulk_commit();
        bulk_wait(0);
    }
}

/// The expectation and the copy agree, because one call makes both.
#[kernel(target = "sm_90a")]
fn tx_agree(x: &[f32], out: &mut [f32]) {
    let mut tile = shared_array::<f32, 2048>();
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 1).publish();
    let bar = if t == 0 { bar.arrive_load(&mut tile, 0, x, 0, 1024).wait() } else { bar.observe() };
    out[t] = tile[t];
    sync_threads();
    bar.inval(t == 0);
}

/// The producer/consumer order that completes.
#[kernel]
fn ordered(out: &mut [u32]) {
    let first = named_barrier::<1, 64>();
    let second = named_barrier::<2, 64>();
    if warp_id() == 0 {
        first.arrive();
        second.sync();
    } else if warp_id() == 1 {
        first.sync();
        second.arrive();
    }
    out[thread_idx_x()] = 1;
}

/// A lint allowed for one kernel.
#[kernel(allow(barrier_red_sync_mix))]
fn allowed(out: &mut [u32]) {
    let t = thread_idx_x();
    let mut count = 0u32;
    if warp_id() < 2 {
        named_barrier::<1, 64>().arrive();
    } else if warp_id() < 4 {
        count = reduction_barrier::<1, 64>().popc(t % 3 == 0);
    }
    out[t] = count;
}

/// A reduction and a sync on one id, one after the other in every thread: each completes
/// before the next begins, which the analyzer accepts.
#[kernel]
fn sequential(out: &mut [u32]) {
    let t = thread_idx_x();
    let count = cta_reduction_barrier::<1>().popc(t % 3 == 0);
    cta_barrier::<1>().sync();
    out[t] = count;
}

fn main() {}
