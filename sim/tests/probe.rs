//! Probe runs (`phasegate_sim::probe`): kernels of the public corpus run with made-up inputs
//! (open global memory, parameters given as bytes), with the barrier events logged.

use phasegate_sim::probe::{Kernel, LogKind, Probe};
use phasegate_sim::{FindingKind, Launch, Outcome, Policy, Schedule};

fn corpus(name: &str) -> phasegate_ptx::Module {
    let path = format!(
        "{}/../tests/corpus/ptx/{name}.ptx",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    phasegate_ptx::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `(float* out, const float* in, unsigned n)`: two pointers anywhere, and `n`.
fn params(n: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&0x10_0000_0000u64.to_le_bytes());
    p.extend_from_slice(&0x20_0000_0000u64.to_le_bytes());
    p.extend_from_slice(&n.to_le_bytes());
    p
}

fn probe(name: &str, block: u32, n: u32, schedule: Schedule) -> phasegate_sim::probe::ProbeRun {
    let module = corpus(name);
    let kernel = Kernel::decode(&module, name).expect("decodes");
    let launch = Launch {
        block: (block, 1, 1),
        schedule,
        max_steps: 20_000_000,
        ..Launch::default()
    };
    kernel
        .run(
            &launch,
            &Probe {
                params: params(n),
                cluster: 0,
                log: true,
                ..Probe::default()
            },
        )
        .expect("runs")
}

#[test]
fn a_producer_that_never_waits_for_its_consumers_is_found_with_its_events() {
    let mut found = None;
    for seed in 0..16 {
        let schedule = Schedule {
            policy: Policy::Pct { depth: 2 },
            seed,
        };
        let run = probe("mw_producer_no_empty_wait", 160, 65536, schedule);
        if let Outcome::Finding(r) = &run.outcome {
            found = Some((r.clone(), run.log));
            break;
        }
    }
    let (report, log) = found.expect("some schedule finds it");
    // The refill lands on data a consumer has not released, or completes a phase no one saw.
    assert!(
        matches!(
            report.kind,
            FindingKind::AsyncReadBeforeWait | FindingKind::MbarrierMissingWait
        ),
        "{report}"
    );
    assert!(report.sites.iter().all(|s| s.stmt.is_some()), "{report}");
    assert!(log.iter().any(|e| e.kind == LogKind::Init), "{log:?}");
    assert!(log.iter().any(|e| e.kind == LogKind::Issue), "{log:?}");
    assert!(log.iter().any(|e| e.kind == LogKind::Phase), "{log:?}");
}

#[test]
fn the_correct_pipeline_completes_under_every_schedule_tried() {
    for seed in 0..8 {
        for policy in [Policy::RoundRobin, Policy::Random, Policy::Pct { depth: 3 }] {
            let run = probe(
                "ok_pipeline_nvcc_style",
                160,
                65536,
                Schedule { policy, seed },
            );
            assert!(run.outcome.is_completed(), "{:?}", run.outcome.report());
        }
    }
}
