use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let t = thread_idx_x();
    if t < 16 {
        // half a warp reaches a barrier that every thread of the CTA must reach
        sync_threads();
    }
    out[t] = t;
}

fn main() {}
