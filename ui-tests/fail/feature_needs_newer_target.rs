use phasegate::prelude::*;

#[kernel(target = "sm_80")]
fn k(out: &mut [u32]) {
    out[thread_idx_x()] = cluster_cta_rank();
}

fn main() {}
