//! The command line, as a function from arguments to output and exit status, so that tests
//! call it directly. Arguments are parsed by [clap](https://docs.rs/clap) (`phasegate --help`,
//! `phasegate lint --help`, ...). Bad input never panics: it is reported with its file, line
//! and column.
//!
//! - `phasegate lint FILE.ptx...` ([`lint`]) and `phasegate sim FILE.ptx ...` ([`sim`]);
//! - `phasegate check FILE.ptx...`: reads each module and checks its `.version`/`.target`
//!   against the features it uses; exit status 1 when anything is wrong.
//! - `phasegate fmt FILE.ptx`: prints the module as phasegate writes PTX (canonical form).
//!
//! Exit status: 0 when clean, 1 when a finding or read error was reported, 2 on usage errors
//! (clap's included) and internal errors.

pub mod lint;
pub mod npy;
pub mod sarif;
pub mod sim;

use crate::lints::{Diagnostic, Level};
use crate::ptx::{self, validate};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

const EXIT_STATUS: &str = "\
Exit status: 0 when clean, 1 when a finding or read error was reported, 2 on usage errors";

/// The `phasegate` command line.
#[derive(Parser, Debug)]
#[command(
    name = "phasegate",
    version,
    about = "Reads PTX (phasegate's or nvcc's): the barrier analyzer, a CPU simulator, checks",
    propagate_version = true,
    arg_required_else_help = true,
    after_help = EXIT_STATUS
)]
pub struct Cli {
    /// What to do: `lint`, `sim`, `check` or `fmt`.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands; each variant's doc comment is its line in `phasegate --help`.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the barrier analyzer on PTX files
    Lint(lint::LintArgs),
    /// Run a kernel in the CPU simulator
    Sim(Box<sim::SimArgs>),
    /// Read PTX and check that its .version and .target cover every feature it uses
    #[command(after_help = EXIT_STATUS)]
    Check {
        /// The PTX files to check
        #[arg(value_name = "FILE.ptx", required = true)]
        files: Vec<String>,
    },
    /// Print PTX in phasegate's canonical form
    #[command(after_help = EXIT_STATUS)]
    Fmt {
        /// The PTX file to print
        #[arg(value_name = "FILE.ptx")]
        file: String,
    },
}

/// Runs a command line (the arguments after the program name); returns the exit status.
///
/// What the command prints goes to `out`, so a test (or a program embedding phasegate) reads it
/// as text:
///
/// ```rust
/// let path = std::env::temp_dir().join(format!("phasegate-doc-{}.ptx", std::process::id()));
/// let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
/// std::fs::write(&path, ptx).unwrap();
///
/// let mut out = String::new();
/// let status = phasegate::cli::run(&["check".into(), path.display().to_string()], &mut out);
/// std::fs::remove_file(&path).unwrap();
/// assert_eq!(status, 0);
/// assert!(out.ends_with(": ok (1 kernel, .version 8.0, .target sm_90)\n"), "{out}");
/// ```
pub fn run(args: &[String], out: &mut String) -> u8 {
    let argv = std::iter::once("phasegate").chain(args.iter().map(String::as_str));
    let matches = match Cli::command().try_get_matches_from(argv) {
        Ok(m) => m,
        Err(e) => return clap_error(&e, out),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => return clap_error(&e, out),
    };
    match cli.command {
        Command::Lint(a) => {
            let sub = matches.subcommand_matches("lint").expect("lint matches");
            lint::execute(a, sub, out)
        }
        Command::Sim(a) => sim::execute(*a, out),
        Command::Check { files } => check(&files, out),
        Command::Fmt { file } => fmt(&file, out),
    }
}

/// Runs `phasegate NAME ARGS`.
fn run_subcommand(name: &str, args: &[String], out: &mut String) -> u8 {
    let mut all = Vec::with_capacity(args.len() + 1);
    all.push(name.to_string());
    all.extend(args.iter().cloned());
    run(&all, out)
}

/// Writes clap's message (an error, or the help or version asked for) and returns its exit
/// status: 0 for `--help`/`--version`, 2 for usage errors.
fn clap_error(e: &clap::Error, out: &mut String) -> u8 {
    out.push_str(&e.render().to_string());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    u8::try_from(e.exit_code()).unwrap_or(2)
}

/// Reads a file as text; an error is the message to report (`cannot read: ...`).
fn read_text(path: &str) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"));
    // A gzip stream (`FILE.ptx.gz`: the real-world corpus stores large files so).
    let bytes = match bytes {
        Ok(b) if b.starts_with(&[0x1f, 0x8b]) => {
            use std::io::Read;
            let mut text = Vec::new();
            flate2::read::GzDecoder::new(&b[..])
                .read_to_end(&mut text)
                .map(|_| text)
                .map_err(|e| format!("cannot decompress (gzip): {e}"))
        }
        other => other,
    };
    match bytes {
        Ok(bytes) => String::from_utf8(bytes).map_err(|e| {
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            )
        }),
        Err(e) => Err(e),
    }
}

/// Reads a file as a module; a read error is written as `FILE:LINE:COL: error: ...`.
fn read(path: &str, out: &mut String) -> Option<ptx::Module> {
    let text = match read_text(path) {
        Ok(text) => text,
        Err(message) => {
            out.push_str(&format!("{path}: error: {message}\n"));
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
                witness: None,
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

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
