//! The simulator against the GPU: every example kernel and a stream of generated
//! barrier-correct kernels run both ways on the same inputs; the outputs must agree bit for bit.
//!
//! `cargo run --release --features cuda --example gpu_differential -- [COUNT] [FIRST_SEED]`
//! on a machine with an NVIDIA GPU (the driver is loaded at run time). Prints one line per
//! mismatch and a summary; exits non-zero on any mismatch or failure.

#[path = "support/differential.rs"]
mod differential;

use differential::{Case, compare, example_cases, generated_case};
use phasegate::runtime::cuda::Gpu;
use phasegate::runtime::rng::Rng;

fn main() {
    let mut argv = std::env::args().skip(1);
    let count: u64 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(200);
    let first: u64 = argv.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let mut rng = Rng::new(0x5eed ^ first);
    let (mut agreed, mut mismatched, mut failed) = (0, 0, 0);
    let mut cases: Vec<Case> = example_cases(&mut rng);
    for seed in first..first + count {
        cases.push(generated_case(seed).0);
    }
    for case in &cases {
        match compare(&gpu, case) {
            Ok(true) => agreed += 1,
            Ok(false) => mismatched += 1,
            Err(e) => {
                println!("FAILED {}: {e}", case.name);
                failed += 1;
            }
        }
    }
    println!(
        "differential: {} kernels ({} examples, {count} generated from seed {first}): {agreed} agree, {mismatched} mismatch, {failed} failed",
        cases.len(),
        cases.len() as u64 - count
    );
    if mismatched + failed > 0 {
        std::process::exit(1);
    }
}
