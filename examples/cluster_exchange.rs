//! Two CTAs of a cluster exchange data through distributed shared memory: each writes its
//! part into its own shared array, the cluster barrier makes the writes visible, each reads the
//! peer's array through `mapa`, and a second cluster barrier keeps each CTA's shared memory
//! alive until its peer has read it.
//!
//! Launch: clusters of 2 CTAs (`SPEC.cluster_dims`), 128 threads each.
//! `cargo run --example cluster_exchange` prints the PTX.

use phasegate::prelude::*;

/// `out[b * 128 + t] = x[peer * 128 + t]` where `peer` is the other CTA of `b`'s cluster.
#[kernel(cluster = "2,1,1")]
pub fn cluster_exchange(x: &[f32], out: &mut [f32]) {
    let mut mine = shared_array::<f32, 128>();
    let t = thread_idx_x();
    let block = block_idx_x();
    mine[t] = x[block * 128 + t];
    let cluster = cluster_barrier()
        .arrive_release_aligned()
        .wait_acquire_aligned();
    let peer = peer_shared(&mine, cluster_cta_rank() ^ 1);
    out[block * 128 + t] = peer[t];
    // The peer may still read `mine`: leave only when both have read.
    let _ = cluster.arrive_release_aligned().wait_acquire_aligned();
}

fn main() {
    println!("{:?}", cluster_exchange::SPEC.cluster_dims);
    println!("{}", cluster_exchange::PTX);
}
