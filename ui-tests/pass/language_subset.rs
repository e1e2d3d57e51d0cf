//! Kernels with no errors compile, and their modules are usable.
use phasegate::prelude::*;

/// Doc comments carry over to the kernel's module.
#[kernel]
pub fn saxpy(x: &[f32], y: &mut [f32], a: f32, n: u32) {
    let stride = block_dim_x() * grid_dim_x();
    for i in (block_idx_x() * block_dim_x() + thread_idx_x()..n).step_by(stride) {
        y[i] = a.mul_add(x[i], y[i]);
    }
}

#[kernel(crate = "phasegate", target = "sm_90")]
fn histogram(values: &[u32], bins: &mut [u32]) {
    let mut counts = shared_array::<u32, 64>();
    let t = thread_idx_x();
    if t < 64 {
        counts[t] = 0;
    }
    sync_threads();
    let v = values[block_idx_x() * block_dim_x() + t] & 63;
    if v == t {
        counts[v] = counts[v] + 1;
    }
    sync_threads();
    if t < 64 {
        bins[t] = counts[t];
    }
}

fn main() {
    assert_eq!(saxpy::ENTRY, "saxpy");
    assert!(saxpy::PTX.contains("fma.rn.f32"));
    assert_eq!(histogram::TARGET, "sm_90");
    let _spec: KernelSpec = histogram::SPEC;
}
