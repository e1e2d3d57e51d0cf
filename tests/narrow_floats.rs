//! The storage floats `f16`, `bf16`, `f8e4m3`, `f8e5m2` in kernels: loads, stores, vectors,
//! shared arrays, parameters and `as` conversions, simulated against the host types
//! (`half`, `float8`) and assembled by ptxas.

use phasegate::prelude::*;
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::sim::{Launch, RunError};

#[kernel]
fn axpy_halves(x: &[bf16], y: &[f16], out_b: &mut [bf16], out_h: &mut [f16], a: f32, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let v = x[i] as f32 * a + y[i] as f32;
        out_b[i] = v as bf16;
        out_h[i] = v as f16;
    }
}

fn launch(threads: u32) -> Launch {
    Launch {
        grid: (threads.div_ceil(128), 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    }
}

#[test]
fn bf16_and_f16_round_trip_through_f32() -> Result<(), RunError> {
    let n = 300u32;
    let x: Vec<bf16> = (0..n).map(|i| bf16::from_f32(i as f32 * 0.37 - 40.0)).collect();
    let y: Vec<f16> = (0..n).map(|i| f16::from_f32(1.0 / (i as f32 + 0.5))).collect();
    let (mut ob, mut oh) = (vec![bf16::ZERO; n as usize], vec![f16::ZERO; n as usize]);
    let a = 1.7f32;
    axpy_halves::simulate(&launch(n), (&x[..], &y[..], &mut ob[..], &mut oh[..], a, n))?;
    for i in 0..n as usize {
        let v = x[i].to_f32() * a + y[i].to_f32();
        assert_eq!(ob[i].to_bits(), bf16::from_f32(v).to_bits(), "bf16 at {i}");
        assert_eq!(oh[i].to_bits(), f16::from_f32(v).to_bits(), "f16 at {i}");
    }
    Ok(())
}

#[test]
fn print() {
    println!("{}", axpy_halves::PTX);
}
