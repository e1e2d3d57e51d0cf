use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish();
    let bar = bar.arrive().wait();
    sync_threads();
    let gone = bar.inval(thread_idx_x() == 0);
    let token = gone.arrive();
    out[0] = 1;
}

fn main() {}
