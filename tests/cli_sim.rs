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
            "`--grid X,Y,Z` is required",
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
    assert!(out.starts_with("usage: phasegate sim"));
}

#[test]
fn tensor_map_arguments() {
    // The TMA pipeline takes only tensor maps: their tensors are buffers of their own.
    let rows = 56;
    let a: Vec<u8> = (0..rows * 48)
        .flat_map(|i| (((i / 48 * 7 + i % 48) % 13) as f32 - 6.0).to_le_bytes())
        .collect();
    let path = temp("tma_a.bin");
    std::fs::write(&path, &a).unwrap();
    let p = kernels("tma_pipeline.ptx");
    let map_a = format!("tmap:file={path}:f32:48x{rows}:192:32x8:swizzle=128");
    let (status, out) = run(&[
        &p,
        "--grid",
        "1",
        "--block",
        "256",
        "--arg",
        &map_a,
        "--arg",
        "tmap:zero=128:f32:32:-:32",
        "--arg",
        "u32:7",
        "--arg",
        "u32:1",
        "--dump",
        "1:f32",
    ]);
    assert_eq!(status, 0, "{out}");
    let sum = |c: usize| -> f32 {
        (0..rows)
            .map(|k| ((k * 7 + c) % 13) as f32 - 6.0)
            .sum::<f32>()
    };
    let want: Vec<String> = (0..32).map(|c| format!("{:?}", sum(c))).collect();
    assert!(out.contains(&want.join(", ")), "{out}\n{}", want.join(", "));
    // A map over an earlier buffer argument: a store of ones into it.
    let k = temp("tma_store.ptx");
    std::fs::write(
        &k,
        ".version 8.6
.target sm_90a
.address_size 64
.visible .entry fill(.param .u64 buf, .param .align 64 .b8 map[128])
{
	.reg .pred %p<2>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.shared .align 128 .b8 tile[512];
	mov.b64 %rd1, map;
	cvta.param.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	shl.b32 %r2, %r1, 4;
	mov.u32 %r3, tile;
	add.u32 %r4, %r3, %r2;
	mov.b32 %r5, 0f3F800000;
	st.shared.v4.b32 [%r4], {%r5, %r5, %r5, %r5};
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra DONE;
	mov.u32 %r6, 4;
	cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd2, {%r6, %r6}], [tile];
	cp.async.bulk.commit_group;
	cp.async.bulk.wait_group 0;
DONE:
	ret;
}
",
    )
    .unwrap();
    let (status, out) = run(&[
        &k,
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "buf:192",
        "--arg",
        "tmap:0:f32:8x6:-:4x8",
        "--dump",
        "0:f32",
    ]);
    assert_eq!(status, 0, "{out}");
    // Columns 4..8 of rows 4 and 5 (the box's in-bounds part) are 1, the rest 0.
    let row = |r: usize| {
        if r >= 4 {
            "0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0"
        } else {
            "0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0"
        }
    };
    let want: Vec<&str> = (0..6).map(row).collect();
    assert!(out.contains(&want.join(", ")), "{out}");
    // A map the driver would refuse.
    let (status, out) = run(&[
        &k,
        "--grid",
        "1",
        "--block",
        "32",
        "--arg",
        "buf:192",
        "--arg",
        "tmap:0:f32:8x6:-:3x8",
    ]);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("multiple of 16"), "{out}");
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&k);
}
