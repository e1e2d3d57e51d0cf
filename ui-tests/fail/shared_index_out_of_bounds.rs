use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let mut tile = shared_array::<f32, 32>();
    tile[32] = 1.0;
    out[0] = tile[0];
}

fn main() {}
