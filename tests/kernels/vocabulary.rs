//! Kernels that use every instruction form of the barrier vocabulary at least once, so that
//! each form is assembled by ptxas (`tests/ptxas.rs`). They are written to type-check and,
//! except where an `allow` says which rule a kernel breaks and why it is kept, to follow each
//! protocol; what they compute is beside the point.

use phasegate::prelude::*;

/// The producer/consumer pattern of PTX ISA §9.7.13.1 with two named barriers, and every
/// spelling of `bar`/`barrier` sync and arrive. Each barrier counts its producers and its
/// consumers: two warps each.
#[kernel(block = "128,1,1")]
pub fn named_barriers(data: &mut [u32], id: u32) {
    let warp = warp_id();
    let produced = named_barrier::<1, 128>();
    let consumed = named_barrier::<2, 128>();
    let t = thread_idx_x();
    if warp < 2 {
        // producer warps
        data[t] = t;
        produced.arrive();
        consumed.sync();
    } else if warp < 4 {
        // consumer warps
        produced.sync();
        data[t] = data[t - 64] + 1;
        consumed.arrive();
    }
    let all = cta_barrier::<3>();
    all.sync();
    all.sync_unaligned();
    let spelled = named_barrier_cta::<4, 128>();
    spelled.sync();
    // two warps arrive while two wait; barrier 5 keeps each round in a phase of its own (an
    // arrive followed by another arrive in one phase would count a warp twice, §9.7.13.1)
    if warp < 2 {
        spelled.arrive();
    } else {
        spelled.sync_unaligned();
    }
    cta_barrier_cta::<5>().sync();
    if warp < 2 {
        spelled.arrive_unaligned();
    } else {
        spelled.sync();
    }
    cta_barrier_cta::<5>().sync_unaligned();
    produced.sync_unaligned();
    produced.arrive_unaligned();
    // an id in a register, away from the barriers above
    let dynamic = named_barrier_dyn(6 + id % 8, 128);
    dynamic.sync();
    dynamic.arrive();
}

/// `bar.red` in every form: popc/and/or, with and without a thread count, negated predicate,
/// aligned and not, `.cta` spelling.
#[kernel]
pub fn reductions(values: &[u32], out: &mut [u32]) {
    let t = thread_idx_x();
    let positive = values[t] > 0;
    let count = cta_reduction_barrier::<1>().popc(positive);
    let r = reduction_barrier::<2, 64>();
    let mut flags = 0u32;
    if warp_id() < 2 {
        let zeros = r.popc(!positive);
        let all = r.all(positive);
        let any = r.any(!positive);
        flags = zeros + (all as u32) * 2 + (any as u32) * 4;
        flags += r.popc_unaligned(positive)
            + (r.all_unaligned(!positive) as u32)
            + (r.any_unaligned(positive) as u32);
    }
    let c = reduction_barrier_cta::<3, 32>();
    if warp_id() == 0 {
        flags += c.popc(positive) + (c.all(positive) as u32) + (c.any_unaligned(positive) as u32);
    }
    out[t] = count + flags;
}

/// The typed mbarrier: every arrive, arrive_drop, wait and observe form, in one lifecycle.
/// Not a protocol: where the leader arrives alone on the 128-count object, the phase never
/// completes (the analyzer proves the hang); the forms are what the kernel is for.
#[kernel(allow(mbarrier_deadlock))]
pub fn mbarrier_forms(out: &mut [u32], hint: u32) {
    let t = thread_idx_x();
    let leader = t == 0;
    let bar = mbarrier().init(leader, 128).publish();
    // phase 0
    let token = bar.arrive();
    let pending = token.pending_count();
    let bar = token.wait();
    // phase 1
    let bar = bar.arrive_count(1).wait_test();
    let bar = bar.arrive_with(Sem::Ordered, Scope::Cta).wait_hinted(hint);
    let bar = bar
        .arrive_with(Sem::Relaxed, Scope::Cluster)
        .wait_with(Sem::Relaxed, Scope::Cluster);
    let bar = bar
        .arrive_with(Sem::Relaxed, Scope::Cta)
        .wait_with(Sem::Ordered, Scope::Cta);
    let bar = if leader {
        bar.arrive_expect_tx(0).wait()
    } else {
        bar.arrive().wait()
    };
    let bar = if leader {
        bar.arrive_no_complete(1).wait()
    } else {
        bar.arrive_count(1).wait()
    };
    bar.expect_tx(16);
    bar.complete_tx(16);
    bar.expect_tx_with(16, Sem::Relaxed, Scope::Cta);
    bar.complete_tx_with(16, Sem::Relaxed, Scope::Cluster);
    let bar = bar.arrive().wait();
    let bar = bar.arrive().wait();
    let bar = if leader {
        bar.arrive().wait()
    } else {
        bar.observe()
    };
    let bar = if leader {
        bar.arrive().wait()
    } else {
        bar.observe_test()
    };
    let bar = if leader {
        bar.arrive_count(127).wait()
    } else {
        bar.observe_hinted(hint)
    };
    let bar = if leader {
        bar.arrive_count(127).wait()
    } else {
        bar.observe_with(Sem::Relaxed, Scope::Cta)
    };
    let bar = if leader {
        bar.arrive_count(127).wait()
    } else {
        bar.wait_parity(ODD)
    };
    let bar = if leader {
        bar.arrive_count(127).wait()
    } else {
        bar.observe_with(Sem::Ordered, Scope::Cluster)
    };
    out[t] = pending;
    if t < 32 {
        bar.arrive_drop();
    } else if t < 64 {
        bar.arrive_drop_count(1);
    } else if t < 96 {
        bar.arrive_drop_with(Sem::Relaxed, Scope::Cta);
    } else if t < 127 {
        bar.arrive_drop_no_complete(1);
    } else {
        bar.arrive_drop_expect_tx(0);
    }
}

/// mbarrier invalidation and reuse, and the parity-in-a-register handle in a loop.
#[kernel]
pub fn mbarrier_reuse(out: &mut [u32], rounds: u32) {
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 32).publish();
    let bar = bar.arrive().wait();
    // every thread is done with the object before its one thread invalidates it
    sync_threads();
    let bar = bar.inval(t == 0);
    let bar = bar.init(t == 0, 32).publish();
    let mut ring = bar.into_dynamic();
    for _ in 0..rounds {
        ring.arrive();
        ring.wait();
    }
    if t == 0 {
        ring.arrive_expect_tx(0);
    }
    out[t] = ring.parity();
}

/// Bulk copies global → shared completing on an mbarrier (plain and through `arrive_load`),
/// shared → global with bulk groups, fences, `elect.sync` and `nanosleep`.
#[kernel(target = "sm_90a")]
pub fn bulk_copies(x: &[[f32; 4]], y: &mut [[f32; 4]]) {
    let mut tile = shared_array::<[f32; 4], 256>();
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 1).publish();
    let bar = if t == 0 {
        bar.arrive_load(&mut tile, 0, x, block_idx_x() * 256, 256)
            .wait()
    } else {
        bar.observe()
    };
    // the leader may start the next phase only once every thread saw this one (§9.7.13.15.4)
    sync_threads();
    let bar = if t == 0 {
        bar.expect_tx(4096);
        bulk_load(&bar, &mut tile, 0, x, 0, 256);
        bar.arrive().wait()
    } else {
        bar.observe()
    };
    let v = tile[t];
    tile[t] = [v[0] * 2.0, v[1] * 2.0, v[2] * 2.0, v[3] * 2.0];
    fence_proxy_async();
    sync_threads();
    if elect_one() && warp_id() == 0 {
        bulk_store(y, block_idx_x() * 256, &tile, 0, 256);
        bulk_commit();
        bulk_wait_read(0);
        bulk_wait(0);
    }
    nanosleep(100);
    fence_acq_rel(Scope::Cta);
    fence_acq_rel(Scope::Cluster);
    fence_acq_rel(Scope::Gpu);
    fence_acq_rel(Scope::Sys);
    fence_sc(Scope::Cta);
    fence_sc(Scope::Cluster);
    fence_sc(Scope::Gpu);
    fence_sc(Scope::Sys);
    membar_cta();
    membar_gl();
    membar_sys();
    fence_mbarrier_init();
    bar.inval(t == 0);
}

/// The cluster barrier in every form, distributed shared memory through `mapa`, remote
/// arrive-on, and a multicast bulk copy.
#[kernel(cluster = "2,1,1", block = "128,1,1")]
pub fn cluster_forms(x: &[f32], out: &mut [f32]) {
    let mut mine = shared_array::<f32, 128>();
    let t = thread_idx_x();
    let rank = cluster_cta_rank();
    mine[t] = x[block_idx_x() * 128 + t];
    let bar = mbarrier().init(t == 0, 128).publish();
    let cluster = cluster_barrier();
    let cluster = cluster.arrive_release_aligned().wait_acquire_aligned();
    let peer = peer_shared(&mine, rank ^ 1);
    out[block_idx_x() * 128 + t] = peer[t];
    let cluster = cluster.arrive().wait();
    let cluster = cluster.arrive_release().wait_acquire();
    let cluster = cluster.arrive_relaxed().wait_aligned();
    let cluster = cluster.arrive_aligned().wait();
    let cluster = cluster.arrive_relaxed_aligned().wait();
    if t == 0 {
        bar.arrive_on_peer(rank ^ 1);
        bar.arrive_expect_tx_on_peer(rank ^ 1, 0);
        bar.arrive_drop_on_peer(rank ^ 1);
        bulk_load_multicast(&bar, &mut mine, 0, x, 0, 128, 3);
    }
    let _ = cluster.arrive().wait();
    let _ = bar;
}

/// Ampere's asynchronous copies completing on an mbarrier (`cp.async.mbarrier.arrive` with and
/// without `.noinc`), published with `bar.sync` alone: all sm_80.
#[kernel(target = "sm_80", block = "128,1,1")]
pub fn ampere_copies(x: &[[f32; 4]], y: &mut [[f32; 4]], words: &[u32]) {
    let mut tile = shared_array::<[f32; 4], 128>();
    let mut small = shared_array::<u32, 128>();
    let t = thread_idx_x();
    let [a, b] = publish_cta([mbarrier().init(t == 0, 128), mbarrier().init(t == 0, 128)]);
    cp_async(&mut tile, t, x, block_idx_x() * 128 + t);
    a.cp_async_arrive();
    let a = a.arrive().wait_test();
    cp_async(&mut small, t, words, t);
    b.cp_async_arrive_noinc();
    let b = b.observe_test();
    let v = tile[t];
    y[block_idx_x() * 128 + t] = [v[0] + small[t] as f32, v[1], v[2], v[3]];
    sync_threads();
    a.inval(t == 0);
    b.inval(t == 0);
}

/// Dynamic shared memory after a pipeline's buffers.
#[kernel(target = "sm_90")]
pub fn dynamic_memory(x: &[u32], out: &mut [u32]) {
    let pipe = pipeline::<u32, 2, 64>(thread_idx_x() == 0, 1, 32);
    let mut scratch = dynamic_shared::<u32>();
    let t = thread_idx_x();
    scratch[t] = x[t];
    sync_threads();
    out[t] = scratch[31 - t];
    if t == 0 {
        let mut producer = pipe.producer();
        producer.acquire().load(x, 0);
    } else if t < 33 {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        out[t] = slot.get(t - 1) + slot.stage();
        slot.release();
    }
}

/// Stores a box through a map the caller published: a written map goes to a device function
/// as any map does.
#[device]
fn store_box(
    m: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>,
    staging: &SharedArray<[bf16; 2], 2048>,
) {
    tma_store(&m, [0, 0], staging, 0);
    bulk_commit();
    bulk_wait(0);
}

/// A map written by the kernel (`tensormap.replace` of the address and a dimension, the
/// release and acquire fences) and used by a device function.
#[kernel(target = "sm_90a", block = "128,1,1")]
pub fn written_maps(
    a: TensorMap<bf16, Tile2<64, 64>, Swizzle128B>,
    maps: &mut [TensorMapSlot],
    data: &mut [bf16],
    rows: u32,
) {
    let staging = shared_array::<[bf16; 2], 2048>();
    if thread_idx_x() == 0 {
        a.edit(maps, block_idx_x())
            .address(data, block_idx_x() * 4096)
            .global_dim(1, rows)
            .release();
        let m = a.published(maps, block_idx_x());
        store_box(m, &staging);
    }
}
