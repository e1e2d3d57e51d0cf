//! A dot product: a grid-stride loop per thread, then a tree reduction in shared memory with
//! `sync_threads()` between its levels; each block writes one partial sum.
//!
//! Launch with 256 threads per block; sum the `grid_dim_x()` partials on the host.
//! `cargo run --example dot` prints its PTX.

use phasegate::prelude::*;

/// `partial[b] = Σ x[i] * y[i]` over the elements block `b` visits.
#[kernel]
pub fn dot(x: &[f32], y: &[f32], partial: &mut [f32], n: u32) {
    const THREADS: u32 = 256;
    let mut cache = shared_array::<f32, 256>();
    let tid = thread_idx_x();
    let mut sum = 0.0f32;
    let stride = block_dim_x() * grid_dim_x();
    for i in (block_idx_x() * block_dim_x() + tid..n).step_by(stride) {
        sum = x[i].mul_add(y[i], sum);
    }
    cache[tid] = sum;
    sync_threads();
    let mut half = THREADS / 2;
    while half > 0 {
        if tid < half {
            cache[tid] = cache[tid] + cache[tid + half];
        }
        sync_threads();
        half /= 2;
    }
    if tid == 0 {
        partial[block_idx_x()] = cache[0];
    }
}

fn main() {
    println!("{}", dot::PTX);
}
