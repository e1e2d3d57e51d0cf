use phasegate::prelude::*;

#[kernel]
struct NotAKernel;

fn main() {}
