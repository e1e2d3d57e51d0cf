//! A Hopper GEMM given as PTX, run against cuBLAS on the same device buffers: checked within
//! bf16 tolerance, then timed in interleaved rounds whose per-round ratios
//! `tools/gpu-bench/ratios.py` pools into a confidence interval (the pipeline benchmark's
//! statistics). The binary `gemm-bench` needs the feature `cuda`; what runs without a GPU
//! (numbers, tolerance, argument forms) is here and tested in CI.

pub mod grouped;
pub mod numeric;
pub mod shape;

#[cfg(feature = "cuda")]
pub mod cublas;
#[cfg(feature = "cuda")]
pub mod cublaslt;
#[cfg(feature = "cuda")]
pub mod gpu;

/// The median of `xs` (the mean of the middle two for an even count; NaN when empty).
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(super::median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(super::median(&[]).is_nan());
    }
}
