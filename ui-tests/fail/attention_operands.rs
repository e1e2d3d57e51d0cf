use phasegate::prelude::*;

// What wgmma cannot read in attention's products is a compile error on the tokens that asked
// for it: box shapes against the accumulator, offsets within the stage, the ping-pong's ids.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn k(
    q: TensorMap<bf16, Tile3<64, 128, 2>, Swizzle128B>,
    kv: TensorMap<bf16, Tile3<64, 128, 2>, Swizzle128B>,
    short: TensorMap<bf16, Tile3<64, 64, 2>, Swizzle128B>,
    narrow: TensorMap<bf16, Tile3<32, 128, 2>, Swizzle64B>,
    scale: f32,
    at: u32,
) {
    let qp = pipeline::<bf16, 1, 16384>(thread_idx_x() == 0, 1, 256);
    let kvp = pipeline::<bf16, 2, 32768>(thread_idx_x() == 0, 1, 256);
    let wg = warp_id() / 4 - 1;
    let mut q_in = qp.consumer();
    let qs = q_in.wait();
    let mut consumer = kvp.consumer();
    let kvs = consumer.wait();
    // B's box has 64 rows; the accumulator's N is 128.
    let s = accumulator::<f32, 64, 128>().mma_tiles(&qs, &q, wg, &kvs, &short, 0);
    // Rows of 64 bytes under a 64-byte swizzle: not the 128-byte rows these products read.
    let s = s.mma_tiles(&qs, &q, wg, &kvs, &narrow, 0);
    // The offset is a run-time value, then one past the stage's end.
    let s = s.mma_tiles(&qs, &q, wg, &kvs, &kv, at);
    let s = s.mma_tiles(&qs, &q, wg, &kvs, &kv, 24576);
    let mut s = s.commit().wait::<0>();
    let mut softmax = online_softmax(scale);
    // V's rows hold 128 columns, the output 64.
    let mut small = accumulator::<f32, 64, 64>();
    let p = softmax.step(&mut s, &mut small);
    let small = small.mma_regs(&p, &kvs, &kv, 16384).commit();
    // Two groups on barriers 15 and 16: a CTA has 0..15.
    let baton = ping_pong::<15, 2>(wg);
    kvs.release();
    qs.release();
}

fn main() {}
