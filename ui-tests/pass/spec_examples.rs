//! The examples of the spec pages, written in the kernel language: they compile.
use phasegate::prelude::*;

/// PTX ISA §9.7.13.15.16 example 1a: arrive, then wait with test_wait (sm_80).
#[kernel(target = "sm_80")]
fn example_1a(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish_cta();
    let token = bar.arrive();
    out[thread_idx_x()] = 1; // computation not requiring the barrier
    let bar = token.wait_test();
    // every thread is done with the barrier before one thread invalidates it
    sync_threads();
    bar.inval(thread_idx_x() == 0);
}

/// Example 1b: the same with try_wait.relaxed.cluster.
#[kernel(target = "sm_90")]
fn example_1b() {
    let bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish();
    let token = bar.arrive();
    let _ = token.wait_with(Sem::Relaxed, Scope::Cluster);
}

/// Example 2: one phase per loop iteration, waiting on the phase parity in a register.
#[kernel(target = "sm_90")]
fn example_2(iterations: u32) {
    let mut bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish().into_dynamic();
    for _ in 0..iterations {
        bar.arrive();
        bar.wait();
    }
}

/// Example 3: waiting for asynchronous copies with cp.async.mbarrier.arrive.
#[kernel(target = "sm_80")]
fn example_3(x: &[[f32; 4]], y: &mut [[f32; 4]]) {
    let mut shard = shared_array::<[f32; 4], 128>();
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 128).publish_cta();
    cp_async(&mut shard, t, x, t);
    bar.cp_async_arrive();
    let bar = bar.arrive().wait_test();
    y[t] = shard[t];
    sync_threads();
    bar.inval(t == 0);
}

/// Example 4: the threads of a cluster arrive on CTA 0's barrier; CTA 0 waits for them.
#[kernel(cluster = "2,1,1")]
fn example_4() {
    // every thread of both CTAs arrives once
    let leader = cluster_cta_rank() == 0 && thread_idx_x() == 0;
    let bar = mbarrier().init(leader, 2 * block_dim_x()).publish();
    let cluster = cluster_barrier().arrive().wait();
    bar.arrive_on_peer(0);
    if cluster_cta_rank() == 0 {
        let _ = bar.observe_with(Sem::Ordered, Scope::Cluster);
    }
    // CTA 0's barrier must outlive the other CTA's arrive-on
    let _ = cluster.arrive().wait();
}

/// §9.7.13.1: producer/consumer with bar.arrive and bar.sync; bar.red.and / bar.red.popc.
#[kernel]
fn named(out: &mut [u32]) {
    let full = named_barrier::<1, 64>();
    let empty = named_barrier::<2, 64>();
    if warp_id() == 0 {
        full.arrive();
        empty.sync();
    } else if warp_id() == 1 {
        full.sync();
        empty.arrive();
    }
    let all_ok = cta_reduction_barrier::<3>().all(thread_idx_x() < 1024);
    let count = cta_reduction_barrier::<3>().popc(!all_ok);
    out[thread_idx_x()] = count;
}

/// arrive_drop, then exit: the thread leaves the barrier's later phases.
#[kernel(target = "sm_90")]
fn drop_then_exit(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish();
    if thread_idx_x() >= 32 {
        bar.arrive_drop();
        return;
    }
    let bar = bar.arrive().wait();
    out[thread_idx_x()] = bar.arrive().pending_count();
}

/// §9.7.13.2: a read of the peer's shared memory before the cluster barrier and a write after
/// it; then the relaxed arrive ordered by a fence.
#[kernel(cluster = "2,1,1")]
fn cluster_arrive_wait(out: &mut [u32]) {
    let slot = shared_array::<u32, 128>();
    let t = thread_idx_x();
    let mut peer = peer_shared(&slot, cluster_cta_rank() ^ 1);
    let r0 = peer[t];
    let cluster = cluster_barrier().arrive_aligned().wait_aligned();
    peer[t] = r0 + 1;
    let r1 = peer[t];
    fence_acq_rel(Scope::Cluster);
    let cluster = cluster.arrive_relaxed_aligned().wait_aligned();
    peer[t] = r1;
    out[t] = r0;
    let _ = cluster.arrive().wait();
}

fn main() {
    assert!(cluster_arrive_wait::PTX.contains("st.shared::cluster.u32"));
    assert!(example_1a::PTX.contains("mbarrier.test_wait.shared::cta.b64"));
    assert!(example_4::PTX.contains(".reqnctapercluster 2, 1, 1"));
    assert_eq!(example_4::SPEC.cluster_dims, Some((2, 1, 1)));
    assert!(named::PTX.contains("bar.red.popc.u32"));
}
