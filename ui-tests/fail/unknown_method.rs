use phasegate::prelude::*;

#[kernel]
fn k(x: &[f32], out: &mut [f32]) {
    let i = thread_idx_x();
    out[i] = x[i].powf(2.0);
}

fn main() {}
