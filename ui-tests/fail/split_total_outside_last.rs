use phasegate::prelude::*;

// A split sum's parts are all stored only once every part has arrived: the warp group that
// drew the last ticket reads the total. `total()` outside `if arrival.last() { .. }` would read
// parts other CTAs are still storing, so it does not compile; the same inside the `else`, or
// under a condition that is not the arrival's own `last()`.

#[kernel(target = "sm_90a", block = "128,1,1")]
fn total_without_the_test(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    partials: &mut [f32],
    arrivals: &mut [u32],
    splits: u32,
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit().wait::<0>();
    slot.release();
    let group = named_barrier_dyn(1, 128);
    let arrival = acc
        .store_partial(partials, 0, block_idx_x(), 4096)
        .arrive(arrivals, 0, splits, &group);
    let total = arrival.total();
    total.store(c, 0, 64);
}

#[kernel(target = "sm_90a", block = "128,1,1")]
fn total_in_the_other_branch(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    partials: &mut [f32],
    arrivals: &mut [u32],
    splits: u32,
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit().wait::<0>();
    slot.release();
    let group = named_barrier_dyn(1, 128);
    let arrival = acc
        .store_partial(partials, 0, block_idx_x(), 4096)
        .arrive(arrivals, 0, splits, &group);
    if !arrival.last() {
        arrival.total().store(c, 0, 64);
    }
}

fn main() {}
