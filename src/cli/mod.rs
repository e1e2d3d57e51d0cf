//! The command line, as a function from arguments to output and exit status, so that tests
//! call it directly. Bad input never panics: it is reported with its file, line and column.
//!
//! - `phasegate lint FILE.ptx...` ([`lint`]) and `phasegate sim FILE.ptx ...` ([`sim`]);
//! - `phasegate check FILE.ptx...`: reads each module and checks its `.version`/`.target`
//!   against the features it uses; exit status 1 when anything is wrong.
//! - `phasegate fmt FILE.ptx`: prints the module as phasegate writes PTX (canonical form).

pub mod lint;
pub mod sim;

use crate::lints::{Diagnostic, Level};
use crate::ptx::{self, validate};

pub const USAGE: &str = "\
usage: phasegate <command> [args]

commands:
  lint FILE.ptx...    the barrier analyzer (`phasegate lint --help`)
  sim FILE.ptx ...    run a kernel in the CPU simulator (`phasegate sim --help`)
  check FILE.ptx...   read PTX and check that its .version and .target cover every feature it uses
  fmt FILE.ptx        print PTX in phasegate's canonical form
  help                print this message

exit status: 0 when clean, 1 when a finding or read error was reported, 2 on usage errors
";

/// Runs a command line; returns the exit status.
pub fn run(args: &[String], out: &mut String) -> u8 {
    match args.first().map(String::as_str) {
        Some("check") if args.len() > 1 => check(&args[1..], out),
        Some("lint") => lint::run(&args[1..], out),
        Some("sim") => sim::run(&args[1..], out),
        Some("fmt") if args.len() == 2 => fmt(&args[1], out),
        Some("help" | "--help" | "-h") => {
            out.push_str(USAGE);
            0
        }
        Some("--version" | "-V") => {
            out.push_str(concat!("phasegate ", env!("CARGO_PKG_VERSION"), "\n"));
            0
        }
        Some(other @ ("check" | "fmt")) => {
            out.push_str(&format!(
                "error: `{other}` needs {}\n\n{USAGE}",
                if other == "fmt" {
                    "one FILE.ptx"
                } else {
                    "at least one FILE.ptx"
                }
            ));
            2
        }
        Some(other) => {
            out.push_str(&format!("error: unknown command `{other}`\n\n{USAGE}"));
            2
        }
        None => {
            out.push_str(USAGE);
            2
        }
    }
}

/// Reads a file as a module; a read error is written as `FILE:LINE:COL: error: ...`.
fn read(path: &str, out: &mut String) -> Option<ptx::Module> {
    let text = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                out.push_str(&format!(
                    "{path}: error: not UTF-8 text (invalid byte at offset {})\n",
                    e.utf8_error().valid_up_to()
                ));
                return None;
            }
        },
        Err(e) => {
            out.push_str(&format!("{path}: error: cannot read: {e}\n"));
            return None;
        }
    };
    match ptx::parse(&text) {
        Ok(module) => Some(module),
        Err(e) => {
            out.push_str(&format!(
                "{path}:{}:{}: error: {}\n",
                e.line, e.col, e.message
            ));
            None
        }
    }
}

fn check(paths: &[String], out: &mut String) -> u8 {
    let mut status = 0;
    for path in paths {
        let Some(module) = read(path, out) else {
            status = 1;
            continue;
        };
        let findings: Vec<Diagnostic> = validate::check_features(&module)
            .into_iter()
            .map(|e| Diagnostic {
                lint: "ptx_feature",
                level: Level::Deny,
                function: e.function.clone(),
                stmt: e.stmt,
                span: e.span,
                message: e.to_string(),
                notes: vec![format!(
                    "the lowest .version for what this module uses is {}",
                    validate::required_version(&module)
                )],
                related: Vec::new(),
                source: None,
            })
            .collect();
        for d in &findings {
            out.push_str(&format!("{path}:{}:{}: {}\n", d.span.line, d.span.col, d));
        }
        if findings.is_empty() {
            let kernels = module.entries().count();
            out.push_str(&format!(
                "{path}: ok ({kernels} kernel{}, .version {}, .target {})\n",
                if kernels == 1 { "" } else { "s" },
                module.version,
                module.target.sm
            ));
        } else {
            status = 1;
        }
    }
    status
}

fn fmt(path: &str, out: &mut String) -> u8 {
    match read(path, out) {
        Some(module) => {
            out.push_str(&ptx::write_string(&module));
            0
        }
        None => 1,
    }
}
