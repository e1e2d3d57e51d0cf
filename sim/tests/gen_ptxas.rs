//! Every generated kernel assembles with ptxas.

use phasegate_ptx::{SmVersion, ptxas};
use phasegate_sim::generate;

#[test]
fn generated_kernels_assemble() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    for seed in 0..40 {
        let k = generate::kernel(seed);
        let r = ptxas::assemble(&ptxas, &k.ptx, SmVersion::arch_specific(90))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            r.clean,
            "seed {seed} ({:?}):\n{}\n{}",
            k.phases, r.log, k.ptx
        );
    }
}
