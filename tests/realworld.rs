//! The real-world corpus (`tests/realworld/`, how each file was made is in its `SOURCES.md`):
//! PTX that Triton 3.9 and nvcc 13.0 (CUTLASS 4.2, and hand-written CUDA) wrote for sm_80 and
//! sm_90a. Every file must read, survive `parse(write(parse(text))) == parse(text)`, lint with
//! no deny finding and pass `check_features` (the feature table against the `.version` and
//! `.target` the tools chose):
//! these kernels are correct, so a deny finding on one is a bug in phasegate.

use phasegate::lints::{Level, LintConfig, lint_module};
use phasegate::ptx::{self, parse};
use std::path::PathBuf;

fn corpus() -> Vec<PathBuf> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/realworld");
    let mut files = Vec::new();
    for generator in ["triton", "cutlass", "handwritten"] {
        let dir = format!("{root}/{generator}");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
        files.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ptx")),
        );
    }
    files.sort();
    files
}

#[test]
fn every_corpus_file_reads_round_trips_and_lints_without_a_deny_finding() {
    let files = corpus();
    assert!(files.len() >= 30, "corpus files found: {}", files.len());
    let mut failures = Vec::new();
    let mut hopper_entries = 0;
    for path in &files {
        let name = path.display();
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let module = match parse(&text) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{name}:{}:{}: {}", e.line, e.col, e.message));
                continue;
            }
        };
        if module.target.sm.suffix == Some('a') {
            hopper_entries += module.entries().count();
        }
        let again = parse(&ptx::write_string(&module));
        if again.as_ref().ok() != Some(&module) {
            failures.push(format!("{name}: does not round-trip"));
        }
        for e in ptx::check_features(&module) {
            failures.push(format!("{name}:{}: {e}", e.span.line));
        }
        for d in lint_module(&module, &LintConfig::default()) {
            if d.level == Level::Deny {
                failures.push(format!("{name}:{}: {d}", d.span.line));
            }
        }
    }
    assert!(hopper_entries >= 30, "sm_90a entries: {hopper_entries}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
