use phasegate::prelude::*;

// The explanation of why a barrier's condition is divergent names the kernel's variables and
// expressions, each at its own line and column, not the PTX registers that hold them.
#[kernel]
fn assigned_under_a_branch(out: &mut [u32]) {
    let t = thread_idx_x();
    let mut i = 0u32;
    if t % 2 == 0 {
        i = 1;
    }
    if i == 1 {
        sync_threads();
    }
    out[t] = i;
}

#[kernel]
fn computed_by_expressions(out: &mut [u32], n: u32) {
    let base = block_idx_x() * block_dim_x();
    if (thread_idx_x() + 1) * 2 < n {
        sync_threads();
    }
    out[base] = n;
}

fn main() {}
