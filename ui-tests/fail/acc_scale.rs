use phasegate::prelude::*;

// `scale` multiplies the f32 sums by an f32 (fp8's per-tensor scales), once they are complete.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f8e4m3, Tile2<128, 64>, Swizzle128B>,
    b: TensorMap<f8e4m3, Tile2<128, 64>, Swizzle128B>,
    c: &mut [f32],
    scale: f32,
    count: u32,
) {
    let pipe = pipeline::<f8e4m3, 2, 16384>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    // In flight: the wgmma still writes the registers.
    acc.scale(scale);
    let mut acc = acc.wait::<0>();
    slot.release();
    // Not an f32.
    acc.scale(count);
    acc.store(c, 0, 64);
}

fn main() {}
