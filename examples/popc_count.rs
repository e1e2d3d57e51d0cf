//! Counting with `bar.red.popc`: every thread of the block contributes one predicate and every
//! thread gets the block's count back, with no shared memory and one barrier.
//!
//! Launch: any block size (a multiple of 32), one element per thread.
//! `cargo run --example popc_count` prints the PTX.

use phasegate::prelude::*;

/// `counts[block] = #{ i in the block : values[i] > threshold }`.
#[kernel]
pub fn popc_count(values: &[f32], counts: &mut [u32], threshold: f32, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    let above = i < n && values[i] > threshold;
    let count = cta_reduction_barrier::<0>().popc(above);
    if thread_idx_x() == 0 {
        counts[block_idx_x()] = count;
    }
}

fn main() {
    println!("{}", popc_count::PTX);
}
