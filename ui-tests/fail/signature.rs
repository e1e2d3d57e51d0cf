use phasegate::prelude::*;

#[kernel]
async unsafe fn k<T>(x: &[f32], mut n: u32) -> u32 {
    n
}

fn main() {}
