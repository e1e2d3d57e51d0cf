//! The real-world corpus (`tests/realworld/`, one folder per source, how each file was made is in
//! its `SOURCES.md`): PTX that Triton 3.9 and nvcc 13.0 wrote for sm_80, sm_90 and sm_90a, from
//! our own kernels and from production libraries (CUTLASS, FlashAttention, FlashInfer, DeepGEMM,
//! Mamba, the Triton kernels of liger-kernel and fla), plus PTX embedded in a shipped wheel.
//! Files over 600 KB are stored gzip-compressed as `NAME.ptx.gz`. Every file must read, survive
//! `parse(write(parse(text))) == parse(text)` and pass `check_features` (the feature table
//! against the `.version` and `.target` the tools chose). Its deny findings must be exactly the
//! bugs in the kernels that `tests/realworld/findings.tsv` lists, each with a witness: any other
//! deny finding is a false positive, a bug in phasegate.

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

/// (file relative to `tests/realworld/`, lint) of each listed bug.
fn known_findings() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/realworld/findings.tsv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert!(f.len() >= 4, "{path}: `{l}` needs file, lint, line and why");
            (f[0].to_string(), f[1].to_string())
        })
        .collect()
}

/// What one file gives: problems, and its deny findings as (file, lint, line).
/// What one file gave: failures, deny findings (file, lint, line), and its Hopper entries.
type FileResult = (Vec<String>, Vec<(String, String, u32)>, usize);

fn check_file(path: &Path) -> FileResult {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/realworld"));
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let mut failures = Vec::new();
    let mut denies = Vec::new();
    let text = read_corpus_file(path);
    let module = match parse(&text) {
        Ok(m) => m,
        Err(e) => {
            failures.push(format!("{rel}:{}:{}: {}", e.line, e.col, e.message));
            return (failures, denies, 0);
        }
    };
    let hopper = if module.target.sm.suffix == Some('a') {
        module.entries().count()
    } else {
        0
    };
    let again = parse(&ptx::write_string(&module));
    if again.as_ref().ok() != Some(&module) {
        failures.push(format!("{rel}: does not round-trip"));
    }
    for e in ptx::check_features(&module) {
        failures.push(format!("{rel}:{}: {e}", e.span.line));
    }
    for d in lint_module(&module, &LintConfig::default()) {
        if d.level == Level::Deny {
            if d.witness.is_none() {
                failures.push(format!(
                    "{rel}:{}: a deny finding without a witness: {d}",
                    d.span.line
                ));
            }
            denies.push((rel.clone(), d.lint.to_string(), d.span.line));
        }
    }
    (failures, denies, hopper)
}

#[test]
fn every_corpus_file_reads_round_trips_and_denies_only_its_known_bugs() {
    let files = corpus();
    assert!(files.len() >= 150, "corpus files found: {}", files.len());
    // Files on all cores: each takes a file as it finishes one.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results: Vec<FileResult> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(path) = files.get(i) else { break };
                        out.push(check_file(path));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker panicked"))
            .collect()
    });
    let mut failures: Vec<String> = Vec::new();
    let mut denies: Vec<(String, String, u32)> = Vec::new();
    let mut hopper_entries = 0;
    for (f, d, h) in results {
        failures.extend(f);
        denies.extend(d);
        hopper_entries += h;
    }
    let known = known_findings();
    for d in &denies {
        if !known.contains(&(d.0.clone(), d.1.clone())) {
            failures.push(format!(
                "{}:{}: deny finding [{}] on correct code (not in findings.tsv)",
                d.0, d.2, d.1
            ));
        }
    }
    for k in &known {
        if !denies.iter().any(|d| d.0 == k.0 && d.1 == k.1) {
            failures.push(format!(
                "{}: the known bug [{}] of findings.tsv is no longer found",
                k.0, k.1
            ));
        }
    }
    assert!(hopper_entries >= 30, "sm_90a entries: {hopper_entries}");
    failures.sort();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
