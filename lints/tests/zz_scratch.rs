// scratch: print the findings of /tmp/s/*.ptx (or body files wrapped by `module`). removed later.
mod common;

#[test]
fn scratch() {
    let dir = std::env::var("SCRATCH").unwrap_or("/tmp/s".into());
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for p in files {
        let t = std::fs::read_to_string(&p).unwrap();
        let text = if p.extension().is_some_and(|e| e == "body") {
            let (dirs, body) = t.split_once("\n---\n").unwrap_or(("", &t));
            common::module(dirs, body)
        } else {
            t
        };
        eprintln!("===== {}", p.display());
        let m = phasegate_ptx::parse(&text).unwrap();
        let stat = phasegate_lints::lint_module(&m, &phasegate_lints::LintConfig::default().with_witnesses(false));
        for d in &stat {
            eprintln!("STATIC line {}: {}[{}] {}", d.span.line, d.level.as_str(), d.lint, d.message);
        }
        for d in common::lint_text(&text) {
            eprintln!("line {}: {d}\n", d.span.line);
        }
    }
}

#[test]
fn dump_pipelines() {
    let _ = std::fs::create_dir_all("/tmp/p");
    let variants = [
        ("mw_pw0", common::Pipeline { producer_wait: false, ..Default::default() }),
        ("mw_cw0", common::Pipeline { consumer_wait: false, ..Default::default() }),
        ("ok", common::Pipeline::default()),
        ("ok_cutlass", common::Pipeline { producer_skips_first_round: false, ..Default::default() }),
        ("pm_pflip0", common::Pipeline { producer_flip: false, ..Default::default() }),
        ("pm_cflip", common::Pipeline { consumer_flip: true, ..Default::default() }),
        ("pm_both", common::Pipeline { consumer_flip: true, producer_skips_first_round: false, ..Default::default() }),
        ("tx_8192", common::Pipeline { expect_bytes: 8192, ..Default::default() }),
    ];
    for (n, o) in variants {
        std::fs::write(format!("/tmp/p/{n}.body"), format!("\n---\n{}", common::pipeline(&o))).unwrap();
    }
}
