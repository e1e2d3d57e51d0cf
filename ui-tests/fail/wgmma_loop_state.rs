use phasegate::prelude::*;

// A loop's accumulator has one type at every iteration: committing a group per iteration
// without waiting would pile up groups without bound.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    k_tiles: u32,
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let mut acc = accumulator::<f32, 64, 64>();
    for _ in 0..k_tiles {
        let slot = consumer.wait();
        acc = acc.mma(&slot, &a, &b).commit();
        slot.release();
    }
    acc.store(c, 0, 64);
}

fn main() {}
