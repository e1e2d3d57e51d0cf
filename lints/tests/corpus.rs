//! The public corpus (`tests/corpus`): every kernel's `// expect:` label against what the
//! analyzer finds in the PTX nvcc made of it. `clean` kernels must have no finding at all.

use phasegate_lints::{Level, LintConfig, lint_module};
use std::collections::BTreeSet;

fn corpus_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus")
}

/// (kernel name, expected lints; empty for `clean`).
fn labels() -> Vec<(String, BTreeSet<String>)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(corpus_dir()).expect("corpus dir") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "cu") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read .cu");
        let label = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("// expect:"))
            .unwrap_or_else(|| panic!("{} has no `// expect:` line", path.display()));
        let set: BTreeSet<String> = label
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| s != "clean" && !s.is_empty())
            .collect();
        out.push((
            path.file_stem().unwrap().to_string_lossy().into_owned(),
            set,
        ));
    }
    out.sort();
    out
}

#[test]
fn every_verdict() {
    let mut config = LintConfig::default();
    config.set("all", Level::Warn).unwrap();
    let mut wrong = Vec::new();
    let labels = labels();
    for (name, expected) in &labels {
        let path = corpus_dir().join("ptx").join(format!("{name}.ptx"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let module = phasegate_ptx::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found = lint_module(&module, &config);
        let got: BTreeSet<String> = found.iter().map(|d| d.lint.to_string()).collect();
        if &got != expected {
            wrong.push(format!(
                "{name}: expected {expected:?}, found {got:?}\n{}",
                found
                    .iter()
                    .map(|d| format!("  line {}: {d}", d.span.line))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        // Every finding points at a statement with a line and a .loc source.
        for d in &found {
            assert!(d.span.line > 0 && d.stmt.is_some(), "{name}: {d}");
            assert!(
                d.source
                    .as_ref()
                    .is_some_and(|s| s.file.ends_with(".cu") || s.file.ends_with(".h")),
                "{name}: no source for {d}"
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} verdicts differ:\n{}",
        wrong.len(),
        labels.len(),
        wrong.join("\n")
    );
}

#[test]
fn corpus_is_large_and_balanced_and_covers_every_lint() {
    let labels = labels();
    let buggy = labels.iter().filter(|(_, e)| !e.is_empty()).count();
    let clean = labels.len() - buggy;
    assert!(labels.len() >= 40, "{} kernels", labels.len());
    assert!(buggy >= 20 && clean >= 20, "{buggy} buggy, {clean} clean");
    for lint in phasegate_lints::LINTS {
        assert!(
            labels.iter().any(|(_, e)| e.contains(lint.name)),
            "no corpus kernel for {}",
            lint.name
        );
    }
}

#[test]
fn synccheck_results_cover_every_kernel() {
    let table = std::fs::read_to_string(corpus_dir().join("synccheck.tsv")).expect("synccheck.tsv");
    let rows: Vec<&str> = table.lines().filter(|l| !l.starts_with('#')).collect();
    for (name, _) in labels() {
        assert!(
            rows.iter()
                .any(|r| r.split('\t').next() == Some(name.as_str())),
            "{name} missing from synccheck.tsv"
        );
    }
}
