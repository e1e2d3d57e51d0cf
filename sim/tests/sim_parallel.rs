//! Clusters run in parallel (rayon) with the result of running them in order: the same
//! outcome, buffers, stats, warnings and findings (text included) under pools of 1 and
//! several threads, also for clusters that communicate through global memory (tickets, flag
//! chains, split-K reductions, reads of another cluster's output, a tensor map one cluster
//! replaces and others use) and for a cluster that waits for a later one. The kernels are in
//! `tests/sim/clusters*.ptx` at the repository root (the root crate's `ptxas` test assembles
//! them).

use phasegate_sim::{
    self as sim, ArgValue, FindingKind, Launch, Outcome, Policy, Schedule, SimError, TensorMap,
    TensorMapArg, TmaDataType,
};

fn text(file: &str) -> String {
    let path = format!("{}/../tests/sim/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Runs a launch in a rayon pool of `threads` threads; returns the outcome (with every
/// report's text) and the arguments after the run.
fn run_in_pool(
    threads: usize,
    file: &str,
    entry: &str,
    launch: &Launch,
    args: &[ArgValue],
) -> (Result<Outcome, SimError>, Vec<String>, Vec<ArgValue>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a pool");
    let ptx = text(file);
    let mut args = args.to_vec();
    let outcome = pool.install(|| sim::simulate_ptx(&ptx, entry, launch, &mut args));
    let texts = match &outcome {
        Ok(Outcome::Finding(r)) => vec![r.to_string()],
        Ok(Outcome::Completed(s)) => s.warnings.iter().map(|w| w.to_string()).collect(),
        Err(e) => vec![e.to_string()],
    };
    (outcome, texts, args)
}

/// The launch under 1, 2, 3 and 8 threads: everything equal to the 1-thread run (which runs
/// the clusters in order with no overlay); returns that run.
fn same_for_any_thread_count(
    file: &str,
    entry: &str,
    launch: &Launch,
    args: &[ArgValue],
) -> (Outcome, Vec<ArgValue>) {
    let (first, texts, out) = run_in_pool(1, file, entry, launch, args);
    for threads in [2, 3, 8] {
        let (o, t, a) = run_in_pool(threads, file, entry, launch, args);
        assert_eq!(o, first, "{entry}, {threads} threads: outcome");
        assert_eq!(t, texts, "{entry}, {threads} threads: report text");
        assert_eq!(a, out, "{entry}, {threads} threads: buffers");
    }
    (first.unwrap_or_else(|e| panic!("{entry}: {e}")), out)
}

fn grid(ctas: u32, threads: u32) -> Launch {
    Launch {
        grid: (ctas, 1, 1),
        block: (threads, 1, 1),
        ..Launch::default()
    }
}

#[test]
fn a_ticket_counter_hands_out_tickets_in_cluster_order() {
    let n = 37u32;
    let args = [
        ArgValue::zeroed(4),
        ArgValue::zeroed(n as usize * 4),
        ArgValue::zeroed(4),
    ];
    let (outcome, out) = same_for_any_thread_count("clusters.ptx", "tickets", &grid(n, 64), &args);
    let stats = outcome.expect_completed();
    assert_eq!((stats.clusters, stats.ctas), (n as u64, n as u64));
    assert_eq!(out[0].read::<u32>(), vec![n]);
    assert_eq!(out[1].read::<u32>(), (0..n).collect::<Vec<_>>());
    assert_eq!(out[2].read::<u32>(), vec![64 * (0..n).sum::<u32>()]);
}

#[test]
fn a_chain_of_flags_between_clusters_completes() {
    let n = 20u32;
    let args = [
        ArgValue::zeroed(n as usize * 4),
        ArgValue::zeroed(n as usize * 4),
    ];
    let (outcome, out) =
        same_for_any_thread_count("clusters.ptx", "flag_chain", &grid(n, 32), &args);
    outcome.expect_completed();
    assert_eq!(out[0].read::<u32>(), vec![1; n as usize]);
    assert_eq!(
        out[1].read::<u32>(),
        (0..n).map(|i| i * (i + 1) / 2).collect::<Vec<_>>()
    );
}

#[test]
fn a_cluster_reads_what_the_previous_one_wrote() {
    let n = 30u32;
    let (outcome, out) = same_for_any_thread_count(
        "clusters.ptx",
        "carry_over",
        &grid(n, 32),
        &[ArgValue::zeroed(n as usize * 4)],
    );
    outcome.expect_completed();
    let want: Vec<u32> = (0..n).map(|i| 3u32.wrapping_pow(i)).collect();
    assert_eq!(out[0].read::<u32>(), want);
}

/// Clusters that communicate only late in a long launch, after the parallel run's waves grew:
/// the cluster that first reads a predecessor's write, and those after it, give what they give
/// in order.
#[test]
fn clusters_that_communicate_late_in_a_long_launch() {
    let (n, from) = (1500u32, 1200u32);
    let (outcome, out) = same_for_any_thread_count(
        "clusters.ptx",
        "late_carry",
        &grid(n, 32),
        &[ArgValue::zeroed(n as usize * 4), ArgValue::U32(from)],
    );
    outcome.expect_completed();
    let mut want: Vec<u32> = (1..=from).collect();
    for _ in from..n {
        want.push(want.last().expect("a predecessor").wrapping_mul(3));
    }
    assert_eq!(out[0].read::<u32>(), want);
}

/// f32 atomics from 16 CTAs into one row: the bits are those of adding in cluster order.
#[test]
fn split_k_reductions_add_in_cluster_order() {
    let (ctas, n) = (16u32, 64u32);
    let x: Vec<f32> = (0..ctas * n)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.001 + 1e-3 * (i % 13) as f32)
        .collect();
    let args = [
        ArgValue::buffer(&x),
        ArgValue::zeroed(n as usize * 4),
        ArgValue::U32(n),
    ];
    let (outcome, out) =
        same_for_any_thread_count("clusters.ptx", "split_k", &grid(ctas, 64), &args);
    outcome.expect_completed();
    let want: Vec<u32> = (0..n as usize)
        .map(|j| {
            (0..ctas as usize)
                .fold(0f32, |acc, c| acc + x[c * n as usize + j] * 1.5)
                .to_bits()
        })
        .collect();
    assert_eq!(out[1].read::<u32>(), want);
}

/// The first CTA waits for the last one, which runs after it: in order that spins to the step
/// limit, and so it does with any number of threads (the same report).
#[test]
fn a_cluster_waiting_for_a_later_one_reaches_the_step_limit() {
    let launch = Launch {
        max_steps: 2_000_000,
        ..grid(3, 32)
    };
    let (outcome, out) = same_for_any_thread_count(
        "clusters.ptx",
        "wait_for_last",
        &launch,
        &[ArgValue::zeroed(4)],
    );
    let report = outcome.expect_finding();
    assert_eq!(report.kind, FindingKind::StepLimit, "{report}");
    assert!(report.thread_instructions > 2_000_000, "{report}");
    assert_eq!(out[0].read::<u32>(), vec![0], "the last CTA never ran");
}

/// A finding in a later cluster: the buffers hold what the clusters before it (and it, up to
/// the finding) wrote, not what clusters after it wrote in parallel.
#[test]
fn a_finding_in_a_later_cluster_stops_the_launch_there() {
    let x: Vec<f32> = (0..200).map(|i| i as f32).collect();
    let args = [
        ArgValue::buffer(&x),
        ArgValue::zeroed(256 * 4),
        ArgValue::U32(256),
    ];
    let (outcome, out) = same_for_any_thread_count("memory.ptx", "add_one", &grid(8, 32), &args);
    let report = outcome.expect_finding();
    assert_eq!(report.kind, FindingKind::OutOfBounds, "{report}");
    let y = out[1].read::<f32>();
    assert_eq!(
        y[..192],
        x[..192].iter().map(|v| v + 1.0).collect::<Vec<_>>()[..]
    );
    assert!(
        y[200..].iter().all(|&v| v == 0.0),
        "CTA 7 ran after the finding"
    );
}

/// Warnings of many clusters (one instruction: one warning) and race findings under random and
/// PCT schedules: the same for any thread count, each cluster with its own seeded scheduler.
#[test]
fn schedules_warnings_and_races_do_not_depend_on_the_thread_count() {
    for policy in [Policy::RoundRobin, Policy::Random, Policy::Pct { depth: 3 }] {
        for seed in [1, 7] {
            let schedule = Schedule { policy, seed };
            let launch = Launch {
                schedule,
                ..grid(12, 64)
            };
            let (outcome, _) =
                same_for_any_thread_count("divergence.ptx", "half_warp", &launch, &[]);
            let stats = outcome.expect_completed();
            assert_eq!(stats.warnings.len(), 1, "{schedule}: {:#?}", stats.warnings);
            assert_eq!(stats.clusters, 12);
            let launch = Launch {
                schedule,
                ..grid(9, 64)
            };
            let (outcome, _) = same_for_any_thread_count(
                "memory.ptx",
                "handoff",
                &launch,
                &[ArgValue::U32(0), ArgValue::zeroed(4)],
            );
            let report = outcome.expect_finding();
            assert_eq!(report.kind, FindingKind::SharedRace, "{report}");
            assert_eq!(report.schedule, schedule);
        }
    }
}

/// CTA 0 replaces the box of a tensor map in global memory; CTAs 1..4 load with it. Fenced,
/// they load 4 rows (the last element of the box is row 3's); unfenced, CTA 1's copy is a
/// finding (tensormap proxy), whichever clusters ran beside CTA 0.
#[test]
fn a_tensor_map_replaced_by_one_cluster_is_seen_by_the_next() {
    let tensor: Vec<f32> = (0..40 * 30).map(|i| i as f32).collect();
    let map = TensorMap::tiled(TmaDataType::F32, 0, &[40, 30], &[160], &[16, 8]).expect("map");
    let args = |fenced: u32| {
        let bytes = tensor.iter().flat_map(|v| v.to_le_bytes()).collect();
        vec![
            ArgValue::from(TensorMapArg {
                in_global: true,
                ..TensorMapArg::owning(map.clone(), bytes)
            }),
            ArgValue::U32(fenced),
            ArgValue::zeroed(5 * 4),
        ]
    };
    let (outcome, out) =
        same_for_any_thread_count("clusters_tma.ptx", "replaced_map", &grid(5, 32), &args(1));
    outcome.expect_completed();
    assert_eq!(out[2].read::<f32>(), vec![0.0, 135.0, 135.0, 135.0, 135.0]);
    let (outcome, _) =
        same_for_any_thread_count("clusters_tma.ptx", "replaced_map", &grid(5, 32), &args(0));
    let report = outcome.expect_finding();
    assert_eq!(report.kind, FindingKind::ProxyFenceMissing, "{report}");
}
