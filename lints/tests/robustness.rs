//! The analyzer never panics: nvcc's fixtures and the corpus, mutated line by line (lines
//! dropped, doubled, swapped, numbers and labels replaced), are linted whenever they still
//! parse. Deterministic (a fixed linear congruential generator), so a failure reproduces.

use phasegate_lints::{Level, LintConfig, lint_module};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, bound: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % bound.max(1)
    }
}

fn inputs() -> Vec<(String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut out = Vec::new();
    for dir in ["tests/fixtures/ptx", "tests/corpus/ptx"] {
        let Ok(entries) = std::fs::read_dir(format!("{root}/{dir}")) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "ptx") {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).expect("read"),
                ));
            }
        }
    }
    out.sort();
    out
}

fn mutate(text: &str, rng: &mut Lcg) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let labels: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_suffix(':').map(|s| s.trim().to_string()))
        .filter(|l| l.starts_with('$') || l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    for _ in 0..1 + rng.next(3) {
        let n = lines.len();
        if n < 2 {
            break;
        }
        let i = rng.next(n);
        match rng.next(5) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.next(n);
                lines.swap(i, j);
            }
            3 => {
                let numbers = ["0", "1", "16", "31", "48", "4096", "-1", "4294967295"];
                let repl = numbers[rng.next(numbers.len())];
                let line = &lines[i];
                if let Some(pos) = line.find(|c: char| c.is_ascii_digit()) {
                    let end = line[pos..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map(|e| pos + e)
                        .unwrap_or(line.len());
                    lines[i] = format!("{}{}{}", &line[..pos], repl, &line[end..]);
                }
            }
            _ => {
                if !labels.is_empty() && lines[i].contains("bra") {
                    let target = &labels[rng.next(labels.len())];
                    if let Some(pos) = lines[i].rfind(char::is_whitespace) {
                        lines[i] = format!("{} {};", &lines[i][..pos], target);
                    }
                }
            }
        }
    }
    lines.join("\n")
}

#[test]
fn mutated_inputs_never_panic() {
    let mut config = LintConfig::default();
    config.set("all", Level::Warn).unwrap();
    let mut rng = Lcg(0x5eed);
    let mut linted = 0;
    for (name, text) in inputs() {
        for k in 0..24 {
            let mutant = mutate(&text, &mut rng);
            let Ok(module) = phasegate_ptx::parse(&mutant) else {
                continue;
            };
            let result = std::panic::catch_unwind(|| lint_module(&module, &config).len());
            assert!(result.is_ok(), "{name}: mutant {k} panicked:\n{mutant}");
            linted += 1;
        }
    }
    assert!(linted > 200, "only {linted} mutants parsed");
}

/// The production corpus (`tests/realworld/`: Triton's and CUTLASS's kernels, with tensor
/// copies, wgmma, inline-assembly scopes, jump tables), mutated the same way: the files up to
/// `PHASEGATE_ROBUSTNESS_BYTES` (default 160 KB, to keep `cargo test` short), a few mutants
/// each (`PHASEGATE_ROBUSTNESS_MUTANTS`, default 3).
#[test]
fn mutated_production_kernels_never_panic() {
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (max_bytes, mutants) = (
        env("PHASEGATE_ROBUSTNESS_BYTES", 160_000),
        env("PHASEGATE_ROBUSTNESS_MUTANTS", 3),
    );
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/realworld");
    let mut files = Vec::new();
    for dir in ["triton", "cutlass"] {
        let entries = std::fs::read_dir(format!("{root}/{dir}")).expect("the corpus");
        files.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() as usize <= max_bytes)),
        );
    }
    files.sort();
    let mut config = LintConfig::default();
    config.set("all", Level::Warn).unwrap();
    let mut rng = Lcg(0xc0ffee);
    let mut linted = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read");
        for k in 0..mutants {
            let mutant = mutate(&text, &mut rng);
            let Ok(module) = phasegate_ptx::parse(&mutant) else {
                continue;
            };
            let result = std::panic::catch_unwind(|| lint_module(&module, &config).len());
            assert!(result.is_ok(), "{}: mutant {k} panicked", path.display());
            linted += 1;
        }
    }
    assert!(linted > 40, "only {linted} mutants parsed");
}

#[test]
fn degenerate_bodies() {
    let config = LintConfig::default();
    for body in [
        "",
        "ret;",
        "L: bra L;",
        "@%p1 bra L; L: bar.sync 0; bra L;",
        "bar.sync %r1; bar.arrive %r2, %r3; barrier.cluster.wait; barrier.cluster.arrive;",
        "mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r1], %r2; mbarrier.arrive.shared::cta.b64 _, [%r9];",
        "{ { { .reg .pred q; setp.eq.u32 q, %r1, 0; @q exit; } } } bar.sync 0;",
        "brx.idx %r1, T; T: ret;",
        "bra NOWHERE; bar.sync 0;",
    ] {
        let text = format!(
            ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<10>;\n{body}\n}}\n"
        );
        if let Ok(m) = phasegate_ptx::parse(&text) {
            let _ = lint_module(&m, &config);
        }
    }
}
