//! Time per analysis and per lint over the nvcc fixtures, repeated to about 1 MB.
//! `cargo run --release -p phasegate-lints --example timing`

use phasegate_lints::analysis::FunctionAnalysis;
use phasegate_lints::lints::{ALL, Context, LintConfig, Sink};
use std::time::Instant;

fn main() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/ptx");
    let mut modules = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "ptx") {
            let text = std::fs::read_to_string(&path).expect("read");
            modules.push((text.len(), phasegate_ptx::parse(&text).expect("parse")));
        }
    }
    let total: usize = modules.iter().map(|m| m.0).sum();
    let reps = (1usize << 20) / total + 1;
    let t = Instant::now();
    let mut analyses = 0;
    for _ in 0..reps {
        for (_, m) in &modules {
            for f in m.functions() {
                if FunctionAnalysis::new(m, f).is_some() {
                    analyses += 1;
                }
            }
        }
    }
    println!(
        "analyses: {:?} for {} functions ({} reps of {} bytes)",
        t.elapsed(),
        analyses,
        reps,
        total
    );
    for lint in ALL {
        let mut config = LintConfig::default();
        config.set("all", phasegate_lints::Level::Allow).unwrap();
        config.set(lint.name, phasegate_lints::Level::Deny).unwrap();
        let mut fas = Vec::new();
        for (_, m) in &modules {
            for f in m.functions() {
                if let Some(fa) = FunctionAnalysis::new(m, f) {
                    fas.push(fa);
                }
            }
        }
        let t = Instant::now();
        for _ in 0..reps {
            for fa in &fas {
                let cx = Context::new(fa);
                let mut sink = Sink::new(&config);
                phasegate_lints::lints::run_all(&cx, &mut sink);
            }
        }
        println!("{:<32} {:?}", lint.name, t.elapsed());
    }
}
