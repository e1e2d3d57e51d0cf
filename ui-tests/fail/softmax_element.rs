use phasegate::prelude::*;

// P is rounded to the element type of the values it multiplies: a 16-bit float wgmma takes from
// registers (`.bf16` or `.f16` A of m64nNk16, PTX ISA §9.7.15.5.2).

// f16 values, P rounded to bf16 (the default): one product has one element type.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn bf16_p_against_f16_values(
    q: TensorMap<f16, Tile3<64, 128, 1>, Swizzle128B>,
    kv: TensorMap<f16, Tile3<64, 128, 1>, Swizzle128B>,
    scale: f32,
) {
    let qp = pipeline::<f16, 1, 8192>(thread_idx_x() == 0, 1, 256);
    let kp = pipeline::<f16, 2, 8192>(thread_idx_x() == 0, 1, 256);
    if warp_id() < 4 {
        return;
    }
    let wg = warp_id() / 4 - 1;
    let mut q_in = qp.consumer();
    let mut k_in = kp.consumer();
    let qs = q_in.wait();
    let ks = k_in.wait();
    let mut softmax = online_softmax(scale);
    let out = accumulator::<f32, 64, 64>();
    let mut out2 = accumulator::<f32, 64, 64>();
    let s = accumulator::<f32, 64, 128>()
        .mma_tiles(&qs, &q, wg, &ks, &kv, 0)
        .commit()
        .wait::<0>();
    let p = softmax.step(&s, &mut out2);
    let _out = out.mma_regs(&p, &ks, &kv, 0).commit().wait::<0>();
    ks.release();
    qs.release();
}

// Nor to a type wgmma does not take from registers.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn f32_p(scale: f32) {
    let softmax = online_softmax::<f32>(scale);
}

fn main() {}
