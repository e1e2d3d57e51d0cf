use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish();
    let token = bar.arrive();
    let bar = token.wait();
    let again = token.wait(); // the token of a completed phase
    out[0] = 1;
}

fn main() {}
