//! nvcc's fixtures (`tests/fixtures/ptx`) are correct kernels: the analyzer must find nothing
//! in them, at any level.

use phasegate_lints::{Level, LintConfig, lint_module};

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
    for (name, text) in fixtures() {
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
