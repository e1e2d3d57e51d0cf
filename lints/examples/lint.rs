//! Lints PTX files and prints the findings (what `phasegate lint` prints, without the CLI's
//! options). `cargo run -p phasegate-lints --example lint -- FILE.ptx...`

fn main() {
    let mut status = 0;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{path}: {e}");
                status = 1;
                continue;
            }
        };
        match phasegate_ptx::parse(&text) {
            Ok(m) => {
                for d in phasegate_lints::lint_module(&m, &phasegate_lints::LintConfig::default()) {
                    println!("{path}:{}:{}: {d}", d.span.line, d.span.col);
                    if let Some(s) = &d.source {
                        println!("  --> {s}");
                    }
                }
            }
            Err(e) => {
                eprintln!("{path}:{}:{}: {}", e.line, e.col, e.message);
                status = 1;
            }
        }
    }
    std::process::exit(status);
}
