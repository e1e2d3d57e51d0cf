#![deny(deprecated)]
use phasegate::prelude::*;

// The analyzer's warnings reach rustc as warnings; this test denies them to see them.
#[kernel]
fn k(out: &mut [u32], n: u32) {
    let t = thread_idx_x();
    if t >= n {
        return;
    }
    sync_threads();
    out[t] = t;
}

fn main() {}
