use phasegate::prelude::*;

// Vectors move in one access: [f16 or bf16; 2, 4 or 8] and [fp8; 2, 4, 8 or 16].
#[kernel]
fn k(x: &[[bf16; 3]], y: &mut [[f8e4m3; 32]], z: &mut [f16]) {
    let tile = shared_array::<[f16; 16], 4>();
    let v: [f16; 6] = [z[0], z[1], z[2], z[3], z[4], z[5]];
    let p = [z[0], z[1], z[2]];
}

fn main() {}
