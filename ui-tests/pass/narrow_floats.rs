use phasegate::prelude::*;

/// A bf16 tile through shared memory, scaled in f32, out as bf16 and as fp8 with a per-row
/// scale: what the prologue and epilogue of a low-precision GEMM do.
#[kernel(block = "128,1,1")]
fn quantize_rows(
    x: &[[bf16; 8]],
    out: &mut [[bf16; 8]],
    q: &mut [[f8e4m3; 4]],
    scale: bf16,
    limit: f16,
    flags: &mut [u32],
) {
    let t = thread_idx_x();
    let mut tile = shared_array::<[bf16; 8], 128>();
    tile[t] = x[block_idx_x() * 128 + t];
    sync_threads();
    let row = tile[127 - t];
    let s = scale as f32;
    let mut y: [bf16; 8] = row;
    y[0] = (row[0] as f32 * s) as bf16;
    out[block_idx_x() * 128 + t] = y;
    let lo: [f8e4m3; 4] = [
        row[0] as f8e4m3,
        row[1] as f8e4m3,
        (row[2] as f32 * s) as f8e4m3,
        0.0f32 as f8e4m3,
    ];
    q[block_idx_x() * 128 + t] = lo;
    let big = row[3] as f16 > limit || row[4] != row[4];
    flags[t] = big as u32 + (row[5] as i32 as u32);
}

fn main() {
    let ptx = quantize_rows::PTX;
    assert!(ptx.contains("cvt.rn.satfinite.e4m3x2.f32"));
    assert!(ptx.contains("ld.global.nc.v4.b32"));
    assert_eq!(quantize_rows::TARGET, "sm_89");
}
