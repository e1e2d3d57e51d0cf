//! `phasegate lint --format json FILE` on arbitrary file contents (not only UTF-8): never a
//! panic, never a usage error; exit status 0 (clean or warnings) or 1 (deny finding or read
//! error), and a file that does not read is reported as one JSON object with `"lint":"read"`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One file per fuzzing process, rewritten for each input.
fn path() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!(
            "phasegate-fuzz-cli-lint-{}.ptx",
            std::process::id()
        ))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = path();
    std::fs::write(path, data).expect("write the input file");
    let file = path.to_string_lossy().into_owned();
    let args: Vec<String> = ["lint", "--format", "json", &file]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut out = String::new();
    let status = phasegate::cli::run(&args, &mut out);
    assert!(status == 0 || status == 1, "exit status {status}:\n{out}");
    assert!(
        out.lines()
            .all(|l| l.starts_with("{\"file\":") && l.ends_with('}')),
        "not JSON lines:\n{out}"
    );
    let reads = std::str::from_utf8(data)
        .ok()
        .is_some_and(|text| phasegate_ptx::parse(text).is_ok());
    if !reads {
        assert_eq!(status, 1, "a file that does not read must exit 1:\n{out}");
        assert!(
            out.starts_with("{\"file\":")
                && out.contains("\"lint\":\"read\"")
                && out.ends_with("}\n"),
            "read error not reported:\n{out}"
        );
    }
});
