use phasegate::prelude::*;

// The block is declared: launched with 64 threads the kernel would be correct, and the analyzer
// proves a finding under the launch a kernel declares, or one under which it completes.
#[kernel(block = "128,1,1")]
fn k(out: &mut [u32]) {
    let t = thread_idx_x();
    if t < 96 {
        // three warps on a barrier counted for two: the third waits for an instance that
        // never completes
        named_barrier::<1, 64>().sync();
    }
    out[t] = t;
}

fn main() {}
