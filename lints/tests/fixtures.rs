//! nvcc's fixtures (`tests/fixtures/ptx`) are correct kernels: the analyzer must find nothing
//! in them, at any level. One hand-written fixture is not: [`BUGGY`].

use phasegate_lints::{Level, LintConfig, lint_module};

/// Fixtures whose barrier protocol is wrong, which the runs show.
///
/// `hand_bulk_pipeline.ptx` (written for the reader, in nvcc's shape) lets `elect.sync` pick the
/// thread that arms the tile barrier, but `elect.sync` elects one thread per warp: the four
/// warps of the CTA each `mbarrier.arrive.expect_tx` on `bar`, initialised with a count of 1.
/// The second arrival takes its pending count below zero (§9.7.13.15.2).
const BUGGY: &[&str] = &["hand_bulk_pipeline.ptx"];

fn fixtures() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/ptx");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "ptx") {
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).expect("read"),
            ));
        }
    }
    out.sort();
    out
}

#[test]
fn nvcc_fixtures_have_no_findings() {
    let mut config = LintConfig::default();
    config.set("all", Level::Warn).unwrap();
    let mut all = Vec::new();
    for (name, text) in fixtures()
        .into_iter()
        .filter(|(n, _)| !BUGGY.contains(&n.as_str()))
    {
        let module = phasegate_ptx::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for d in lint_module(&module, &config) {
            all.push(format!("{name}:{}: {d}", d.span.line));
        }
    }
    assert!(
        all.is_empty(),
        "findings in correct fixtures:\n{}",
        all.join("\n")
    );
}

#[test]
fn there_are_fixtures() {
    assert!(fixtures().len() >= 9);
}

/// The bug of `hand_bulk_pipeline.ptx` ([`BUGGY`]) is denied with a run that shows it: two
/// warps' elected threads arrive on the count-1 barrier in one phase.
#[test]
fn hand_bulk_pipeline_arms_its_barrier_once_per_warp() {
    let (_, text) = fixtures()
        .into_iter()
        .find(|(n, _)| n == "hand_bulk_pipeline.ptx")
        .expect("fixture");
    let module = phasegate_ptx::parse(&text).expect("parses");
    let found = lint_module(&module, &LintConfig::default());
    let arm = text
        .lines()
        .position(|l| l.contains("mbarrier.arrive.expect_tx"))
        .expect("the arrive") as u32
        + 1;
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(
        (d.lint, d.level, d.span.line),
        ("mbarrier_missing_wait", Level::Deny, arm)
    );
    assert!(d.message.contains("pending arrival count"), "{d}");
    let w = d.witness.as_ref().expect("a witness");
    let arrivals = w.steps.iter().filter(|s| s.span.line == arm).count();
    assert!(arrivals >= 2, "{d}");
}
