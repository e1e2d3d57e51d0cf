use phasegate::prelude::*;

fn helper(x: u32) -> u32 {
    x + 1
}

#[kernel]
fn k(out: &mut [u32]) {
    out[0] = helper(thread_idx_x());
}

fn main() {}
