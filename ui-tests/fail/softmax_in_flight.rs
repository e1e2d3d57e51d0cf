use phasegate::prelude::*;

// The softmax reads the scores and rescales the output in registers: both must be complete
// (`wait::<0>()`), as must an accumulator that is masked.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn k(
    q: TensorMap<bf16, Tile3<64, 128, 1>, Swizzle128B>,
    kv: TensorMap<bf16, Tile3<64, 128, 1>, Swizzle128B>,
    scale: f32,
) {
    let qp = pipeline::<bf16, 1, 8192>(thread_idx_x() == 0, 1, 256);
    let kvp = pipeline::<bf16, 2, 16384>(thread_idx_x() == 0, 1, 256);
    if warp_id() < 4 {
        if warp_id() == 0 && elect_one() {
            qp.producer().acquire().load_tile(&q, [0, 0, 0]);
            kvp.producer().acquire().load_tiles(&kv, [0, 0, 0], &kv, [0, 0, 0]);
        }
        return;
    }
    let wg = warp_id() / 4 - 1;
    let mut q_in = qp.consumer();
    let qs = q_in.wait();
    let mut consumer = kvp.consumer();
    let kvs = consumer.wait();
    let mut softmax = online_softmax(scale);
    let mut out = accumulator::<f32, 64, 64>();
    let mut s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &kvs, &kv, 0)
        .commit();
    // The scores are still being written.
    s.mask_columns(100);
    let p = softmax.step(&s, &mut out);
    let s = s.wait::<0>();
    let pending = out.mma_regs(&p, &kvs, &kv, 8192).commit();
    let mut pending = pending;
    // The output is in flight: rescaling it races with the wgmma writing it.
    let p = softmax.step(&s, &mut pending);
    let out = pending.wait::<0>();
    let mut out = out.mma_regs(&p, &kvs, &kv, 8192).commit();
    // Nor can it be normalised before its last group completes.
    let lse = softmax.finish(&mut out);
    kvs.release();
    qs.release();
}

fn main() {}
