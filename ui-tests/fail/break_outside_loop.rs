use phasegate::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    if thread_idx_x() == 0 {
        break;
    }
    for i in 0..4u32 {
        continue 'missing;
    }
    out[0] = 1;
}

fn main() {}
