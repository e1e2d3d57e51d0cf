use phasegate::prelude::*;

// wgmma is issued by every thread of a warp group (PTX ISA §9.7.15.5.2); here only the lanes
// that pass a per-thread test issue it, which the typestate cannot see but the analyzer can.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    limit: u32,
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 && elect_one() {
        let mut producer = pipe.producer();
        producer.acquire().load_tiles(&a, [0, 0], &b, [0, 0]);
    } else if warp_id() >= 4 {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        if lane_id() < limit {
            let acc = accumulator::<f32, 64, 64>()
                .mma(&slot, &a, &b)
                .commit()
                .wait::<0>();
            acc.store(c, 0, 64);
        }
        slot.release();
    }
}

fn main() {}
