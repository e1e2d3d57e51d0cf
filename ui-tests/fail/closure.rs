use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [f32], a: f32) {
    let twice = |v: f32| v * 2.0;
    out[thread_idx_x()] = twice(a);
}

fn main() {}
