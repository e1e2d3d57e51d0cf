use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let b = named_barrier::<1, 48>();
    b.sync();
    let c = reduction_barrier::<2, 0>();
    out[0] = c.popc(true);
}

fn main() {}
