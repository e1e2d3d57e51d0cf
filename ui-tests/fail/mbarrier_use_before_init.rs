use phasegate::prelude::*;

#[kernel(target = "sm_90")]
fn k(out: &mut [u32]) {
    let bar = mbarrier();
    let token = bar.arrive();
    out[0] = 1;
}

fn main() {}
