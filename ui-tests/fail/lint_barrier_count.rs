use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let a = named_barrier::<1, 64>();
    let b = named_barrier::<1, 128>();
    if warp_id() < 2 {
        a.sync();
    }
    if warp_id() < 4 {
        b.sync();
    }
    named_barrier_dyn(16, 64).sync();
    out[0] = 1;
}

fn main() {}
