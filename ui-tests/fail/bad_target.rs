use phasegate::prelude::*;

#[kernel(target = "sm_9x")]
fn a(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(target = "sm_60")]
fn b(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(targte = "sm_90")]
fn c(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
