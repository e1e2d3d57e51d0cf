use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let t = thread_idx_x();
    let mut count = 0u32;
    if warp_id() < 2 {
        named_barrier::<1, 64>().arrive();
    } else if warp_id() < 4 {
        // the same barrier 1, reduced on while the other warps' arrive may be pending on it
        count = reduction_barrier::<1, 64>().popc(t % 3 == 0);
    }
    out[t] = count;
}

fn main() {}
