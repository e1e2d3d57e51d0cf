use phasegate::prelude::*;

#[kernel(allow(barrier_red_synk_mix))]
fn k(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
