use phasegate::prelude::*;

// fp8 wgmma reads K-major tiles of 128-byte rows (K 32 a step): a box of 64 fp8 rows under a
// 128-byte swizzle is not one, and a transposed (N-major) B exists for 16-bit inputs only.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn k(
    a: TensorMap<f8e4m3, Tile2<128, 64>, Swizzle128B>,
    half_rows: TensorMap<f8e4m3, Tile2<64, 64>, Swizzle128B>,
    v: TensorMap<f8e4m3, Tile3<128, 64, 1>, Swizzle128B>,
    scale: f32,
) {
    let pipe = pipeline::<f8e4m3, 2, 16384>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if warp_id() == 0 && elect_one() {
            pipe.producer()
                .acquire()
                .load_tiles(&a, [0, 0], &a, [0, 0]);
        }
        return;
    }
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &half_rows, &a);
    let acc = acc.commit().wait::<0>();
    let mut softmax = online_softmax(scale);
    let mut out = accumulator::<f32, 64, 128>();
    let p = softmax.step(&acc, &mut out);
    let out = out.mma_regs(&p, &slot, &v, 0).commit().wait::<0>();
    slot.release();
}

fn main() {}
