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
    // The replay reports what the exploration found.
    let error = out
        .lines()
        .find(|l| l.starts_with("error["))
        .expect("an error line");
    assert!(again.contains(error), "{again}\n{out}");
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

/// A `.npy` file as NumPy writes it (`np.save`, format 1.0): the header dict padded with
/// spaces and a newline to a multiple of 64 bytes.
fn numpy_file(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut file = b"\x93NUMPY\x01\x00".to_vec();
    file.extend((header.len() as u16).to_le_bytes());
    file.extend(header.as_bytes());
    file.extend(data);
    file
}

fn f32_bytes(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// `y = a * x` on the nvcc fixture with x from a `.npy` file and y written back as `.npy`
/// (the element type from the kernel's `st.global.f32`), as raw bytes, and x itself (the
/// dtype of the file it came from): byte for byte what NumPy writes; then y goes in again.
#[test]
fn npy_round_trip_through_arg_and_out() {
    let f = fixture("scale_ref.ptx");
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.5 - 7.0).collect();
    let x_npy = temp("x.npy");
    std::fs::write(&x_npy, numpy_file("<f4", "(64,)", &f32_bytes(x.clone()))).expect("write");
    let (y_npy, y_raw, x_back, y_u32) =
        (temp("y.npy"), temp("y.bin"), temp("xb.npy"), temp("yu.npy"));
    let npy_arg = format!("npy:{x_npy}");
    let outs = [
        format!("1:{y_npy}"),
        format!("1:{y_raw}"),
        format!("0:{x_back}"),
        format!("1:u32:{y_u32}"),
    ];
    let mut args = vec![
        f.as_str(),
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        &npy_arg,
        "--arg",
        "buf:256",
        "--arg",
        "f32:3",
        "--arg",
        "u32:64",
    ];
    for o in &outs {
        args.extend(["--out", o.as_str()]);
    }
    let (status, out) = run(&args);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains(&format!(
            "wrote argument 1 (256 bytes; 64 × f32, .npy) to {y_npy}"
        )),
        "{out}"
    );
    let y: Vec<f32> = x.iter().map(|v| 3.0 * v).collect();
    let read = |p: &str| std::fs::read(p).unwrap_or_else(|e| panic!("{p}: {e}"));
    assert_eq!(
        read(&y_npy),
        numpy_file("<f4", "(64,)", &f32_bytes(y.clone()))
    );
    assert_eq!(read(&y_raw), f32_bytes(y.clone()));
    assert_eq!(read(&x_back), read(&x_npy));
    assert_eq!(
        read(&y_u32),
        numpy_file("<u4", "(64,)", &f32_bytes(y.clone()))
    );

    // The output goes in again, this time as a 2-D array (C order, used flattened).
    let y2d = temp("y2d.npy");
    std::fs::write(&y2d, numpy_file("<f4", "(8, 8)", &f32_bytes(y.clone()))).expect("write");
    let (npy_arg, z_npy) = (format!("npy:{y2d}"), temp("z.npy"));
    let z_out = format!("1:{z_npy}");
    let (status, out) = run(&[
        &f, "--grid", "1", "--block", "64", "--arg", &npy_arg, "--arg", "buf:256", "--arg",
        "f32:-2", "--arg", "u32:64", "--out", &z_out,
    ]);
    assert_eq!(status, 0, "{out}");
    let z: Vec<f32> = y.iter().map(|v| -2.0 * v).collect();
    assert_eq!(read(&z_npy), numpy_file("<f4", "(64,)", &f32_bytes(z)));
}

/// Bad `.npy` inputs exit 2 with the file and what is wrong; so do bad `--out`s.
#[test]
fn bad_npy_files_and_outputs_exit_2() {
    let f = fixture("scale_ref.ptx");
    let data = f32_bytes((0..64).map(|i| i as f32));
    let mut header_only = numpy_file("<f4", "(64,)", &[]);
    header_only.truncate(20);
    let mut version_4 = numpy_file("<f4", "(64,)", &data);
    version_4[6] = 4;
    let mut fortran = numpy_file("<f4", "(8, 8)", &data);
    let at = fortran
        .windows(5)
        .position(|w| w == b"False")
        .expect("False");
    fortran[at..at + 5].copy_from_slice(b"True ");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("raw.npy", data.clone(), "not a .npy file"),
        ("short.npy", header_only, "the file ends inside its header"),
        ("v4.npy", version_4, "format version 4.0 is not supported"),
        (
            "big.npy",
            numpy_file(">f4", "(64,)", &data),
            "dtype '>f4' is big-endian",
        ),
        (
            "complex.npy",
            numpy_file("<c8", "(32,)", &data),
            "dtype '<c8' is not supported",
        ),
        (
            "length.npy",
            numpy_file("<f4", "(64,)", &data[..200]),
            "shape (64,) of <f4 needs 256 bytes of data, the file has 200",
        ),
        (
            "shape.npy",
            numpy_file("<f4", "[64]", &data),
            "shape is not a tuple of integers",
        ),
        ("fortran.npy", fortran, "Fortran order (shape (8, 8))"),
    ];
    for (name, bytes, want) in cases {
        let path = temp(name);
        std::fs::write(&path, bytes).expect("write");
        let arg = format!("npy:{path}");
        let (status, out) = run(&[
            &f, "--grid", "1", "--block", "64", "--arg", &arg, "--arg", "buf:256", "--arg",
            "f32:1", "--arg", "u32:64",
        ]);
        assert_eq!(status, 2, "{name}: {out}");
        assert!(
            out.starts_with(&format!("error: --arg npy:{path}: ")) && out.contains(want),
            "{name}: want `{want}`:\n{out}"
        );
    }
    let missing = temp("missing.npy");
    let (status, out) = run(&[
        &f,
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        &format!("npy:{missing}"),
    ]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains(&format!("npy:{missing}: cannot read")),
        "{out}"
    );

    // An .npy of another type than the kernel's accesses runs, with a warning.
    let f64_npy = temp("x64.npy");
    let doubles: Vec<u8> = (0..64).flat_map(|i| f64::from(i).to_le_bytes()).collect();
    std::fs::write(&f64_npy, numpy_file("<f8", "(64,)", &doubles)).expect("write");
    let arg = format!("npy:{f64_npy}");
    let (status, out) = run(&[
        &f, "--grid", "1", "--block", "64", "--arg", &arg, "--arg", "buf:256", "--arg", "f32:1",
        "--arg", "u32:64",
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(
        out.contains(&format!(
            "warning: {f64_npy} holds f64 but `scale` accesses argument 0 as f32"
        )),
        "{out}"
    );

    // --out: a scalar argument, an index past the arguments, a partial element, bad syntax.
    let base = [
        f.as_str(),
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "buf:256",
        "--arg",
        "buf:254",
        "--arg",
        "f32:1",
        "--arg",
        "u32:63",
    ];
    let o = temp("o.npy");
    for (out_arg, want) in [
        (format!("2:{o}"), "argument 2 is not a buffer"),
        (format!("7:{o}"), "the kernel has 4 arguments"),
        (
            format!("1:{o}"),
            "254 bytes are not a whole number of f32 (4 bytes each)",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(["--out", &out_arg]);
        let (status, out) = run(&args);
        assert_eq!(status, 2, "{out_arg}: {out}");
        assert!(
            out.contains(&format!("error: --out {out_arg}: {want}")),
            "{out_arg}: {out}"
        );
    }
    for (extra, want) in [
        (
            vec!["--out", "y.npy"],
            "invalid value 'y.npy' for '--out <INDEX[.NAME][:TYPE]:FILE>'",
        ),
        (
            vec!["--out", "1:y.npy", "--explore", "4"],
            "cannot be used with",
        ),
    ] {
        let mut args = base.to_vec();
        args.extend(extra);
        let (status, out) = run(&args);
        assert_eq!(status, 2, "{out}");
        assert!(out.contains(want), "{want}: {out}");
    }
}

/// `--out` writes the tensor a tensor map holds of its own (`zero=N`), as `--dump` prints it:
/// a kernel whose only parameters are tensor maps returns its result that way.
#[test]
fn out_writes_a_tensor_maps_own_tensor() {
    let rows = 56;
    let a: Vec<u8> = (0..rows * 48)
        .flat_map(|i| (((i / 48 * 5 + i % 48) % 11) as f32 - 5.0).to_le_bytes())
        .collect();
    let path = temp("tma_out_a.bin");
    std::fs::write(&path, &a).unwrap();
    let result = temp("tma_out_y.bin");
    let map_a = format!("tmap:file={path}:f32:48x{rows}:192:32x8:swizzle=128");
    let out_arg = format!("1:{result}");
    let (status, out) = run(&[
        &kernels("tma_pipeline.ptx"),
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
        "--out",
        &out_arg,
    ]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("wrote argument 1 (128 bytes; raw)"), "{out}");
    let got: Vec<f32> = std::fs::read(&result)
        .unwrap()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let want: Vec<f32> = (0..32)
        .map(|c| (0..rows).map(|k| ((k * 5 + c) % 11) as f32 - 5.0).sum())
        .collect();
    assert_eq!(got, want);
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
