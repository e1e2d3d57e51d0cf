//! wgmma in the kernel language: `examples/wgmma_gemm.rs` simulated under several schedules
//! and K lengths against a CPU reference (exact: small integers are exact in tf32 and their
//! products' sums exact in f32, which the simulator rounds once), the PTX the accumulator's
//! methods lower to, elements read by `get` at their `row`/`col`, and what the simulator reports
//! in PTX: a main loop that gives its stage back before the wgmma group reading it completes
//! (which `#[kernel]` refuses, so the PTX is a fixture), and a wgmma that only part of the
//! warpgroup issues.

#[path = "../examples/wgmma_gemm.rs"]
#[allow(dead_code)]
mod wgmma_gemm;

use phasegate::prelude::*;
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::KernelSpec;
use phasegate::runtime::sim::{
    ArgValue, FindingKind, Launch, Outcome, Policy, RunError, Schedule, TensorMapArg, simulate_spec,
};
use wgmma_gemm::{operand, reference, run};

fn check(m: u32, n: u32, k: u32, schedule: Schedule) {
    let (a, b) = (operand(m, k, 3), operand(n, k, 4));
    let c = run(
        m,
        n,
        k,
        &a,
        &b,
        Launch {
            schedule,
            ..Launch::default()
        },
    );
    let want = reference(&a, &b, m as usize, n as usize, k as usize);
    for (i, (got, want)) in c.iter().zip(&want).enumerate() {
        assert_eq!(
            got,
            want,
            "C[{}][{}] of {m} × {n} × {k} under {schedule}",
            i / n as usize,
            i % n as usize
        );
    }
}

#[test]
fn the_gemm_matches_the_reference_under_every_policy() {
    for policy in [Policy::RoundRobin, Policy::Random, Policy::Pct { depth: 3 }] {
        for seed in 1..=2 {
            check(128, 64, 256, Schedule { policy, seed });
        }
    }
}

#[test]
fn one_k_tile_and_more_than_sixteen_wrap_the_ring() {
    // One K-tile: the main loop does not run; 18: the loop runs 17 times, past its 16-copy
    // unrolled body, and the 4-stage ring wraps four times.
    check(64, 128, 32, Schedule::default());
    check(64, 64, 18 * 32, Schedule::default());
}

#[test]
fn the_main_loop_lowers_to_fenced_batches_with_one_group_in_flight() {
    let ptx = wgmma_gemm::wgmma_gemm::PTX;
    let mma = "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32";
    // Four K steps per stage (32 / 8); the prologue's batch and the 16 + 1 copies of the loop.
    assert_eq!(ptx.matches(mma).count(), 4 * 18, "{ptx}");
    assert_eq!(ptx.matches("wgmma.fence.sync.aligned").count(), 18);
    assert_eq!(ptx.matches("wgmma.commit_group.sync.aligned").count(), 18);
    assert_eq!(
        ptx.matches("wgmma.wait_group.sync.aligned \t1;").count(),
        17
    );
    assert_eq!(ptx.matches("wgmma.wait_group.sync.aligned \t0;").count(), 1);
    // Each batch's fence comes right before its first wgmma.
    let lines: Vec<&str> = ptx.lines().map(str::trim).collect();
    for (i, l) in lines.iter().enumerate() {
        if l.starts_with("wgmma.fence") {
            assert!(lines[i + 1].starts_with(mma), "{}", lines[i + 1]);
        }
    }
    // The descriptors: 128-byte swizzle (bit 62), SBO 1024 bytes (64 << 32), LBO 1 (1 << 16).
    let bits = (1u64 << 62) | (64 << 32) | (1 << 16);
    assert!(
        ptx.contains(&format!("or.b64 \t%rd9, %rd8, {bits};")),
        "{ptx}"
    );
    assert!(ptx.contains(".extern .shared .align 1024 .b8 wgmma_gemm_dynamic_smem[]"));
}

/// The same main loop, releasing each stage right after committing its batch: the group that
/// reads it may still be in flight when the producer refills it. `#[kernel]` refuses the release
/// (`ui-tests/fail/release_in_flight.rs`), so the PTX is the fixture it lowered to before it did,
/// with `wgmma_gemm`'s signature, which is the same.
#[test]
fn releasing_a_stage_while_its_wgmma_group_is_in_flight_is_reported() {
    let spec = KernelSpec {
        entry: "early_release",
        ptx: include_str!("sim/wgmma_early_release.ptx"),
        ..wgmma_gemm::wgmma_gemm::SPEC
    };
    let k = 8 * 32u32;
    let map = |name| {
        spec.map_type(name)
            .unwrap()
            .tiled(0, &[k as u64, 64], &[k as u64 * 4])
            .unwrap()
    };
    let bytes = |v: Vec<f32>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a = TensorMapArg::owning(map("a"), bytes(operand(64, k, 1)));
    let b = TensorMapArg::owning(map("b"), bytes(operand(64, k, 2)));
    let launch = Launch {
        block: (256, 1, 1),
        ..Launch::default()
    };
    let mut args = vec![
        ArgValue::from(a),
        ArgValue::from(b),
        ArgValue::zeroed(64 * 64 * 4),
        ArgValue::U32(64),
        ArgValue::U32(k / 32),
    ];
    match simulate_spec(&spec, &launch, &mut args) {
        Ok(Outcome::Finding(report)) => {
            // The producer's next tensor copy into the stage is not ordered after the read of
            // the wgmma still in flight.
            assert_eq!(report.kind, FindingKind::AsyncReadBeforeWait, "{report}");
            let text = report.to_string();
            assert!(
                text.contains("wgmma.mma_async") && text.contains("cp.async.bulk.tensor"),
                "{text}"
            );
        }
        other => panic!("expected a finding, got {other:?}"),
    }
    // ptxas takes it: the bug is in the protocol, not in the instructions.
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, spec.ptx, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
}

/// A wgmma issued by half of a warp: `.aligned` needs every thread of the warpgroup. The
/// analyzer reports the lane-divergent branch (`warp_collective_divergence`, a rustc error
/// without the `allow`); here it is allowed so that the simulator's own report is tested.
#[kernel(
    target = "sm_90a",
    block = "256,1,1",
    allow(warp_collective_divergence)
)]
fn divergent(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 1, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if warp_id() == 0 && elect_one() {
            pipe.producer().acquire().load_tiles(&a, [0, 0], &b, [0, 0]);
        }
    } else {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        let mut acc = accumulator::<f32, 64, 64>();
        if lane_id() < 16 {
            acc = acc.mma(&slot, &a, &b).commit().wait::<0>();
        }
        slot.release();
        acc.store(c, 0, 64);
    }
}

#[test]
fn a_wgmma_under_a_divergent_branch_is_reported() {
    let map = |name| {
        divergent::SPEC
            .map_type(name)
            .unwrap()
            .tiled(0, &[32, 64], &[128])
            .unwrap()
    };
    let bytes = |v: Vec<f32>| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a = TensorMapArg::owning(map("a"), bytes(operand(64, 32, 1)));
    let b = TensorMapArg::owning(map("b"), bytes(operand(64, 32, 2)));
    let mut c = vec![0f32; 64 * 64];
    let launch = Launch {
        block: (256, 1, 1),
        ..Launch::default()
    };
    match divergent::simulate(&launch, (&a, &b, &mut c)) {
        Err(RunError::Finding(report)) => {
            // The first instruction the split warp reaches is `wgmma.fence.sync.aligned`: an
            // aligned instruction the whole warp must execute (§9.7.15.5.1, §9.7.13).
            assert_eq!(
                report.kind,
                FindingKind::DivergentAlignedBarrier,
                "{report}"
            );
            assert!(report.to_string().contains("wgmma"), "{report}");
        }
        other => panic!("expected a finding, got {other:?}"),
    }
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, divergent::PTX, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
}

/// One K-tile multiplied, then elements read one by one with their coordinates.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn by_element(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 1, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if warp_id() == 0 && elect_one() {
            pipe.producer().acquire().load_tiles(&a, [0, 0], &b, [0, 0]);
        }
    } else {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        let acc = accumulator::<f32, 64, 64>()
            .mma(&slot, &a, &b)
            .commit()
            .wait::<0>();
        slot.release();
        c[acc.row(0) * 64 + acc.col(0)] = acc.get(0);
        c[acc.row(1) * 64 + acc.col(1)] = acc.get(1);
        c[acc.row(2) * 64 + acc.col(2)] = acc.get(2);
        c[acc.row(3) * 64 + acc.col(3)] = acc.get(3);
        c[acc.row(6) * 64 + acc.col(6)] = acc.get(6);
        c[acc.row(31) * 64 + acc.col(31)] = acc.get(31);
    }
}

#[test]
fn get_row_and_col_follow_the_d_fragment_layout() {
    let map = |name| {
        by_element::SPEC
            .map_type(name)
            .unwrap()
            .tiled(0, &[32, 64], &[128])
            .unwrap()
    };
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let (a, b) = (operand(64, 32, 5), operand(64, 32, 6));
    let (a_arg, b_arg) = (
        TensorMapArg::owning(map("a"), bytes(&a)),
        TensorMapArg::owning(map("b"), bytes(&b)),
    );
    let mut c = vec![f32::NAN; 64 * 64];
    let launch = Launch {
        block: (256, 1, 1),
        ..Launch::default()
    };
    by_element::simulate(&launch, (&a_arg, &b_arg, &mut c)).unwrap_or_else(|e| panic!("{e}"));
    let want = reference(&a, &b, 64, 64, 32);
    let mut written = 0;
    for (i, (got, want)) in c.iter().zip(&want).enumerate() {
        if !got.is_nan() {
            assert_eq!(got, want, "C[{}][{}]", i / 64, i % 64);
            written += 1;
        }
    }
    // Six elements of each of the 128 threads, every one at a place of its own and holding the
    // product there: the coordinates agree with the simulator's D fragment (§9.7.15.5.1.1,
    // checked against an H100 in book/src/gpu/validation.md).
    assert_eq!(written, 6 * 128);
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, by_element::PTX, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
}

/// The main loop on fp8: `C = A · Bᵀ` with A and B in e4m3 or e5m2, K 128 a stage (one
/// 128-byte swizzled row), `wgmma.mma_async.m64n64k32.f32.e4m3.e4m3` (or `.e5m2`).
macro_rules! fp8_gemm {
    ($name:ident, $t:ty) => {
        #[kernel(target = "sm_90a", block = "256,1,1")]
        fn $name(
            a: TensorMap<$t, Tile2<128, 64>, Swizzle128B>,
            b: TensorMap<$t, Tile2<128, 64>, Swizzle128B>,
            c: &mut [f32],
            n: u32,
            k_tiles: u32,
        ) {
            let pipe = pipeline::<$t, 2, 16384>(thread_idx_x() == 0, 1, 128);
            if warp_id() < 4 {
                if warp_id() == 0 && elect_one() {
                    let mut producer = pipe.producer();
                    for kt in 0..k_tiles {
                        producer
                            .acquire()
                            .load_tiles(&a, [kt * 128, 0], &b, [kt * 128, 0]);
                    }
                }
            } else {
                let mut consumer = pipe.consumer();
                let slot = consumer.wait();
                let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
                let mut held = slot.retire();
                for _ in 1..k_tiles {
                    let slot = consumer.wait();
                    acc = acc.mma(&slot, &a, &b).commit().wait::<1>();
                    held.release();
                    held = slot.retire();
                }
                let acc = acc.wait::<0>();
                held.release();
                acc.store(c, 0, n);
            }
        }
    };
}
fp8_gemm!(gemm_e4m3, f8e4m3);
fp8_gemm!(gemm_e5m2, f8e5m2);

/// A 64 × 64 × `k` product of fp8 small integers (exact in both formats; their products' sums
/// exact in f32) in the simulator against the CPU's sums.
macro_rules! check_fp8 {
    ($kernel:ident, $t:ty, $k:expr) => {{
        let k: u32 = $k;
        let map = |name| {
            $kernel::SPEC
                .map_type(name)
                .unwrap()
                .tiled(0, &[k as u64, 64], &[k as u64])
                .unwrap()
        };
        let values = |seed: u32| -> Vec<f32> {
            (0..64 * k)
                .map(|i| ((i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) % 9) as f32 - 4.0)
                .collect()
        };
        let (av, bv) = (values(1), values(2));
        let bytes = |v: &[f32]| {
            v.iter()
                .map(|&x| <$t>::from_f32(x).to_bits())
                .collect::<Vec<u8>>()
        };
        let a = TensorMapArg::owning(map("a"), bytes(&av));
        let b = TensorMapArg::owning(map("b"), bytes(&bv));
        let mut c = vec![f32::NAN; 64 * 64];
        let launch = Launch {
            block: (256, 1, 1),
            dynamic_shared_bytes: $kernel::SPEC.dynamic_shared_bytes,
            ..Launch::default()
        };
        $kernel::simulate(&launch, (&a, &b, &mut c, 64u32, k / 128))
            .unwrap_or_else(|e| panic!("{e}"));
        for r in 0..64 {
            for j in 0..64 {
                let want: f32 = (0..k as usize)
                    .map(|x| av[r * k as usize + x] * bv[j * k as usize + x])
                    .sum();
                assert_eq!(c[r * 64 + j], want, "C[{r}][{j}]");
            }
        }
        $kernel::PTX
    }};
}

#[test]
fn fp8_products_take_the_k32_forms_and_are_exact() {
    let ptx = check_fp8!(gemm_e4m3, f8e4m3, 3 * 128);
    assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3"));
    // K-major only: no transpose operands after the scales.
    assert!(
        ptx.contains(", 0, 1, 1;") || ptx.contains(", 1, 1, 1;"),
        "{ptx}"
    );
    let ptx = check_fp8!(gemm_e5m2, f8e5m2, 2 * 128);
    assert!(ptx.contains("wgmma.mma_async.sync.aligned.m64n64k32.f32.e5m2.e5m2"));
    for (name, ptx) in [("gemm_e4m3", gemm_e4m3::PTX), ("gemm_e5m2", gemm_e5m2::PTX)] {
        let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
        let result = ptxas::assemble(&ptxas, ptx, SmVersion::arch_specific(90))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(result.clean, "{name}: {}", result.log);
    }
}
