use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish();
    // phase 0 has even parity: waiting for an odd phase that has not started returns at once
    let bar = bar.wait_parity(ODD);
    out[0] = 1;
}

fn main() {}
