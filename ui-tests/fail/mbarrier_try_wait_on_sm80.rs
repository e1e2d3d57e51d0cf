use phasegate::prelude::*;

#[kernel(target = "sm_80")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish_cta();
    // try_wait needs sm_90; test_wait (`wait_test`) runs on sm_80
    let bar = bar.arrive().wait();
    out[0] = 1;
}

fn main() {}
