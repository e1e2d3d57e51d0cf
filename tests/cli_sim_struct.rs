//! `phasegate sim --arg struct:FILE`: CUTLASS's SM90 ping-pong GEMM (clusters of 2, TMA
//! multicast) run from the parameter block recorded on an H100
//! (`tests/realworld/cutlass/run/`), its output written with `--out 0.D:...` and compared
//! with the H100's, and the command's errors for bad struct arguments.

use phasegate::cli::sim;

fn run(args: &[&str]) -> (u8, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = String::new();
    let status = sim::run(&args, &mut out);
    (status, out)
}

fn cutlass(name: &str) -> String {
    format!(
        "{}/tests/realworld/cutlass/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn temp(name: &str) -> String {
    std::env::temp_dir()
        .join(format!(
            "phasegate-cli-struct-{}-{name}",
            std::process::id()
        ))
        .display()
        .to_string()
}

/// The recorded launch of `f16_pingpong_int` (its `.struct` file's comment says it).
fn pingpong(extra: &[&str]) -> (u8, String) {
    let ptx = cutlass("sm90_f16_pingpong_64x128x64_c2x1.ptx");
    let mut args = vec![
        ptx.as_str(),
        "--grid",
        "2,2,1",
        "--block",
        "384",
        "--cluster",
        "2,1,1",
        "--dynamic-shared",
        "214016",
    ];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn cutlass_params_run_and_match_the_h100() {
    let desc = format!("struct:{}", cutlass("run/f16_pingpong_int.struct"));
    let out_file = temp("d.bin");
    let out_spec = format!("0.D:{out_file}");
    let (status, out) = pingpong(&["--arg", &desc, "--out", &out_spec, "--dump", "0.C:u8"]);
    assert_eq!(status, 0, "{out}");
    assert!(out.contains("completed: 2 cluster(s), 4 CTA(s)"), "{out}");
    assert!(
        out.contains("wrote argument 0.D (65536 bytes; raw)"),
        "{out}"
    );
    assert!(out.contains("argument 0.C (65536 bytes) as u8: ["), "{out}");
    let sim = std::fs::read(&out_file).unwrap();
    let gpu = std::fs::read(cutlass("run/f16_pingpong_int.D.bin")).unwrap();
    std::fs::remove_file(&out_file).ok();
    assert!(sim == gpu, "the simulator's D differs from the H100's");
}

#[test]
fn bad_struct_arguments_exit_2() {
    let desc = format!("struct:{}", cutlass("run/f16_pingpong_int.struct"));
    let x = temp("x.bin");

    // A struct argument is named by its buffers.
    let spec = format!("0:{x}");
    let (status, out) = pingpong(&["--arg", &desc, "--out", &spec]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains("argument 0 is a struct: name one of its buffers, 0.NAME"),
        "{out}"
    );
    let spec = format!("0.E:{x}");
    let (status, out) = pingpong(&["--arg", &desc, "--out", &spec]);
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains("argument 0 has no buffer `E` (its buffers: A, B, C, D)"),
        "{out}"
    );
    let (status, out) = pingpong(&["--arg", &desc, "--dump", "0."]);
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("names no buffer after the `.`"), "{out}");

    // A description with a bad line names the file and the line.
    let bad = temp("bad.struct");
    std::fs::write(&bad, "# fine\nbuffer A zero:8\nptr 0x10\n").unwrap();
    let (status, out) = pingpong(&["--arg", &format!("struct:{bad}")]);
    std::fs::remove_file(&bad).ok();
    assert_eq!(status, 2, "{out}");
    assert!(out.contains("line 3: `ptr 0x10` is not"), "{out}");

    // A relocation out of the struct is an error from the simulator, not a panic.
    let params = std::fs::read(cutlass("run/f16_pingpong_int.params")).unwrap();
    let dir = std::env::temp_dir();
    let name = format!("phasegate-cli-struct-{}.params", std::process::id());
    std::fs::write(dir.join(&name), &params).unwrap();
    let bad = temp("far.struct");
    std::fs::write(
        &bad,
        format!("bytes {name}\nbuffer A zero:64\nptr 1788 A\n"),
    )
    .unwrap();
    let (status, out) = pingpong(&["--arg", &format!("struct:{bad}")]);
    std::fs::remove_file(&bad).ok();
    std::fs::remove_file(dir.join(&name)).ok();
    assert_eq!(status, 2, "{out}");
    assert!(
        out.contains(
            "argument 0 (struct): ptr at 0x6fc: 8 bytes from there do not fit in the struct's 1792"
        ),
        "{out}"
    );
}
