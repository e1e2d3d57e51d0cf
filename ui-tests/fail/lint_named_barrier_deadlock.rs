use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let first = named_barrier::<1, 64>();
    let second = named_barrier::<2, 64>();
    if warp_id() == 0 {
        first.sync();
        second.arrive();
    } else if warp_id() == 1 {
        // waits for what warp 0 only gives after it has passed `first`
        second.sync();
        first.arrive();
    }
    out[thread_idx_x()] = 1;
}

/// Blocks of exactly 96 threads: one warp waits at a barrier of 64 that nobody else reaches.
#[kernel(block = "96,1,1")]
fn short(out: &mut [u32]) {
    if warp_id() == 0 {
        named_barrier::<1, 64>().sync();
    }
    out[thread_idx_x()] = 1;
}

fn main() {}
