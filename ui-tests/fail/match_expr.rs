use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32], n: u32) {
    let i = thread_idx_x();
    out[i] = match n {
        0 => 1,
        _ => 2,
    };
}

fn main() {}
