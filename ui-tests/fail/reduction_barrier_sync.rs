use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // bar.red and bar.sync on one barrier are unpredictable: reduction handles cannot sync
    let r = reduction_barrier::<1, 64>();
    let n = r.popc(thread_idx_x() % 2 == 0);
    r.sync();
    out[0] = n;
}

fn main() {}
