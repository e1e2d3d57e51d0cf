use phasegate::prelude::*;

fn ordinary(x: u32) -> u32 {
    x + 1
}

#[kernel]
fn k(out: &mut [u32]) {
    let t = thread_idx_x();
    out[t] = ordinary(t);
}

#[kernel]
fn k2(out: &mut [u32]) {
    out[thread_idx_x()] = missing(1);
}

fn main() {}
