//! `y = a * x`, one element per thread: the smallest kernel.
//!
//! `cargo run --example scale` prints its PTX.
// ANCHOR: readme
use phasegate::prelude::*;

/// Scales `x` by `a` into `y`; launch with at least `n` threads in total.
#[kernel]
pub fn scale(x: &[f32], y: &mut [f32], a: f32, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        y[i] = a * x[i];
    }
}

fn main() {
    println!("{}", scale::PTX);
}
// ANCHOR_END: readme
