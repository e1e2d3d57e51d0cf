use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish();
    let first = bar.arrive();
    let second = bar.arrive(); // arriving twice in one phase without a wait
    let bar = first.wait();
    out[0] = 1;
}

fn main() {}
