//! The Hopper GEMM of `examples/gemm_hopper.rs`: simulated against a CPU reference (exact: the
//! inputs are small integers, whose products and sums f32 holds exactly, so the one rounding
//! is the final one to bf16), with the structure its PTX must have.

#[path = "../examples/gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;

use gemm_hopper::{
    gemm_fp8, gemm_fp8_e5m2, gemm_hopper as kernel, operand, reference, simulate, simulate_fp8,
};
use phasegate::prelude::{bf16, f8e4m3, f8e5m2};

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

/// The fp8 instances (stages of 128 of K, `m64n256k32` products, the scales on the f32 sums),
/// e4m3 and e5m2: exact on small integers (exact in both formats) over two clusters with ragged
/// edges, K not a multiple of the 128 of a stage (208: a row's stride is a multiple of 16
/// bytes, as tensor maps need).
#[test]
fn the_fp8_gemms_compute_the_exact_scaled_product() {
    let (m, n, k) = (384u32, 320u32, 208u32);
    let dims = (m as usize, n as usize, k as usize);
    let (a, b) = (operand(m, k, 7), operand(n, k, 8));
    let want = reference((&a, &b), dims, 0.375, bf16::to_f32);
    let e4m3 = |v: &[bf16]| {
        v.iter()
            .map(|x| f8e4m3::from_f32(x.to_f32()).to_bits())
            .collect()
    };
    let e5m2 = |v: &[bf16]| {
        v.iter()
            .map(|x| f8e5m2::from_f32(x.to_f32()).to_bits())
            .collect()
    };
    for (spec, ab, form) in [
        (gemm_fp8::SPEC, (e4m3(&a), e4m3(&b)), "e4m3.e4m3"),
        (gemm_fp8_e5m2::SPEC, (e5m2(&a), e5m2(&b)), "e5m2.e5m2"),
    ] {
        let c = simulate_fp8(&spec, (m, n, k), ab, 0.375, 4);
        assert!(c == want, "{}", spec.entry);
        let form = format!("wgmma.mma_async.sync.aligned.m64n256k32.f32.{form}");
        assert!(spec.ptx.contains(&form), "{}", spec.entry);
        assert!(spec.ptx.contains("mul.rn.f32"));
        assert_eq!(spec.dynamic_shared_bytes, 4 * 48 * 1024);
    }
}

/// The analyzer is silent on the three instances' PTX (what `#[kernel]` ran on them, and what
/// `phasegate lint` reads).
#[test]
fn the_analyzer_is_silent_on_every_instance() {
    for spec in [kernel::SPEC, gemm_fp8::SPEC, gemm_fp8_e5m2::SPEC] {
        let module = phasegate::ptx::parse(spec.ptx).unwrap_or_else(|e| panic!("{e}"));
        let found =
            phasegate::lints::lint_module(&module, &phasegate::lints::LintConfig::default());
        assert!(found.is_empty(), "{}: {found:#?}", spec.entry);
    }
}
