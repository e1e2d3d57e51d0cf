//! `phasegate sim` on nvcc's fixtures and on the simulator's test kernels.

use phasegate::cli::sim;

fn run(args: &[&str]) -> (u8, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = String::new();
    let status = sim::run(&args, &mut out);
    (status, out)
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/ptx/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn kernels(name: &str) -> String {
    format!("{}/tests/sim/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(name: &str) -> String {
    std::env::temp_dir()
        .join(format!("phasegate-cli-sim-{}-{name}", std::process::id()))
        .display()
        .to_string()
}

#[test]
fn runs_a_fixture_and_dumps_a_buffer() {
    let f = fixture("scale_ref.ptx");
    let (status, out) = run(&[
        &f,
        "--kernel",
        "scale",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "buf:256:0",
        "--arg",
        "buf:256",
        "--arg",
        "f32:2.0",
        "--arg",
        "u32:64",
        "--dump",
        "1:f32",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains("`scale` completed: 1 cluster(s), 1 CTA(s)"),
        "{out}"
    );
    assert!(
        out.contains("argument 1 (256 bytes) as f32: [0.0, 0.0"),
        "{out}"
    );
}

#[test]
fn the_only_entry_is_the_default_kernel() {
    let f = fixture("mbarrier_pipeline.ptx");
    let (status, out) = run(&[
        &f,
        "--grid",
        "2,1,1",
        "--block",
        "160,1,1",
        "--dynamic-shared",
        "65536",
        "--arg",
        "buf:65536",
        "--arg",
        "buf:65536",
        "--arg",
        "f32:2.0",
        "--arg",
        "u32:16384",
        "--policy",
        "pct",
        "--seed",
        "3",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("4 async operations (pct:3, seed 3)"), "{out}");
}

#[test]
fn a_finding_exits_1_with_the_report() {
    let f = kernels("named.ptx");
    let (status, out) = run(&[
        &f,
        "--kernel",
        "deadlock_bad",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "u32:32",
    ]);
    assert_eq!(status, 1, "{out}");
    assert!(out.contains("error[deadlock]"), "{out}");
    assert!(
        out.contains("wait at named barrier 1 (phase 0) at line"),
        "{out}"
    );
    assert!(out.contains("§9.7.13.1"), "{out}");
}

#[test]
fn out_of_bounds_buffer_argument() {
    let f = fixture("scale_ref.ptx");
    let (status, out) = run(&[
        &f, "--grid", "1", "--block", "64", "--arg", "buf:200", "--arg", "buf:256", "--arg",
        "f32:1", "--arg", "u32:64",
    ]);
    assert_eq!(status, 1, "{out}");
    assert!(
        out.contains("error[out_of_bounds]")
            && out.contains("argument 0 (`scale_param_0`) (200 bytes)"),
        "{out}"
    );
}

#[test]
fn cluster_shape_from_the_kernel_and_from_the_command_line() {
    let f = fixture("cluster_exchange.ptx");
    let (status, out) = run(&[
        &f, "--grid", "4", "--block", "256", "--arg", "buf:4096", "--arg", "buf:4096",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains("2 cluster(s), 4 CTA(s)") && out.contains("4 cluster-barrier phases"),
        "{out}"
    );
    let (status, out) = run(&[
        &f,
        "--grid",
        "4",
        "--block",
        "256",
        "--cluster",
        "4",
        "--arg",
        "buf:4096",
        "--arg",
        "buf:4096",
    ]);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("the kernel requires clusters of (2, 1, 1) (.reqnctapercluster), the launch has (4, 1, 1)"), "{out}");
}

#[test]
fn explore_reports_a_replayable_schedule() {
    let f = kernels("named.ptx");
    let (status, out) = run(&[
        &f,
        "--kernel",
        "three_warps_one_barrier",
        "--grid",
        "1",
        "--block",
        "96",
        "--explore",
        "64",
    ]);
    assert_eq!(status, 1, "{out}");
    let replay = out
        .lines()
        .find_map(|l| l.strip_prefix("replay with: "))
        .expect("replay line");
    let mut args = vec![
        f.as_str(),
        "--kernel",
        "three_warps_one_barrier",
        "--grid",
        "1",
        "--block",
        "96",
    ];
    args.extend(replay.split_whitespace());
    let (status, again) = run(&args);
    assert_eq!(status, 1, "{again}");
    assert!(again.contains("error[deadlock]"), "{again}");
    let (status, out) = run(&[
        &f,
        "--kernel",
        "prodcons",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "buf:512",
        "--explore",
        "10",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("10 schedules explored, no finding"), "{out}");
}

#[test]
fn writes_trace_timeline_and_summary() {
    let f = fixture("mbarrier_pipeline.ptx");
    let (json, svg) = (temp("trace.json"), temp("run.svg"));
    let (status, out) = run(&[
        &f,
        "--grid",
        "1",
        "--block",
        "160",
        "--dynamic-shared",
        "65536",
        "--arg",
        "buf:32768",
        "--arg",
        "buf:32768",
        "--arg",
        "f32:2.0",
        "--arg",
        "u32:8192",
        "--trace",
        &json,
        "--timeline",
        &svg,
        "--summary",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains("barrier operations (by instruction):") && out.contains("phase completions:"),
        "{out}"
    );
    let trace = std::fs::read_to_string(&json).expect("trace written");
    assert!(
        trace.starts_with("{\"displayTimeUnit\"")
            && trace.contains("\"traceEvents\"")
            && trace.contains("\"thread_name\""),
        "{trace}"
    );
    assert!(trace.contains("cp.async.bulk load 16384 B"), "{trace}");
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
    assert!(picture.contains("cta (0, 0, 0) warp 4"));
}

#[test]
fn usage_and_simulator_errors_exit_2() {
    let f = fixture("scale_ref.ptx");
    for (args, want) in [
        (
            vec![f.as_str(), "--block", "32"],
            "required arguments were not provided:\n  --grid <X[,Y[,Z]]>",
        ),
        (
            vec![f.as_str(), "--grid", "1", "--block", "32", "--arg", "f16:1"],
            "unknown argument type `f16`",
        ),
        (
            vec![
                f.as_str(),
                "--grid",
                "1",
                "--block",
                "32",
                "--policy",
                "fifo",
            ],
            "unknown policy `fifo`",
        ),
        (
            vec![f.as_str(), "--grid", "1", "--block", "32"],
            "the kernel takes 4 parameters (scale_param_0, scale_param_1, scale_param_2, scale_param_3), 0 given",
        ),
        (
            vec![
                f.as_str(),
                "--grid",
                "1",
                "--block",
                "2048",
                "--arg",
                "buf:4",
                "--arg",
                "buf:4",
                "--arg",
                "f32:1",
                "--arg",
                "u32:1",
            ],
            "a block of 2048 threads; at most 1024",
        ),
        (
            vec!["/nonexistent.ptx", "--grid", "1", "--block", "32"],
            "cannot read",
        ),
    ] {
        let (status, out) = run(&args);
        assert_eq!(status, 2, "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: {out}");
    }
    let (status, out) = run(&[
        &kernels("memory.ptx"),
        "--kernel",
        "unknown",
        "--grid",
        "1",
        "--block",
        "1",
        "--arg",
        "u32:1",
    ]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains("the simulator cannot run line") && out.contains("dp4a.u32.u32"),
        "{out}"
    );
    let (status, out) = run(&["--help"]);
    assert_eq!(status, 0);
    assert!(out.contains("Usage: phasegate sim"), "{out}");
    for flag in ["--grid", "--block", "--arg", "--dump", "--out", "--explore"] {
        assert!(out.contains(flag), "{flag}: {out}");
    }
}
