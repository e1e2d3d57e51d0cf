use phasegate::prelude::*;

// `add` sums another accumulator of the same shape into this one (fp8's promotion), and
// `reset` starts an accumulator over: both on complete accumulators only.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f8e4m3, Tile2<128, 64>, Swizzle128B>,
    b: TensorMap<f8e4m3, Tile2<128, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f8e4m3, 2, 16384>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let mut total = accumulator::<f32, 64, 64>();
    let part = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    // In flight: the wgmma still writes its registers.
    total.add(&part);
    let part = part.wait::<0>();
    slot.release();
    // Another shape.
    let wide = accumulator::<f32, 64, 128>();
    total.add(&wide);
    total.add(&part);
    // Reset while in flight.
    let slot = consumer.wait();
    let again = part.reset().mma(&slot, &a, &b).commit();
    let again = again.reset();
    total.store(c, 0, 64);
}

fn main() {}
