use phasegate::prelude::*;

// `acc.stage_columns(&mut tile, index, block)` and `stage_columns_transposed` write a constant
// 64-column block of the accumulator into a 64 × 64 tile of 16-bit floats (2048 pairs) where
// its 128-byte swizzle starts.
#[kernel(target = "sm_90a", block = "128,1,1")]
fn staging_misuse(block: u32) {
    let acc = accumulator::<f32, 64, 128>();
    let mut pairs = shared_array::<[bf16; 2], 4096>();
    let mut words = shared_array::<f32, 4096>();
    // Not a tile of 16-bit float pairs.
    acc.stage_columns_transposed(&mut words, 0, 0);
    // A block past the accumulator's two.
    acc.stage_columns_transposed(&mut pairs, 0, 2);
    // A block named at run time: it names registers.
    acc.stage_columns(&mut pairs, 0, block);
    // Not where the swizzle pattern starts.
    acc.stage_columns_transposed(&mut pairs, 128, 1);
}

fn main() {}
