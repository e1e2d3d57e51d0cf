use phasegate::prelude::*;

#[kernel(cluster = "2,1,1")]
fn k(out: &mut [u32]) {
    let cluster = cluster_barrier().wait();
    out[0] = 1;
}

fn main() {}
