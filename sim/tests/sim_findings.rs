//! One test per kind of finding: a kernel that triggers it and a correct twin that does not;
//! and the examples of the spec pages (bar, mbarrier, barrier.cluster) simulated with their
//! expected outcome. The kernels are in `tests/sim/*.ptx` at the repository root.

use phasegate_sim::{self as sim, ArgValue, FindingKind, Launch, Outcome, Report, Stats};

fn text(file: &str) -> String {
    let path = format!("{}/../tests/sim/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(file: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) -> Outcome {
    sim::simulate_ptx(&text(file), entry, launch, args)
        .unwrap_or_else(|e| panic!("{file}/{entry}: {e}"))
}

fn completes(file: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) -> Stats {
    match run(file, entry, launch, args) {
        Outcome::Completed(s) => s,
        Outcome::Finding(r) => panic!("{file}/{entry}: unexpected finding:\n{r}"),
    }
}

fn finding(
    file: &str,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
    kind: FindingKind,
) -> Report {
    match run(file, entry, launch, args) {
        Outcome::Finding(r) => {
            assert_eq!(r.kind, kind, "{file}/{entry}: wrong finding:\n{r}");
            assert!(
                !r.spec.is_empty() && !r.message.is_empty() && !r.sites.is_empty(),
                "{r}"
            );
            *r
        }
        Outcome::Completed(_) => panic!("{file}/{entry}: expected {kind:?}, the run completed"),
    }
}

/// The PTX line of the first line containing `needle` after the line declaring `entry`.
fn line_of(file: &str, entry: &str, needle: &str) -> u32 {
    let t = text(file);
    let lines: Vec<&str> = t.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(&format!(".entry {entry}(")))
        .unwrap_or_else(|| panic!("no entry {entry}"));
    (start
        + lines[start..]
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no `{needle}` in {entry}"))
        + 1) as u32
}

fn block(threads: u32) -> Launch {
    Launch {
        block: (threads, 1, 1),
        ..Launch::default()
    }
}

fn cluster2(threads: u32) -> Launch {
    Launch {
        grid: (2, 1, 1),
        block: (threads, 1, 1),
        cluster: Some((2, 1, 1)),
        ..Launch::default()
    }
}

// --- named barriers (§9.7.13.1) ---

#[test]
fn spec_producer_consumer_with_arrive_and_sync() {
    let mut args = [ArgValue::zeroed(4 * 128)];
    let stats = completes("named.ptx", "prodcons", &block(64), &mut args);
    assert_eq!(
        stats.barrier_phases, 7,
        "4 rounds on barrier 0, 3 on barrier 1"
    );
    let out: Vec<u32> = args[0].read();
    for round in 0..4 {
        for lane in 0..32 {
            assert_eq!(out[round * 32 + lane], 10 * round as u32 + lane as u32);
        }
    }
}

#[test]
fn spec_bar_red_popc_and_or() {
    let mut args = [ArgValue::zeroed(12)];
    completes("named.ptx", "red", &block(96), &mut args);
    assert_eq!(
        args[0].read::<u32>(),
        vec![32, 1, 1],
        "popc of tid % 3 == 0, AND(tid < 1000), OR(!(tid == 5))"
    );
}

#[test]
fn divergent_warp_at_an_aligned_barrier() {
    let r = finding(
        "named.ptx",
        "divergent_bad",
        &block(32),
        &mut [],
        FindingKind::DivergentAlignedBarrier,
    );
    assert_eq!(r.spec, "§9.7.13.1");
    let lines: Vec<u32> = r.sites.iter().map(|s| s.line).collect();
    let first = line_of("named.ptx", "divergent_bad", "bar.sync 0;");
    assert!(
        lines.contains(&first) && lines.contains(&(first + 3)),
        "both bar.sync lines in {r}"
    );
    assert_eq!(
        r.sites.iter().map(|s| s.lanes).fold(0, |a, b| a | b),
        u32::MAX
    );
    completes("named.ptx", "divergent_ok", &block(32), &mut []);
}

#[test]
fn warps_meet_at_one_barrier_instance_from_two_instructions() {
    // nvcc's tail-duplicated __syncthreads(): each warp executes one of two `bar.sync 0`,
    // convergently, and all meet at one instance (§9.7.13.1: different warps may execute
    // different forms with the same barrier name and count).
    for policy in [sim::Policy::RoundRobin, sim::Policy::Random] {
        for seed in 0..4 {
            let launch = Launch {
                schedule: sim::Schedule { policy, seed },
                ..block(64)
            };
            completes("named.ptx", "two_copies", &launch, &mut []);
        }
    }
    completes("named.ptx", "one_copy", &block(64), &mut []);
}

#[test]
fn bar_red_mixed_with_bar_sync() {
    let r = finding(
        "named.ptx",
        "redmix_bad",
        &block(64),
        &mut [],
        FindingKind::BarrierRedMixed,
    );
    assert!(r.message.contains("barrier 1"), "{r}");
    assert!(
        r.state
            .iter()
            .any(|s| s.contains("named barrier 1: phase 0, 32 of")),
        "{r}"
    );
    completes("named.ptx", "redmix_ok", &block(64), &mut []);
}

#[test]
fn thread_counts() {
    let r = finding(
        "named.ptx",
        "count_bad",
        &block(64),
        &mut [ArgValue::U32(48)],
        FindingKind::BarrierThreadCount,
    );
    assert!(
        r.message.contains("48") && r.message.contains("multiple of the warp size"),
        "{r}"
    );
    finding(
        "named.ptx",
        "count_bad",
        &block(64),
        &mut [ArgValue::U32(128)],
        FindingKind::BarrierThreadCount,
    );
    completes(
        "named.ptx",
        "count_bad",
        &block(64),
        &mut [ArgValue::U32(64)],
    );
    let r = finding(
        "named.ptx",
        "counts_differ_bad",
        &block(96),
        &mut [],
        FindingKind::BarrierThreadCount,
    );
    assert!(r.message.contains("different thread counts"), "{r}");
}

#[test]
fn deadlock_at_a_named_barrier() {
    let r = finding(
        "named.ptx",
        "deadlock_bad",
        &block(64),
        &mut [ArgValue::U32(32)],
        FindingKind::Deadlock,
    );
    assert_eq!(r.spec, "§9.7.13.1");
    assert_eq!(
        r.sites[0].line,
        line_of("named.ptx", "deadlock_bad", "bar.sync 1, 64")
    );
    assert!(r.sites[0].what.contains("wait at named barrier 1"), "{r}");
    assert!(
        r.state
            .iter()
            .any(|s| s.contains("32 of 64 threads arrived")),
        "{r}"
    );
    assert_eq!(
        completes(
            "named.ptx",
            "deadlock_bad",
            &block(64),
            &mut [ArgValue::U32(64)]
        )
        .barrier_phases,
        1
    );
}

#[test]
fn arrive_twice_before_the_barrier_completes() {
    // Warp 0's two arrivals and warp 1's complete phase 0; warp 2's bar.sync, the same
    // instruction as warp 1's, lands in phase 1.
    let r = finding(
        "named.ptx",
        "arrive_twice_bad",
        &block(96),
        &mut [],
        FindingKind::BarrierInstanceSplit,
    );
    assert_eq!(
        r.sites[0].line,
        line_of("named.ptx", "arrive_twice_bad", "bar.sync 3, 96;")
    );
    assert!(
        r.sites.iter().any(|s| s.what.contains("second time")),
        "{r}"
    );
}

#[test]
fn barrier_id_out_of_range() {
    finding(
        "named.ptx",
        "id_bad",
        &block(32),
        &mut [ArgValue::U32(16)],
        FindingKind::BarrierId,
    );
    completes("named.ptx", "id_bad", &block(32), &mut [ArgValue::U32(15)]);
}

// --- mbarrier (§9.7.13.15) ---

#[test]
fn spec_mbarrier_example_1a_test_wait_with_state() {
    let mut args = [ArgValue::zeroed(4 * 64)];
    let stats = completes("mbarrier.ptx", "ex1a", &block(64), &mut args);
    assert_eq!(stats.mbarrier_phases, 1);
    assert_eq!(
        args[0].read::<u32>(),
        (0..64).map(|t| (t + 1) % 64).collect::<Vec<u32>>()
    );
}

#[test]
fn spec_mbarrier_example_1b_try_wait_relaxed() {
    completes("mbarrier.ptx", "ex1b", &block(64), &mut []);
    // A relaxed wait orders no memory: exchanging data after it is a race.
    finding(
        "mbarrier.ptx",
        "ex1b_relaxed_race",
        &block(64),
        &mut [],
        FindingKind::SharedRace,
    );
}

#[test]
fn spec_mbarrier_example_2_phase_parity() {
    let iters = 5u32;
    let mut args = [ArgValue::zeroed(4 * 64), ArgValue::U32(iters)];
    let stats = completes("mbarrier.ptx", "ex2", &block(64), &mut args);
    assert_eq!(stats.mbarrier_phases, iters as u64);
    let want: Vec<u32> = (0..64)
        .map(|t| (0..iters).map(|i| 100 * i + (t + 1) % 64).sum())
        .collect();
    assert_eq!(args[0].read::<u32>(), want);
}

#[test]
fn spec_mbarrier_example_3_cp_async_without_noinc() {
    let input: Vec<u32> = (0..64).map(|i| i * 7 + 1).collect();
    let mut args = [ArgValue::buffer(&input), ArgValue::zeroed(4 * 64)];
    let stats = completes("mbarrier.ptx", "ex3", &block(64), &mut args);
    assert_eq!(
        stats.async_ops, 128,
        "a copy and an async arrive per thread"
    );
    assert_eq!(
        args[1].read::<u32>(),
        (0..64).map(|t| input[(t + 1) % 64]).collect::<Vec<u32>>()
    );
}

#[test]
fn cp_async_mbarrier_arrive_with_noinc() {
    let n = 64usize;
    let input: Vec<u32> = (0..3 * n as u32).map(|i| i * 3 + 2).collect();
    let mut args = [ArgValue::buffer(&input), ArgValue::zeroed(4 * n)];
    completes("mbarrier.ptx", "noinc", &block(n as u32), &mut args);
    let want: Vec<u32> = (0..n)
        .map(|t| (0..3).map(|k| input[k * n + (t + 1) % n]).sum())
        .collect();
    assert_eq!(args[1].read::<u32>(), want);
    // Dropping .noinc makes every async arrive-on net zero: the phase never completes.
    let r = finding(
        "mbarrier.ptx",
        "noinc_missing_bad",
        &block(32),
        &mut [ArgValue::buffer(&input)],
        FindingKind::Deadlock,
    );
    assert!(
        r.state
            .iter()
            .any(|s| s.contains("pending count 32 of expected 64")),
        "{r}"
    );
}

#[test]
fn spec_mbarrier_example_4_cluster_arrivals() {
    let mut args = [ArgValue::zeroed(4)];
    let stats = completes("mbarrier.ptx", "ex4", &cluster2(64), &mut args);
    assert_eq!(stats.mbarrier_phases, 1);
    assert_eq!(args[0].read::<u32>(), vec![128]);
}

#[test]
fn spec_arrive_drop_then_exit() {
    let mut args = [ArgValue::zeroed(4)];
    let stats = completes("mbarrier.ptx", "drop_exit", &block(64), &mut args);
    assert_eq!(stats.mbarrier_phases, 3);
    assert_eq!(args[0].read::<u32>(), vec![3]);
}

#[test]
fn spec_inval_reuse_and_pending_count() {
    let mut args = [ArgValue::zeroed(8)];
    completes("mbarrier.ptx", "inval_reuse", &block(64), &mut args);
    assert_eq!(
        args[0].read::<u32>(),
        vec![24, 23],
        "pending count before each noComplete arrive"
    );
}

#[test]
fn arrive_in_the_next_phase_without_a_wait() {
    let r = finding(
        "mbarrier.ptx",
        "missing_wait_bad",
        &block(1),
        &mut [],
        FindingKind::MbarrierMissingWait,
    );
    assert_eq!(r.spec, "§9.7.13.15.4");
    assert_eq!(
        r.sites[0].line,
        line_of("mbarrier.ptx", "missing_wait_bad", "%rd2, [bar]")
    );
    assert!(r.state[0].contains("phase 1"), "{r}");
    completes("mbarrier.ptx", "missing_wait_ok", &block(1), &mut []);
}

#[test]
fn wait_on_a_phase_neither_current_nor_preceding() {
    let r = finding(
        "mbarrier.ptx",
        "stale_state_bad",
        &block(1),
        &mut [],
        FindingKind::MbarrierInvalidPhase,
    );
    assert_eq!(r.spec, "§9.7.13.15.16");
    assert!(
        r.message
            .contains("phase 0 (from its state), while the current phase is 2"),
        "{r}"
    );
    assert_eq!(
        r.sites[0].line,
        line_of("mbarrier.ptx", "stale_state_bad", "%p3, [bar], %rd1")
    );
    let mut args = [ArgValue::zeroed(4)];
    completes("mbarrier.ptx", "initial_parity_ok", &block(1), &mut args);
    assert_eq!(args[0].read::<u32>(), vec![1]);
}

#[test]
fn counts_out_of_range() {
    let r = finding(
        "mbarrier.ptx",
        "pending_range_bad",
        &block(1),
        &mut [ArgValue::U32(3)],
        FindingKind::MbarrierCountRange,
    );
    assert!(
        r.message.contains("pending arrival count") && r.message.contains("-1"),
        "{r}"
    );
    completes(
        "mbarrier.ptx",
        "pending_range_bad",
        &block(1),
        &mut [ArgValue::U32(2)],
    );
    let r = finding(
        "mbarrier.ptx",
        "tx_range",
        &block(1),
        &mut [ArgValue::U32(1 << 20)],
        FindingKind::MbarrierCountRange,
    );
    assert!(r.message.contains("tx-count"), "{r}");
    completes(
        "mbarrier.ptx",
        "tx_range",
        &block(1),
        &mut [ArgValue::U32(4096)],
    );
}

#[test]
fn operations_on_uninitialised_or_invalidated_mbarriers() {
    let r = finding(
        "mbarrier.ptx",
        "uninit_bad",
        &block(1),
        &mut [ArgValue::U32(0)],
        FindingKind::MbarrierUninitialized,
    );
    assert!(r.message.contains("uninitialised"), "{r}");
    let r = finding(
        "mbarrier.ptx",
        "uninit_bad",
        &block(1),
        &mut [ArgValue::U32(1)],
        FindingKind::MbarrierUninitialized,
    );
    assert!(
        r.message.contains("invalidated") && r.sites.len() == 2,
        "{r}"
    );
}

#[test]
fn operations_that_the_initialisation_does_not_happen_before() {
    // Warp 1 waits after a warp barrier of its own: thread 0's init is not ordered before
    // its wait, whichever of the two runs first.
    for policy in [sim::Policy::RoundRobin, sim::Policy::Random] {
        for seed in 0..4 {
            let launch = Launch {
                schedule: sim::Schedule { policy, seed },
                ..block(64)
            };
            let outcome = run(
                "mbarrier.ptx",
                "init_unordered",
                &launch,
                &mut [ArgValue::U32(0)],
            );
            let r = outcome.report().cloned().expect("a finding");
            assert_eq!(r.kind, FindingKind::MbarrierUninitialized, "{r}");
        }
    }
    // A CTA barrier between them orders it.
    for seed in 0..4 {
        let launch = Launch {
            schedule: sim::Schedule {
                policy: sim::Policy::Random,
                seed,
            },
            ..block(64)
        };
        completes(
            "mbarrier.ptx",
            "init_unordered",
            &launch,
            &mut [ArgValue::U32(1)],
        );
    }
}

#[test]
fn init_on_a_valid_mbarrier() {
    let r = finding(
        "mbarrier.ptx",
        "reinit_bad",
        &block(1),
        &mut [],
        FindingKind::MbarrierReinit,
    );
    assert_eq!(r.spec, "§9.7.13.15.9");
}

#[test]
fn no_complete_that_completes() {
    let r = finding(
        "mbarrier.ptx",
        "nocomplete",
        &block(1),
        &mut [ArgValue::U32(1)],
        FindingKind::MbarrierNoComplete,
    );
    assert_eq!(r.spec, "§9.7.13.15.13");
    completes(
        "mbarrier.ptx",
        "nocomplete",
        &block(1),
        &mut [ArgValue::U32(2)],
    );
}

#[test]
fn plain_access_to_a_valid_mbarrier() {
    finding(
        "mbarrier.ptx",
        "mbar_memory_bad",
        &block(1),
        &mut [],
        FindingKind::MbarrierMemoryAccess,
    );
}

#[test]
fn expect_tx_that_the_copies_never_complete() {
    let src = ArgValue::zeroed(4096);
    let r = finding(
        "mbarrier.ptx",
        "tx_hang_bad",
        &block(64),
        &mut [src.clone(), ArgValue::U32(8192)],
        FindingKind::Deadlock,
    );
    assert!(r.state.iter().any(|s| s.contains("tx-count 4096")), "{r}");
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("4096 bytes of transactions")),
        "{r}"
    );
    completes(
        "mbarrier.ptx",
        "tx_hang_bad",
        &block(64),
        &mut [src, ArgValue::U32(4096)],
    );
}

// --- barrier.cluster (§9.7.13.3) ---

#[test]
fn spec_cluster_arrive_and_wait() {
    let mut args = [ArgValue::zeroed(4 * 128)];
    let stats = completes("cluster.ptx", "arrive_wait", &cluster2(64), &mut args);
    assert_eq!(stats.cluster_phases, 3);
    let out: Vec<u32> = args[0].read();
    for rank in 0..2 {
        for t in 0..64 {
            assert_eq!(out[rank * 64 + t], (rank as u32 ^ 1) * 1000 + t as u32);
        }
    }
}

#[test]
fn cluster_arrive_twice_and_wait_without_arrive() {
    let r = finding(
        "cluster.ptx",
        "arrive_twice_bad",
        &cluster2(32),
        &mut [],
        FindingKind::ClusterArriveTwice,
    );
    assert_eq!(r.spec, "§9.7.13.3");
    finding(
        "cluster.ptx",
        "wait_without_arrive_bad",
        &cluster2(32),
        &mut [],
        FindingKind::ClusterWaitWithoutArrive,
    );
}

#[test]
fn distributed_shared_memory_rules() {
    finding(
        "cluster.ptx",
        "no_barrier_race",
        &cluster2(64),
        &mut [],
        FindingKind::SharedRace,
    );
    finding(
        "cluster.ptx",
        "exited_peer_bad",
        &cluster2(64),
        &mut [],
        FindingKind::ExitedCtaAccess,
    );
    finding(
        "cluster.ptx",
        "divergent_cluster_bad",
        &cluster2(32),
        &mut [],
        FindingKind::DivergentAlignedBarrier,
    );
}

// --- the asynchronous proxy ---

#[test]
fn reading_a_bulk_copy_destination_before_the_wait() {
    let input: Vec<f32> = (0..128).map(|i| i as f32 * 0.5).collect();
    let mut args = [
        ArgValue::buffer(&input),
        ArgValue::zeroed(512),
        ArgValue::U32(0),
    ];
    completes("async.ptx", "bulk_load", &block(128), &mut args);
    assert_eq!(args[1].read::<f32>(), input);
    let mut args = [
        ArgValue::buffer(&input),
        ArgValue::zeroed(512),
        ArgValue::U32(1),
    ];
    let r = finding(
        "async.ptx",
        "bulk_load",
        &block(128),
        &mut args,
        FindingKind::AsyncReadBeforeWait,
    );
    assert_eq!(r.spec, "§9.7.13.15.16");
}

#[test]
fn bulk_store_needs_fence_proxy_async() {
    let mut args = [ArgValue::zeroed(512), ArgValue::U32(1)];
    completes("async.ptx", "bulk_store", &block(128), &mut args);
    assert_eq!(
        args[0].read::<f32>(),
        (0..128).map(|i| i as f32).collect::<Vec<_>>()
    );
    let r = finding(
        "async.ptx",
        "bulk_store",
        &block(128),
        &mut [ArgValue::zeroed(512), ArgValue::U32(0)],
        FindingKind::ProxyFenceMissing,
    );
    assert!(r.spec.contains("fence.proxy.async"), "{r}");
}

#[test]
fn bulk_store_source_reused_before_wait_group_read() {
    completes(
        "async.ptx",
        "bulk_store_reuse",
        &block(64),
        &mut [ArgValue::zeroed(512), ArgValue::U32(1)],
    );
    finding(
        "async.ptx",
        "bulk_store_reuse",
        &block(64),
        &mut [ArgValue::zeroed(512), ArgValue::U32(0)],
        FindingKind::SharedRace,
    );
}

// --- memory ---

#[test]
fn out_of_bounds_global_access() {
    let x = vec![1.0f32; 100];
    let mut args = [
        ArgValue::buffer(&x),
        ArgValue::zeroed(400),
        ArgValue::U32(100),
    ];
    completes(
        "memory.ptx",
        "add_one",
        &Launch {
            grid: (2, 1, 1),
            ..block(64)
        },
        &mut args,
    );
    assert!(args[1].read::<f32>().iter().all(|v| *v == 2.0));
    let mut args = [
        ArgValue::buffer(&x),
        ArgValue::zeroed(400),
        ArgValue::U32(101),
    ];
    let r = finding(
        "memory.ptx",
        "add_one",
        &Launch {
            grid: (2, 1, 1),
            ..block(64)
        },
        &mut args,
        FindingKind::OutOfBounds,
    );
    assert!(
        r.message
            .contains("offset 400 of argument 0 (`x`) (400 bytes)"),
        "{r}"
    );
    assert_eq!(r.sites[0].tid, (36, 0, 0));
}

#[test]
fn out_of_bounds_shared_access_and_misalignment() {
    completes(
        "memory.ptx",
        "shared_index",
        &block(64),
        &mut [ArgValue::U32(0)],
    );
    finding(
        "memory.ptx",
        "shared_index",
        &block(64),
        &mut [ArgValue::U32(1)],
        FindingKind::OutOfBounds,
    );
    completes(
        "memory.ptx",
        "misaligned",
        &block(1),
        &mut [ArgValue::zeroed(16), ArgValue::U32(4)],
    );
    finding(
        "memory.ptx",
        "misaligned",
        &block(1),
        &mut [ArgValue::zeroed(16), ArgValue::U32(2)],
        FindingKind::Misaligned,
    );
}

#[test]
fn shared_memory_race_and_its_barrier() {
    let r = finding(
        "memory.ptx",
        "handoff",
        &block(64),
        &mut [ArgValue::U32(0), ArgValue::zeroed(4)],
        FindingKind::SharedRace,
    );
    assert_eq!(r.sites.len(), 2);
    assert_eq!(r.sites[0].tid, (32, 0, 0));
    assert_eq!(r.sites[1].tid, (0, 0, 0));
    assert_eq!(
        r.sites[1].line,
        line_of("memory.ptx", "handoff", "@%p1 st.shared.u32")
    );
    let mut args = [ArgValue::U32(1), ArgValue::zeroed(4)];
    completes("memory.ptx", "handoff", &block(64), &mut args);
    assert_eq!(args[1].read::<u32>(), vec![42]);
    // Race checking can be switched off.
    completes(
        "memory.ptx",
        "handoff",
        &Launch {
            race_check: false,
            ..block(64)
        },
        &mut [ArgValue::U32(0), ArgValue::zeroed(4)],
    );
}

#[test]
fn local_memory_and_calls() {
    let mut args = [ArgValue::zeroed(4 * 64)];
    completes("memory.ptx", "local_and_call", &block(64), &mut args);
    assert_eq!(
        args[0].read::<u32>(),
        (0..64).map(|t| t * t + 3 * t).collect::<Vec<u32>>()
    );
}

#[test]
fn trap_and_livelock() {
    completes(
        "memory.ptx",
        "maybe_trap",
        &block(32),
        &mut [ArgValue::U32(0)],
    );
    finding(
        "memory.ptx",
        "maybe_trap",
        &block(32),
        &mut [ArgValue::U32(1)],
        FindingKind::Trap,
    );
    let r = finding(
        "memory.ptx",
        "spin",
        &Launch {
            max_steps: 100_000,
            ..block(32)
        },
        &mut [ArgValue::zeroed(4)],
        FindingKind::StepLimit,
    );
    assert!(r.message.contains("100000"), "{r}");
}

#[test]
fn warp_collectives() {
    let mut args = [ArgValue::zeroed(12), ArgValue::U32(0)];
    completes("memory.ptx", "collectives", &block(32), &mut args);
    assert_eq!(args[0].read::<u32>(), vec![496, 0xAAAA_AAAA, 0]);
    finding(
        "memory.ptx",
        "collectives",
        &block(32),
        &mut [ArgValue::zeroed(12), ArgValue::U32(1)],
        FindingKind::WarpCollective,
    );
}

#[test]
fn integer_float_and_conversion_semantics() {
    let mut args = [ArgValue::zeroed(72)];
    completes("memory.ptx", "arith", &block(1), &mut args);
    let v: Vec<u32> = args[0].read();
    let want: Vec<u32> = vec![
        -3i32 as u32,
        -1i32 as u32,
        -4i32 as u32,
        15,
        u32::MAX,
        0xFFFF_F5FF,
        0x4433_2211,
        -2i32 as u32,
        31,
        64,
        0x8000_0000,
        -3i32 as u32,
        0,
        1,
        -7i32 as u32,
        1,
        1,
    ];
    assert_eq!(&v[..17], &want[..]);
    assert_eq!(f32::from_bits(v[17]), -3.140625);
}

#[test]
fn unknown_instructions_stop_the_run_only_where_reached() {
    completes("memory.ptx", "unknown", &block(1), &mut [ArgValue::U32(0)]);
    let err = sim::simulate_ptx(
        &text("memory.ptx"),
        "unknown",
        &block(1),
        &mut [ArgValue::U32(1)],
    )
    .expect_err("dp4a");
    let line = line_of("memory.ptx", "unknown", "dp4a");
    match &err {
        sim::SimError::Unsupported {
            function,
            line: l,
            instruction,
            ..
        } => {
            assert_eq!((function.as_str(), *l), ("unknown", line));
            assert!(instruction.starts_with("dp4a.u32.u32"), "{err}");
        }
        other => panic!("{other}"),
    }
    assert!(err.to_string().contains(&format!("line {line}")), "{err}");
}

// --- scheduling ---

#[test]
fn exploration_finds_an_arrival_order_bug_and_its_seed_replays_it() {
    let module = phasegate_ptx::parse(&text("named.ptx")).expect("parses");
    let launch = block(96);
    // Round-robin lets the consumer (warp 0) and one producer complete phase 0: the other
    // producer's arrival at the same instruction lands in phase 1, which nobody completes.
    finding(
        "named.ptx",
        "three_warps_one_barrier",
        &launch,
        &mut [],
        FindingKind::BarrierInstanceSplit,
    );
    let found = sim::explore(&module, "three_warps_one_barrier", &launch, &[], 64).expect("runs");
    let failure = found.failure.expect("every schedule breaks a rule");
    // Both producers first: the consumer waits alone in phase 1; else the producers split.
    assert!(
        matches!(
            failure.report.kind,
            FindingKind::Deadlock | FindingKind::BarrierInstanceSplit
        ),
        "{}",
        failure.report
    );
    assert_eq!(failure.report.schedule, failure.schedule);
    // The seed replays the same report.
    let replay = Launch {
        schedule: failure.schedule,
        ..launch.clone()
    };
    let again = sim::simulate_module(&module, "three_warps_one_barrier", &replay, &mut [])
        .expect("runs")
        .expect_finding();
    assert_eq!(again, failure.report);
    // A correct kernel survives the same exploration.
    let clean = sim::explore(
        &module,
        "prodcons",
        &block(64),
        &[ArgValue::zeroed(512)],
        24,
    )
    .expect("runs");
    assert_eq!((clean.runs, clean.failure), (24, None));
}

#[test]
fn schedules_are_deterministic() {
    let module = phasegate_ptx::parse(&text("mbarrier.ptx")).expect("parses");
    for policy in [
        sim::Policy::RoundRobin,
        sim::Policy::Random,
        sim::Policy::Pct { depth: 3 },
    ] {
        let launch = Launch {
            schedule: sim::Schedule { policy, seed: 42 },
            ..block(64)
        };
        let a = sim::simulate_traced(
            &module,
            "ex2",
            &launch,
            &mut [ArgValue::zeroed(256), ArgValue::U32(3)],
        )
        .expect("runs");
        let b = sim::simulate_traced(
            &module,
            "ex2",
            &launch,
            &mut [ArgValue::zeroed(256), ArgValue::U32(3)],
        )
        .expect("runs");
        assert_eq!(a, b, "{policy:?}");
    }
}

#[test]
fn a_kernel_correct_only_when_the_copy_is_fast_is_caught() {
    let input: Vec<f32> = (0..128).map(|i| i as f32).collect();
    let args = [ArgValue::buffer(&input), ArgValue::zeroed(512)];
    // Round-robin completes copies as late as possible: the read comes first.
    let r = finding(
        "async.ptx",
        "single_test_wait",
        &block(128),
        &mut args.clone(),
        FindingKind::AsyncReadBeforeWait,
    );
    assert!(
        r.sites
            .iter()
            .any(|s| s.instruction.starts_with("ld.shared.f32")),
        "{r}"
    );
    // Some schedule completes the copy before the test_wait: that run is clean.
    let module = phasegate_ptx::parse(&text("async.ptx")).expect("parses");
    let fast = (0..64u64).find_map(|seed| {
        let launch = Launch {
            schedule: sim::Schedule {
                policy: sim::Policy::Random,
                seed,
            },
            ..block(128)
        };
        let mut a = args.clone();
        sim::simulate_module(&module, "single_test_wait", &launch, &mut a)
            .expect("runs")
            .is_completed()
            .then_some(a)
    });
    assert_eq!(
        fast.expect("a schedule with a fast copy")[1].read::<f32>(),
        input
    );
}

/// The timer registers (§10.15–10.18: `%clock`, `%clock64`, `%globaltimer` and its halves) read
/// the simulated time through `mov`, and time does not go backwards between two reads.
#[test]
fn timer_registers_read_the_simulated_time() {
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<6>;\n\tld.param.u64 %rd1, [out];\n\tmov.u64 %rd2, %clock64;\n\tmov.u32 %r1, %clock;\n\tmov.u32 %r2, %globaltimer_lo;\n\tmov.u32 %r3, %globaltimer_hi;\n\tmov.u64 %rd3, %globaltimer;\n\tmov.u64 %rd4, %clock64;\n\tst.global.u64 [%rd1], %rd2;\n\tst.global.u64 [%rd1+8], %rd4;\n\tret;\n}\n";
    let mut args = [ArgValue::Buffer(vec![0; 16])];
    let launch = Launch {
        block: (1, 1, 1),
        ..Launch::default()
    };
    match sim::simulate_ptx(text, "k", &launch, &mut args) {
        Ok(Outcome::Completed(_)) => {}
        other => panic!("expected a completed run, got {other:?}"),
    }
    let ArgValue::Buffer(out) = &args[0] else {
        panic!("the buffer comes back")
    };
    let first = u64::from_le_bytes(out[0..8].try_into().expect("8 bytes"));
    let second = u64::from_le_bytes(out[8..16].try_into().expect("8 bytes"));
    assert!(
        second >= first,
        "%clock64 went backwards: {first} then {second}"
    );
}

#[test]
fn multicast_bulk_copies() {
    let input: Vec<f32> = (0..128).map(|i| i as f32 - 60.0).collect();
    // Both CTAs of the cluster receive the tile from rank 0's one copy.
    let mut args = [
        ArgValue::buffer(&input),
        ArgValue::zeroed(1024),
        ArgValue::U32(3),
    ];
    completes("multicast.ptx", "multicast", &cluster2(128), &mut args);
    let out = args[1].read::<f32>();
    assert_eq!(&out[..128], &input[..]);
    assert_eq!(&out[128..], &input[..]);
    // Rank 1 is left out of the mask: its barrier expects 512 bytes that never come.
    let mut args = [
        ArgValue::buffer(&input),
        ArgValue::zeroed(1024),
        ArgValue::U32(1),
    ];
    finding(
        "multicast.ptx",
        "multicast",
        &cluster2(128),
        &mut args,
        FindingKind::Deadlock,
    );
    // A rank the cluster does not have.
    let mut args = [
        ArgValue::buffer(&input),
        ArgValue::zeroed(1024),
        ArgValue::U32(4),
    ];
    let r = finding(
        "multicast.ptx",
        "multicast",
        &cluster2(128),
        &mut args,
        FindingKind::OutOfBounds,
    );
    assert!(r.message.contains("ctaMask 0x0004"), "{r}");
}

#[test]
fn bulk_reductions_into_global_and_peer_shared_memory() {
    // Four CTAs add their tile into the same 512 bytes of global memory.
    let mut args = [ArgValue::zeroed(512)];
    completes(
        "reduce.ptx",
        "reduce_global",
        &Launch {
            grid: (4, 1, 1),
            block: (128, 1, 1),
            ..Launch::default()
        },
        &mut args,
    );
    assert_eq!(
        args[0].read::<u32>(),
        (0..128u32).map(|t| 4 * (t + 1)).collect::<Vec<_>>()
    );
    // Both CTAs of a cluster add into rank 0's shared memory; two reductions of the same bytes
    // are atomic with respect to each other, not a race.
    let mut args = [ArgValue::zeroed(512)];
    completes("reduce.ptx", "reduce_cluster", &cluster2(128), &mut args);
    assert_eq!(args[0].read::<u32>(), vec![3u32; 128]);
}

#[test]
fn one_store_instruction_of_many_lanes_to_one_cell_is_not_a_race() {
    let mut args = [ArgValue::U32(0), ArgValue::zeroed(4)];
    completes("memory.ptx", "same_store", &block(32), &mut args);
    assert_eq!(args[1].read::<u32>(), vec![7]);
    // A second store instruction by the lanes is not ordered after the first.
    finding(
        "memory.ptx",
        "same_store",
        &block(32),
        &mut [ArgValue::U32(1), ArgValue::zeroed(4)],
        FindingKind::SharedRace,
    );
}

#[test]
fn cp_async_with_source_size_zero_reads_nothing_and_zero_fills() {
    let mut args = [ArgValue::zeroed(16), ArgValue::zeroed(4)];
    completes("memory.ptx", "masked_cp_async", &block(1), &mut args);
    assert_eq!(args[1].read::<u32>(), vec![0]);
}

#[test]
fn bar_warp_sync_orders_memory_among_its_lanes() {
    let mut args = [ArgValue::U32(1), ArgValue::zeroed(4 * 32)];
    completes("memory.ptx", "warp_exchange", &block(32), &mut args);
    assert_eq!(
        args[1].read::<u32>(),
        (0..32).map(|t| (t + 1) % 32 + 100).collect::<Vec<u32>>()
    );
    finding(
        "memory.ptx",
        "warp_exchange",
        &block(32),
        &mut [ArgValue::U32(0), ArgValue::zeroed(4 * 32)],
        FindingKind::SharedRace,
    );
}

/// Threads exiting without an aligned barrier that the rest of their warp executes are a
/// warning under every policy (the order the divergent paths run in does not matter); whole
/// warps that exit are not.
#[test]
fn exits_without_an_aligned_barrier_warn_whatever_the_schedule() {
    use phasegate_sim::{Policy, Schedule};
    let schedules = [
        Schedule::default(),
        Schedule {
            policy: Policy::Random,
            seed: 1,
        },
        Schedule {
            policy: Policy::Random,
            seed: 7,
        },
        Schedule {
            policy: Policy::Pct { depth: 3 },
            seed: 3,
        },
    ];
    for entry in ["half_warp", "tid_loop", "loop_value"] {
        for schedule in schedules {
            let launch = Launch {
                schedule,
                ..block(64)
            };
            let stats = completes("divergence.ptx", entry, &launch, &mut []);
            assert_eq!(
                stats.warnings.len(),
                1,
                "{entry} under {schedule}: {:#?}",
                stats.warnings
            );
            let w = &stats.warnings[0];
            assert_eq!(w.kind, FindingKind::DivergentExitBeforeBarrier);
            assert!(w.kind.is_warning());
            assert_eq!(w.sites.len(), 2, "{w}");
            assert_eq!(
                w.sites[0].line,
                line_of("divergence.ptx", entry, "bar.sync 0;")
            );
            assert_eq!(w.sites[0].lanes & w.sites[1].lanes, 0);
            assert!(
                w.to_string()
                    .starts_with("warning[divergent_exit_before_barrier]"),
                "{w}"
            );
        }
    }
    let stats = completes("divergence.ptx", "warp_uniform_exit", &block(64), &mut []);
    assert!(stats.warnings.is_empty(), "{:#?}", stats.warnings);
}

/// Stores that leave shared memory as an earlier store left it are not a race (Triton's
/// replicated layouts write one value from many warps); a store of another value is, and so is a
/// first store of zeros that another warp reads unordered (shared memory starts undefined).
#[test]
fn stores_that_leave_memory_unchanged_are_not_a_race() {
    let mut args = [ArgValue::U32(0), ArgValue::zeroed(4)];
    completes("memory.ptx", "write_back", &block(128), &mut args);
    assert_eq!(args[1].read::<u32>(), vec![42]);
    for mode in [1, 2] {
        finding(
            "memory.ptx",
            "write_back",
            &block(128),
            &mut [ArgValue::U32(mode), ArgValue::zeroed(4)],
            FindingKind::SharedRace,
        );
    }
}
