use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    // initialised by one thread, but not yet visible to the others
    let bar = mbarrier().init(thread_idx_x() == 0, 64);
    let token = bar.arrive();
    out[0] = 1;
}

fn main() {}
