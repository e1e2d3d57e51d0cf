use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    // bar.arrive needs a thread count (PTX ISA 9.7.13.1)
    cta_barrier::<0>().arrive();
    out[0] = 1;
}

fn main() {}
