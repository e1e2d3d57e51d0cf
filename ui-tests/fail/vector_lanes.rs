use phasegate::prelude::*;

#[kernel]
fn k(x: &[[f32; 4]], out: &mut [f32], j: u32) {
    let v = x[thread_idx_x()];
    out[0] = v[4];
    out[1] = v[j as usize];
}

fn main() {}
