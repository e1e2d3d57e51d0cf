//! The `phasegate` command on nvcc's fixtures, on our own PTX, and on bad input.

use phasegate::cli;

fn run(args: &[&str]) -> (u8, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = String::new();
    let status = cli::run(&args, &mut out);
    (status, out)
}

fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/ptx/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp_file(name: &str, text: &str) -> String {
    let path = std::env::temp_dir().join(format!("phasegate-cli-{}-{name}", std::process::id()));
    std::fs::write(&path, text).expect("write temp file");
    path.display().to_string()
}

#[test]
fn check_accepts_every_nvcc_fixture() {
    for name in [
        "mbarrier_pipeline.ptx",
        "cluster_exchange.ptx",
        "ampere_cp_async.ptx",
        "named_barriers.ptx",
        "block_reduce.ptx",
        "bulk_store.ptx",
    ] {
        let (status, out) = run(&["check", &fixture(name)]);
        assert_eq!(status, 0, "{name}: {out}");
        assert!(out.contains(": ok (1 kernel"), "{name}: {out}");
    }
}

#[test]
fn check_reports_a_feature_the_target_lacks_at_its_line() {
    let text = std::fs::read_to_string(fixture("mbarrier_pipeline.ptx")).expect("fixture");
    let lowered = text.replace(".target sm_90a", ".target sm_80");
    let path = temp_file("lowered.ptx", &lowered);
    let (status, out) = run(&["check", &path]);
    assert_eq!(status, 1, "{out}");
    let line = lowered
        .lines()
        .position(|l| l.contains("mbarrier.try_wait.parity"))
        .expect("try_wait in fixture")
        + 1;
    assert!(
        out.contains(&format!("{path}:{line}:")),
        "expected a finding at line {line}:\n{out}"
    );
    assert!(
        out.contains("error[ptx_feature]: `mbarrier.try_wait.parity` requires .target sm_90"),
        "{out}"
    );
}

#[test]
fn read_errors_carry_file_line_and_column() {
    let path = temp_file(
        "broken.ptx",
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tret\n}\n",
    );
    let (status, out) = run(&["check", &path]);
    assert_eq!(status, 1, "{out}");
    assert!(out.starts_with(&format!("{path}:7:")), "{out}");
    assert!(out.contains("error:"), "{out}");
}

#[test]
fn fmt_prints_the_canonical_text_which_is_a_fixed_point() {
    let (status, first) = run(&["fmt", &fixture("named_barriers.ptx")]);
    assert_eq!(status, 0, "{first}");
    let path = temp_file("formatted.ptx", &first);
    let (status, second) = run(&["fmt", &path]);
    assert_eq!(status, 0, "{second}");
    assert_eq!(first, second);
    assert!(first.contains("bar.arrive \t1, 64;"), "{first}");
}

#[test]
fn usage_errors_exit_with_two() {
    assert_eq!(run(&[]).0, 2);
    assert_eq!(run(&["frobnicate"]).0, 2);
    assert_eq!(run(&["check"]).0, 2);
    let (status, out) = run(&["check", "/nonexistent/file.ptx"]);
    assert_eq!(status, 1);
    assert!(out.contains("cannot read"), "{out}");
    let path = temp_file("binary.ptx", "\u{0}\u{1}");
    let bytes_path =
        std::env::temp_dir().join(format!("phasegate-cli-{}-latin1.ptx", std::process::id()));
    std::fs::write(&bytes_path, [0xff, 0xfe, 0x41]).expect("write");
    let (status, out) = run(&["check", &bytes_path.display().to_string()]);
    assert_eq!(status, 1);
    assert!(out.contains("not UTF-8"), "{out}");
    let (status, _) = run(&["check", &path]);
    assert_eq!(status, 1);
    assert_eq!(run(&["help"]).0, 0);
}

/// clap's help for the command and each subcommand, `--version`, and usage errors that name
/// the bad flag or argument (exit status 2).
#[test]
fn help_version_and_errors_that_name_the_flag() {
    let (status, out) = run(&["--version"]);
    assert_eq!(
        (status, out.trim()),
        (0, concat!("phasegate ", env!("CARGO_PKG_VERSION")))
    );
    let (status, out) = run(&["lint", "--version"]);
    assert_eq!(status, 0, "{out}");
    let (status, out) = run(&["--help"]);
    assert_eq!(status, 0, "{out}");
    for sub in ["lint", "sim", "check", "fmt"] {
        assert!(out.contains(&format!("\n  {sub} ")), "{sub}: {out}");
    }
    for (sub, flags) in [
        (
            "lint",
            &["--format", "--allow", "--warn", "--deny", "--list"][..],
        ),
        (
            "sim",
            &[
                "--kernel",
                "--grid",
                "--block",
                "--cluster",
                "--dynamic-shared",
                "--arg",
                "--policy",
                "--seed",
                "--explore",
                "--max-steps",
                "--no-race-check",
                "--dump",
                "--out",
                "--trace",
                "--timeline",
                "--summary",
            ][..],
        ),
        ("check", &[][..]),
        ("fmt", &[][..]),
    ] {
        for help in [vec![sub, "--help"], vec!["help", sub]] {
            let (status, out) = run(&help);
            assert_eq!(status, 0, "{help:?}: {out}");
            assert!(out.contains(&format!("Usage: phasegate {sub}")), "{out}");
            assert!(out.contains("FILE.ptx"), "{out}");
            for flag in flags {
                assert!(out.contains(flag), "{sub} {flag}: {out}");
            }
        }
    }
    for (args, want) in [
        (&[][..], "Usage: phasegate <COMMAND>"),
        (&["frobnicate"][..], "unrecognized subcommand 'frobnicate'"),
        (&["check"][..], "<FILE.ptx>..."),
        (
            &["check", "--frobnicate", "x.ptx"][..],
            "unexpected argument '--frobnicate'",
        ),
        (
            &["fmt", "a.ptx", "b.ptx"][..],
            "unexpected argument 'b.ptx'",
        ),
        (
            &["sim", "x.ptx", "--grid", "1", "--block", "0x"][..],
            "invalid value '0x' for '--block",
        ),
        (
            &["sim", "x.ptx", "--grid", "1", "--block", "1", "--seed"][..],
            "'--seed <N>'",
        ),
    ] {
        let (status, out) = run(args);
        assert_eq!(status, 2, "{args:?}: {out}");
        assert!(out.contains(want), "{args:?}: want `{want}`:\n{out}");
    }
}
