use phasegate::prelude::*;

// A stage goes back to its producer only once every wgmma group that reads it is complete:
// `wgmma.mma_async` reads shared memory until `wgmma.wait_group` completes its group (PTX ISA
// §9.7.15.7.3), and a released stage is overwritten by the producer's next load.

// The loop keeps one group in flight; the held stage's group completes at `wait::<1>()`, not
// before it.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn released_before_the_wait(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    k_tiles: u32,
) {
    let pipe = pipeline::<f32, 4, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    let mut held = slot.retire();
    for _ in 1..k_tiles {
        let slot = consumer.wait();
        let issued = acc.mma(&slot, &a, &b).commit();
        held.release();
        acc = issued.wait::<1>();
        held = slot.retire();
    }
    let acc = acc.wait::<0>();
    held.release();
    acc.store(c, 0, 64);
}

// `wait::<1>()` completes the older group; the newer one, which read `second`, is in flight.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn the_newer_group(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let first = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&first, &a, &b).commit();
    let first = first.retire();
    let second = consumer.wait();
    let acc = acc.mma(&second, &a, &b).commit().wait::<1>();
    first.release();
    second.release();
    let acc = acc.wait::<0>();
    acc.store(c, 0, 64);
}

// `wait_scores` completes the scores' group only; the output's, which reads the values in
// `vs`, runs until the softmax waits for it.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn values_released_before_the_softmax(
    q: TensorMap<bf16, Tile3<64, 128, 1>, Swizzle128B>,
    kv: TensorMap<bf16, Tile3<64, 128, 1>, Swizzle128B>,
    lse: &mut [f32],
    scale: f32,
) {
    let qp = pipeline::<bf16, 1, 8192>(thread_idx_x() == 0, 1, 256);
    let kp = pipeline::<bf16, 2, 8192>(thread_idx_x() == 0, 1, 256);
    let vp = pipeline::<bf16, 2, 8192>(thread_idx_x() == 0, 1, 256);
    if warp_id() < 4 {
        return;
    }
    let wg = warp_id() / 4 - 1;
    let mut q_in = qp.consumer();
    let mut k_in = kp.consumer();
    let mut v_in = vp.consumer();
    let qs = q_in.wait();
    let mut softmax = online_softmax(scale);
    let mut out = accumulator::<f32, 64, 64>();
    let ks = k_in.wait();
    let s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &ks, &kv, 0)
        .commit()
        .wait::<0>();
    ks.release();
    let mut p = softmax.step(&s, &mut out);
    let vs = v_in.wait();
    let ks = k_in.wait();
    let s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &ks, &kv, 0)
        .commit();
    let both = out.mma_regs(&p, &vs, &kv, 0).commit_behind(s);
    let both = both.wait_scores();
    ks.release();
    vs.release();
    let mut out = both.softmax(&mut softmax, &mut p);
    let row_lse = softmax.finish(&mut out);
    row_lse.store(lse, 0, 64);
    qs.release();
}

/// Gives a stage back: where the caller's group that read it is still in flight, the release
/// here is the early one.
#[device]
fn give_back<const STAGES: usize, const TILE: usize>(slot: ConsumerSlot<'_, f32, STAGES, TILE>) {
    slot.release();
}

// Device functions are followed into: the release in `give_back` is early at the first call,
// where the group that read the stage is in flight, and fine at the second, after the wait.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn through_a_device_function(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    give_back(slot);
    let acc = acc.wait::<0>();
    let slot = consumer.wait();
    let acc = acc.mma(&slot, &a, &b).commit().wait::<0>();
    give_back(slot);
    acc.store(c, 0, 64);
}

fn main() {}
