use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let (a, b) = (thread_idx_x(), block_idx_x());
    out[a] = b;
}

fn main() {}
