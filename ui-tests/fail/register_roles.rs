use phasegate::prelude::*;

// Two consumer warp groups claim 64 registers a thread each; the producer releases 64 for one.
#[kernel(target = "sm_90a", block = "384,1,1", max_registers = 168)]
fn greedy() {
    let regs = warpgroup_registers::<168>();
    if warp_id() < 4 {
        let _p = regs.release::<104, 1>();
    } else {
        let _c = regs.claim::<232, 2>();
    }
}

// Counts are multiples of 8 from 24 to 256; a claim raises, a release lowers.
#[kernel(target = "sm_90a", block = "256,1,1", max_registers = 128)]
fn counts() {
    let regs = warpgroup_registers::<128>();
    if warp_id() < 4 {
        let _p = regs.release::<20, 1>();
    } else {
        let _c = regs.claim::<96, 1>();
    }
}

// The budget is the kernel's `max_registers`, and roles need it.
#[kernel(target = "sm_90a", block = "256,1,1", max_registers = 128)]
fn other_budget() {
    let _regs = warpgroup_registers::<168>();
}

#[kernel(target = "sm_90a", block = "256,1,1")]
fn no_budget() {
    let _regs = warpgroup_registers::<168>();
}

// Three warp groups take roles in a block of two.
#[kernel(target = "sm_90a", block = "256,1,1", max_registers = 128)]
fn too_many_groups() {
    let regs = warpgroup_registers::<128>();
    if warp_id() < 4 {
        let _p = regs.release::<64, 2>();
    } else {
        let _c = regs.claim::<192, 1>();
    }
}

fn main() {}
