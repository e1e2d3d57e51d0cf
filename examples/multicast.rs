//! A bulk copy multicast to both CTAs of a cluster: the CTA of rank 0 reads each 512-byte tile
//! of `x` from global memory once, and `cp.async.bulk ... .multicast::cluster` writes it into the
//! shared memory of both CTAs, completing the transaction bytes on each CTA's own mbarrier
//! (at the same offset in each). Each CTA expects the bytes on its barrier, waits, and writes
//! the tile out, so `out[b * 128 + t] = x[(b / 2) * 128 + t]`.
//!
//! Launch: clusters of 2 CTAs (`SPEC.cluster_dims`), 128 threads each.
//! `cargo run --example multicast` prints the PTX.

use phasegate::prelude::*;

/// Both CTAs of cluster `c` receive tile `c` of `x` from one multicast copy.
#[kernel(target = "sm_90a", cluster = "2,1,1")]
pub fn multicast_tile(x: &[f32], out: &mut [f32]) {
    let mut tile = shared_array::<f32, 128>();
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 1).publish();
    // The copy signals the barriers of both CTAs: both must be initialised before it is issued.
    let _cluster = cluster_barrier()
        .arrive_release_aligned()
        .wait_acquire_aligned();
    let _bar = if t == 0 {
        bar.expect_tx(512);
        if cluster_cta_rank() == 0 {
            bulk_load_multicast(&bar, &mut tile, 0, x, (block_idx_x() / 2) * 128, 128, 3);
        }
        bar.arrive().wait()
    } else {
        bar.observe()
    };
    // Each CTA waited for its own copy; nothing else crosses the cluster.
    out[block_idx_x() * 128 + t] = tile[t];
}

fn main() {
    println!("{}", multicast_tile::PTX);
}
