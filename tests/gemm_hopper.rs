//! The Hopper GEMM of `examples/gemm_hopper.rs`: simulated against a CPU reference (exact: the
//! inputs are small integers, whose products and sums f32 holds exactly, so the one rounding
//! is the final one to bf16), with the structure its PTX must have.

#[path = "../examples/gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;

use gemm_hopper::{
    gemm_fp8, gemm_hopper as kernel, operand, operand_fp8, reference, simulate, simulate_fp8,
};
use half::bf16;

#[test]
fn one_cluster_computes_the_exact_product() {
    let (m, n, k) = (256u32, 256u32, 128u32);
    let (a, b) = (operand(m, k, 3), operand(n, k, 4));
    let c = simulate(m, n, k, &a, &b, 2);
    let dims = (m as usize, n as usize, k as usize);
    assert_eq!(c, reference((&a, &b), dims, 1.0, bf16::to_f32));
}

#[test]
fn two_clusters_share_the_work_units_and_ragged_edges_are_clipped() {
    // 3 units for 2 clusters (one takes two, the ring wraps), K not a multiple of the 64 of a
    // stage, M and N not multiples of the tile: the loads fill zeros, the stores clip.
    let (m, n, k) = (384u32, 320u32, 200u32);
    let (a, b) = (operand(m, k, 5), operand(n, k, 6));
    let c = simulate(m, n, k, &a, &b, 4);
    let dims = (m as usize, n as usize, k as usize);
    assert_eq!(c, reference((&a, &b), dims, 1.0, bf16::to_f32));
}

#[test]
fn the_ptx_has_the_blueprint_structure() {
    let p = kernel::PTX;
    let count = |s: &str| p.matches(s).count();
    assert!(p.contains(".maxnreg 168"));
    assert!(p.contains(".reqnctapercluster 2, 1, 1"));
    assert!(p.contains("setmaxnreg.dec.sync.aligned.u32 \t40;"));
    assert!(p.contains("setmaxnreg.inc.sync.aligned.u32 \t232;"));
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
    assert!(count(".multicast::cluster") >= 1);
    assert!(
        count("mbarrier.arrive.shared::cluster.b64") >= 2,
        "releases on both CTAs"
    );
    assert!(
        !p.contains("release.cluster.shared::cluster"),
        "no GPU-wide fence per release"
    );
    assert!(p.contains("cvt.rn.bf16x2.f32"));
    assert!(p.contains("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"));
    assert_eq!(kernel::SPEC.dynamic_shared_bytes, 4 * 48 * 1024);
}

/// The fp8 instance (e4m3 stages of 128 of K, `m64n256k32` products, the scales on the f32
/// sums): exact on small integers over two clusters with ragged edges, K not a multiple of the
/// 128 of a stage (208: a row's stride is a multiple of 16 bytes, as tensor maps need).
#[test]
fn the_fp8_gemm_computes_the_exact_scaled_product() {
    let (m, n, k) = (384u32, 320u32, 208u32);
    let (a, b) = (operand_fp8(m, k, 7), operand_fp8(n, k, 8));
    let c = simulate_fp8((m, n, k), &a, &b, 0.375, 4);
    let dims = (m as usize, n as usize, k as usize);
    let want = reference((&a, &b), dims, 0.375, phasegate::prelude::f8e4m3::to_f32);
    assert!(c == want);
    let p = gemm_fp8::PTX;
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3"));
    assert!(p.contains("mul.rn.f32"));
    assert_eq!(gemm_fp8::SPEC.dynamic_shared_bytes, 4 * 48 * 1024);
}
