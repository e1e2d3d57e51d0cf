use phasegate::prelude::*;

// An accumulator's registers are written asynchronously until its group completes: reading
// or storing it is a rustc error until `wait::<0>()`.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let issued = accumulator::<f32, 64, 64>().mma(&slot, &a, &b);
    // Issued, not even committed.
    c[0] = issued.get(0);
    let pending = issued.commit();
    // Committed, in flight.
    pending.store(c, 0, 64);
    // Waiting leaves one group pending: still in flight.
    let two = pending.mma(&slot, &a, &b).commit().wait::<1>();
    c[1] = two.get(1);
    // Its position in the tile is not a register read: fine in any state.
    c[2] = two.row(0) as f32;
    slot.release();
}

fn main() {}
