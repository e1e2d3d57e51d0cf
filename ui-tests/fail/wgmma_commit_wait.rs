use phasegate::prelude::*;

// `commit` closes a batch of issued wgmmas; `wait::<K>()` applies to committed groups and
// leaves fewer than are in flight.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    // Nothing issued: an empty group.
    let empty = accumulator::<f32, 64, 64>().commit();
    // A wait while the batch is open does not wait for it.
    let open = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).wait::<0>();
    // One group in flight: `wait::<1>()` would not wait at all.
    let one = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit().wait::<1>();
    // An idle accumulator has nothing to wait for.
    let idle = accumulator::<f32, 64, 64>().wait::<0>();
    slot.release();
}

fn main() {}
