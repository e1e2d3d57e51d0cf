use phasegate::prelude::*;

/// Publishes a value to the CTA: every thread must reach the barrier.
#[device]
fn publish_value(tile: &mut SharedArray<u32, 64>, t: u32, v: u32) -> u32 {
    tile[t] = v;
    sync_threads();
    tile[63 - t]
}

#[kernel]
fn divergent(out: &mut [u32]) {
    let mut tile = shared_array::<u32, 64>();
    let t = thread_idx_x();
    let mut v = t;
    if t < 16 {
        v = publish_value(&mut tile, t, t * 2);
    }
    out[t] = v;
}

fn main() {}
