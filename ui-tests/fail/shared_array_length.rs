use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [f32], n: u32) {
    let mut a = shared_array::<f32, 0>();
    let mut b = shared_array::<f32, 100000>();
    let mut c = shared_array::<bool, 4>();
    out[0] = 0.0;
}

fn main() {}
