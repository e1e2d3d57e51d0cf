//! The real-world corpus (`tests/realworld/`, one folder per source, how each file was made is in
//! its `SOURCES.md`): PTX that Triton 3.9 and nvcc 13.0 wrote for sm_80, sm_90 and sm_90a, from
//! our own kernels and from production libraries (CUTLASS, FlashAttention, FlashInfer, DeepGEMM,
//! Mamba, the Triton kernels of liger-kernel and fla), plus PTX embedded in a shipped wheel.
//! Files over 600 KB are stored gzip-compressed as `NAME.ptx.gz`. Every file must read, survive
//! `parse(write(parse(text))) == parse(text)`, lint with no deny finding and pass
//! `check_features` (the feature table against the `.version` and `.target` the tools chose):
//! these kernels are correct, so a deny finding on one is a bug in phasegate.

use phasegate::lints::{Level, LintConfig, lint_module};
use phasegate::ptx::{self, parse};
use std::io::Read;
use std::path::{Path, PathBuf};

fn is_corpus_file(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".ptx") || name.ends_with(".ptx.gz")
}

/// Every `.ptx` / `.ptx.gz` directly inside a subdirectory of `tests/realworld/` (one
/// subdirectory per source; deeper folders such as `src/` hold generator inputs).
fn corpus() -> Vec<PathBuf> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/realworld");
    let mut files = Vec::new();
    let dirs = std::fs::read_dir(root).unwrap_or_else(|e| panic!("{root}: {e}"));
    for dir in dirs
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
    {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        files.extend(
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && is_corpus_file(p)),
        );
    }
    files.sort();
    files
}

fn read_corpus_file(path: &Path) -> String {
    let name = path.display();
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{name}: {e}"));
    if path.extension().is_some_and(|x| x == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        text
    } else {
        String::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

#[test]
fn every_corpus_file_reads_round_trips_and_lints_without_a_deny_finding() {
    let files = corpus();
    assert!(files.len() >= 30, "corpus files found: {}", files.len());
    let mut failures = Vec::new();
    let mut hopper_entries = 0;
    for path in &files {
        let name = path.display();
        let text = read_corpus_file(path);
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
