use phasegate::prelude::*;

// The overlap of a softmax with the previous P · V is typed: the scores must be a committed
// group and the output an open batch when `commit_behind` orders them, and the scores are
// readable only after `wait_scores` (`wgmma.wait_group 1`).
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
    let s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &kvs, &kv, 0)
        .commit()
        .wait::<0>();
    let mut p = softmax.step(&s, &mut out);
    // The scores' batch is not committed: nothing orders the two groups.
    let open = accumulator::<f32, 64, 128>().mma_tiles(&qs, &q, wg, &kvs, &kv, 0);
    let both = out.mma_regs(&p, &kvs, &kv, 8192).commit_behind(open);
    // The output has no open batch to commit behind the scores.
    let s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &kvs, &kv, 0)
        .commit();
    let idle = accumulator::<f32, 64, 64>();
    let again = idle.commit_behind(s);
    // The scores' group may still run: no softmax before `wait_scores`.
    let out = again.softmax(&mut softmax, &mut p);
    kvs.release();
    qs.release();
}

fn main() {}
