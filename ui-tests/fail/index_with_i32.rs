use phasegate::prelude::*;

#[kernel]
fn k(x: &[f32], out: &mut [f32], i: i32) {
    out[0] = x[i];
}

fn main() {}
