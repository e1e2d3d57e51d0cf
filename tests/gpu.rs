//! GPU tests (feature `cuda`): every example kernel and 20 generated kernels, run in the
//! simulator and on the GPU, must agree bit for bit. Without a CUDA driver or device they say
//! so and count as skipped — visibly, since this test prints its own summary.

#[path = "../examples/support/differential.rs"]
mod differential;

use differential::{compare, example_cases, generated_case};
use phasegate::runtime::cuda::Gpu;
use phasegate::runtime::rng::Rng;

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("gpu: 0 passed, 0 failed, 1 skipped: {e}");
            return;
        }
    };
    let mut rng = Rng::new(7);
    let mut cases = example_cases(&mut rng);
    cases.extend((1000..1020).map(|seed| generated_case(seed).0));
    let (mut passed, mut failed) = (0, 0);
    for case in &cases {
        match compare(&gpu, case) {
            Ok(true) => passed += 1,
            Ok(false) => failed += 1,
            Err(e) => {
                println!("gpu: {} failed: {e}", case.name);
                failed += 1;
            }
        }
    }
    println!("gpu: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
