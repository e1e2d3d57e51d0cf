use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let b = named_barrier::<16, 64>();
    b.sync();
    out[0] = 1;
}

fn main() {}
