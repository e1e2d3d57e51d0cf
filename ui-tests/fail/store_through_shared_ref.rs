use phasegate::prelude::*;

#[kernel]
fn k(x: &[f32], a: f32) {
    x[thread_idx_x()] = a;
}

fn main() {}
