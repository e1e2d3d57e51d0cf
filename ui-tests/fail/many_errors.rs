use phasegate::prelude::*;

// Every problem of a kernel is reported at once, each on its own tokens.
#[kernel]
fn k(out: &mut [f32], a: f32) {
    let r = &a;
    let s = a % 2.0;
    let t = undefined_name + 1.0;
    out[0] = [a; 4][0];
}

fn main() {}
