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

/// Bug kernels whose witness no run can build, and why: they are found as unproven warnings.
const UNPROVEN: &[(&str, &str)] = &[(
    "abd_data_dependent",
    "the divergence comes from values loaded from global memory, which the runs make up uniform",
)];

/// Every bug kernel's deny findings carry a witness, and the witness replays: running the
/// kernel as its `replay` spec says (what `phasegate sim --witness` does) breaks a rule at the
/// statement of the finding.
#[test]
fn every_bug_is_denied_with_a_witness_that_replays() {
    use phasegate_lints::witness::replay::{Spec, replay};
    use phasegate_sim::Outcome;
    let mut wrong = Vec::new();
    for (name, expected) in labels().iter().filter(|(_, e)| !e.is_empty()) {
        let path = corpus_dir().join("ptx").join(format!("{name}.ptx"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let module = phasegate_ptx::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found = lint_module(&module, &LintConfig::default());
        let denied: Vec<_> = found.iter().filter(|d| d.level == Level::Deny).collect();
        let deny_by_default = expected.iter().any(|l| {
            phasegate_lints::LINTS
                .iter()
                .any(|x| x.name == l && x.default == Level::Deny)
        });
        let unproven = UNPROVEN.iter().any(|(k, _)| k == name);
        if denied.is_empty() && deny_by_default && !unproven {
            wrong.push(format!("{name}: {expected:?} expected, nothing denied"));
        }
        if unproven
            && !found
                .iter()
                .any(|d| d.level == Level::Warn && d.message.ends_with("(unproven)"))
        {
            wrong.push(format!(
                "{name}: listed as unproven, but found as {found:?}"
            ));
        }
        for d in denied {
            let Some(w) = &d.witness else {
                wrong.push(format!("{name}: denied without a witness: {d}"));
                continue;
            };
            let spec = Spec::parse(&w.replay).unwrap_or_else(|e| panic!("{name}: {e}"));
            let run = replay(&module, &w.kernel, &spec).unwrap_or_else(|e| panic!("{name}: {e}"));
            match &run.outcome {
                Outcome::Finding(r) if r.sites.first().and_then(|s| s.stmt) == d.stmt => {}
                other => wrong.push(format!(
                    "{name}: the witness of [{}] at line {} replays as {:?}",
                    d.lint,
                    d.span.line,
                    other
                        .report()
                        .map(|r| (r.kind, r.sites.first().and_then(|s| s.stmt)))
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
