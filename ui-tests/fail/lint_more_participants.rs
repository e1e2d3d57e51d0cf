use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let t = thread_idx_x();
    if t < 96 {
        // three warps on a barrier counted for two: the third waits for an instance that
        // never completes
        named_barrier::<1, 64>().sync();
    }
    out[t] = t;
}

fn main() {}
