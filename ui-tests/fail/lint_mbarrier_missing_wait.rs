use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let mut bar = mbarrier().init(thread_idx_x() == 0, block_dim_x()).publish().into_dynamic();
    bar.arrive();
    // the next phase's arrive, with no wait for the first phase in between
    bar.arrive();
    bar.wait();
    out[0] = bar.parity();
}

fn main() {}
