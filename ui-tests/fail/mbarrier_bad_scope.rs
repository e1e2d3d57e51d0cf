use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier().init(thread_idx_x() == 0, 64).publish();
    let bar = bar.arrive_with(Sem::Relaxed, Scope::Gpu).wait();
    bar.expect_tx_with(16, Sem::Ordered, Scope::Cta);
    out[0] = 1;
}

fn main() {}
