use phasegate::prelude::*;

#[kernel(block = "128,2,8")]
fn too_big(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(block = "128")]
fn not_three(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(max_threads = 2048, min_blocks_per_sm = 0)]
fn out_of_range(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(min_blocks_per_sm = 2)]
fn no_block_size(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel(block = "256,1,1", max_threads = 128)]
fn block_over_max(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
