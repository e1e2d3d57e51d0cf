//! Quantization to the storage floats: f32 to `f16`, `bf16`, `f8e4m3`, `f8e5m2` (rounding to
//! nearest even; fp8 saturating), once from f64 for the halves, and every result widened back
//! to f32. The GPU differential (`tests/gpu.rs`) runs it on edge values — ties, overflow,
//! infinities, NaN, subnormals — so the simulator's `cvt` is held to the hardware's.
//!
//! `cargo run --example quantize` prints its PTX.

use phasegate::prelude::*;

/// Element `i` of `x` into `h`, `b`, `q4` and `q5`, with the halves rounded once from
/// `x[i] + 2^-40` in f64 (`cvt.rn.f16.f64`, `cvt.rn.bf16.f64`); `back[i]` holds the four
/// results as f32. Launch with at least `n` threads in total.
#[kernel]
pub fn quantize(
    x: &[f32],
    h: &mut [f16],
    b: &mut [bf16],
    q4: &mut [f8e4m3],
    q5: &mut [f8e5m2],
    back: &mut [[f32; 4]],
    n: u32,
) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let v = x[i];
        // Just above `v`: where `v` is a tie of f16 or bf16, rounding once goes up.
        let above = v as f64 + 9.094947017729282e-13;
        let hv = above as f16;
        let bv = above as bf16;
        let e4 = v as f8e4m3;
        let e5 = v as f8e5m2;
        h[i] = hv;
        b[i] = bv;
        q4[i] = e4;
        q5[i] = e5;
        back[i] = [hv as f32, bv as f32, e4 as f32, e5 as f32];
    }
}

fn main() {
    println!("{}", quantize::PTX);
}
