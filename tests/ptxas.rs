//! Every PTX text the project emits is assembled by ptxas: the examples and the language
//! kernels, for sm_90a and, where the kernel allows, for sm_80. Any error or warning fails, and
//! for the emitted kernels a "Potential Performance Loss" too (wgmmas ptxas serialized).
//!
//! ptxas comes from `PTXAS` or the `nvidia-cuda-nvcc-cu12` package (`.ci/run` installs it).

mod kernels;

#[path = "../examples/attention_hopper.rs"]
#[allow(dead_code)]
mod attention_hopper;
#[path = "../examples/cluster_exchange.rs"]
#[allow(dead_code)]
mod cluster_exchange;
#[path = "../examples/dot.rs"]
#[allow(dead_code)]
mod dot;
#[path = "../examples/gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;
#[path = "../examples/latency.rs"]
#[allow(dead_code)]
mod latency;
#[path = "../examples/multicast.rs"]
#[allow(dead_code)]
mod multicast;
#[path = "../examples/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../examples/popc_count.rs"]
#[allow(dead_code)]
mod popc_count;
#[path = "../examples/producer_consumer.rs"]
#[allow(dead_code)]
mod producer_consumer;
#[path = "../examples/quantize.rs"]
#[allow(dead_code)]
mod quantize;
#[path = "../examples/scale.rs"]
#[allow(dead_code)]
mod scale;
#[path = "../examples/tma_tiles.rs"]
#[allow(dead_code)]
mod tma_tiles;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;
#[path = "../examples/wgmma_gemm.rs"]
#[allow(dead_code)]
mod wgmma_gemm;

use phasegate::ptx::{SmVersion, ptxas};

/// Every emitted kernel: (name, PTX, whether it targets sm_80 or lower).
fn emitted() -> Vec<(&'static str, &'static str, bool)> {
    let mut all = vec![
        ("scale", scale::scale::PTX, true),
        ("transpose", transpose::transpose::PTX, true),
        ("dot", dot::dot::PTX, true),
        ("scale_pipeline", pipeline::scale_pipeline::PTX, false),
        (
            "producer_consumer",
            producer_consumer::producer_consumer::PTX,
            true,
        ),
        ("popc_count", popc_count::popc_count::PTX, true),
        (
            "cluster_exchange",
            cluster_exchange::cluster_exchange::PTX,
            false,
        ),
        ("multicast_tile", multicast::multicast_tile::PTX, false),
        ("bar_sync_latency", latency::bar_sync_latency::PTX, true),
        (
            "bar_red_popc_latency",
            latency::bar_red_popc_latency::PTX,
            true,
        ),
        (
            "mbarrier_phase_latency",
            latency::mbarrier_phase_latency::PTX,
            false,
        ),
        ("ping_pong_latency", latency::ping_pong_latency::PTX, true),
        ("cluster_latency", latency::cluster_latency::PTX, false),
        ("tma_scale", tma_tiles::tma_scale::PTX, false),
        ("tma_add", tma_tiles::tma_add::PTX, false),
        ("tma_roles", tma_tiles::tma_roles::PTX, false),
        ("tma_multicast", tma_tiles::tma_multicast::PTX, false),
        ("gemm_hopper", gemm_hopper::gemm_hopper::PTX, false),
        ("gemm_fp8", gemm_hopper::gemm_fp8::PTX, false),
        ("gemm_fp8_e5m2", gemm_hopper::gemm_fp8_e5m2::PTX, false),
        ("grouped_gemm", gemm_hopper::grouped_gemm::PTX, false),
        (
            "gemm_hopper_n192",
            gemm_hopper::gemm_hopper_n192::PTX,
            false,
        ),
        (
            "gemm_hopper_n128",
            gemm_hopper::gemm_hopper_n128::PTX,
            false,
        ),
        ("gemm_hopper_n64", gemm_hopper::gemm_hopper_n64::PTX, false),
        (
            "gemm_hopper_n160",
            gemm_hopper::gemm_hopper_n160::PTX,
            false,
        ),
        (
            "gemm_hopper_n144",
            gemm_hopper::gemm_hopper_n144::PTX,
            false,
        ),
        ("gemm_skinny16", gemm_hopper::gemm_skinny16::PTX, false),
        ("gemm_skinny32", gemm_hopper::gemm_skinny32::PTX, false),
        (
            "gemm_skinny16_split",
            gemm_hopper::gemm_skinny16_split::PTX,
            false,
        ),
        (
            "gemm_skinny32_split",
            gemm_hopper::gemm_skinny32_split::PTX,
            false,
        ),
        (
            "gemm_fp8_promoted",
            gemm_hopper::gemm_fp8_promoted::PTX,
            false,
        ),
        ("gemm_skinny", gemm_hopper::gemm_skinny::PTX, false),
        (
            "gemm_skinny_n128",
            gemm_hopper::gemm_skinny_n128::PTX,
            false,
        ),
        (
            "gemm_skinny_split",
            gemm_hopper::gemm_skinny_split::PTX,
            false,
        ),
        (
            "gemm_skinny_n128_split",
            gemm_hopper::gemm_skinny_n128_split::PTX,
            false,
        ),
        (
            "gemm_hopper_n128_split",
            gemm_hopper::gemm_hopper_n128_split::PTX,
            false,
        ),
        (
            "gemm_hopper_stream",
            gemm_hopper::gemm_hopper_stream::PTX,
            false,
        ),
        (
            "gemm_hopper_n192_stream",
            gemm_hopper::gemm_hopper_n192_stream::PTX,
            false,
        ),
        ("quantize", quantize::quantize::PTX, false),
        ("wgmma_gemm", wgmma_gemm::wgmma_gemm::PTX, false),
    ];
    // The attention kernels, each in bf16 and f16.
    for kernel in attention_hopper::Kernel::ALL {
        for half in [attention_hopper::Half::Bf16, attention_hopper::Half::F16] {
            let spec = kernel.with(half);
            all.push((spec.entry, spec.ptx, false));
        }
    }
    all.extend_from_slice(kernels::ALL);
    all.extend_from_slice(kernels::VOCABULARY);
    all
}

#[test]
fn every_emitted_kernel_assembles_cleanly() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let mut assembled = 0;
    for (name, ptx, sm80) in emitted() {
        let mut archs = vec![SmVersion::arch_specific(90)];
        if sm80 {
            archs.push(SmVersion::new(80));
        }
        for arch in archs {
            let result = ptxas::assemble(&ptxas, ptx, arch).unwrap_or_else(|e| panic!("{e}"));
            assembled += 1;
            // A kernel the project emits also keeps its wgmmas asynchronous: ptxas reports a
            // serialization (an accumulator touched while its group may be in flight) only as
            // information, which `clean` does not count.
            if !result.clean || !result.performance_losses().is_empty() {
                failures.push(format!("{name} for {arch}:\n{}\n{ptx}", result.log));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "ptxas rejected {} of {assembled}:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        assembled >= 44,
        "expected every kernel to be assembled, got {assembled}"
    );
}

#[test]
fn kernels_for_newer_targets_are_refused_by_an_older_ptxas_target() {
    // The check above is only meaningful if ptxas really rejects what it should.
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, kernels::cluster_ids::PTX, SmVersion::new(80))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !result.clean,
        "sm_90 PTX assembled for sm_80:\n{}",
        result.log
    );
    let broken = scale::scale::PTX.replace("mul.rn.f32", "mul.rn.f33");
    let result =
        ptxas::assemble(&ptxas, &broken, SmVersion::new(80)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !result.clean && result.log.contains("f33"),
        "{}",
        result.log
    );
}

/// Assembles, for sm_90a, the `.ptx` files of `dir` whose name passes `keep`, comments dropped
/// (ptxas refuses the `§` of spec references in them); returns how many and the failures.
fn assemble_folder(dir: &str, keep: impl Fn(&str) -> bool) -> (usize, Vec<String>) {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .filter(|p| p.file_name().is_some_and(|n| keep(&n.to_string_lossy())))
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for path in &files {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code: String = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let result = ptxas::assemble(&ptxas, &code, SmVersion::arch_specific(90))
            .unwrap_or_else(|e| panic!("{e}"));
        if !result.clean {
            failures.push(format!("{}:\n{}", path.display(), result.log));
        }
    }
    (files.len(), failures)
}

/// The hand-written reader fixtures (`tests/fixtures/ptx/hand_*.ptx`: the bulk pipeline, the
/// `bar.red.popc` reduction and every Hopper form the reader types: tensor copies, wgmma,
/// setmaxnreg, elect.sync, tensormap.replace, calls through prototypes) are valid PTX for
/// sm_90a, so what the reader accepts there is what ptxas accepts.
#[test]
fn hand_written_reader_fixtures_assemble_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/ptx");
    let (files, failures) = assemble_folder(dir, |name| name.starts_with("hand_"));
    assert!(files >= 3, "fixtures found: {files}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The buggy twins of hand-written fixtures (`tests/fixtures/lint_twins`), which the lint
/// tests expect findings in, are valid PTX too: a finding there is about a kernel ptxas takes.
#[test]
fn lint_twin_fixtures_assemble_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/lint_twins");
    let (files, failures) = assemble_folder(dir, |_| true);
    assert!(files >= 1, "fixtures found: {files}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The simulator's PTX fixtures (`tests/sim/*.ptx`) are valid PTX too, so a behaviour the
/// simulator shows on them is one a GPU could show: multicast and reduction bulk copies,
/// prefetches, and every barrier form they use.
#[test]
fn simulator_fixtures_assemble_cleanly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/sim");
    let (files, failures) = assemble_folder(dir, |_| true);
    assert!(files >= 8, "fixtures found: {files}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
