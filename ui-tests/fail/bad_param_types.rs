use phasegate::prelude::*;

#[kernel]
fn k(v: Vec<f32>, s: &str, flags: &[bool], out: &mut [u8]) {
    out[0] = 1;
}

fn main() {}
