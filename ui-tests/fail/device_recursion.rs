use phasegate::prelude::*;

#[device]
fn countdown(x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    countdown(x - 1)
}

#[kernel]
fn k(out: &mut [u32]) {
    out[thread_idx_x()] = countdown(3);
}

// Recursion through other device functions: reported by the kernels that call them, with the
// cycle.
#[device]
fn ping(x: u32) -> u32 {
    pong(x)
}

#[device]
fn pong(x: u32) -> u32 {
    ping(x)
}

#[kernel]
fn k2(out: &mut [u32]) {
    out[thread_idx_x()] = ping(3);
}

fn main() {}
