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

/// A device function calling an ordinary function: an error where it is defined.
#[device]
fn plus_one(x: u32) -> u32 {
    ordinary(x)
}

fn main() {}
