use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    println!("thread {}", thread_idx_x());
    out[0] = 1;
}

fn main() {}
