//! The `phasegate` command: reads PTX (phasegate's or nvcc's) and reports on it.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = String::new();
    let status = phasegate::cli::run(&args, &mut out);
    print!("{out}");
    ExitCode::from(status)
}
