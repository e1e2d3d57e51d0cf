use phasegate::prelude::*;

// `acc.stage_columns_32(&mut tile, index, block)` writes a constant 32-column block of the
// accumulator into a 64 × 32 tile of 16-bit floats (1024 pairs) where its 64-byte swizzle
// starts (a multiple of 256 pairs).
#[kernel(target = "sm_90a", block = "128,1,1")]
fn narrow_staging_misuse() {
    let acc = accumulator::<f32, 64, 160>();
    let mut pairs = shared_array::<[bf16; 2], 2048>();
    let mut short = shared_array::<[bf16; 2], 512>();
    // A block past the accumulator's five.
    acc.stage_columns_32(&mut pairs, 0, 5);
    // Not where the 64-byte swizzle pattern starts.
    acc.stage_columns_32(&mut pairs, 64, 1);
    // Shorter than one 64 × 32 tile.
    acc.stage_columns_32(&mut short, 0, 0);
    // 160 columns are not whole 64-column blocks past the second.
    acc.stage_columns(&mut pairs, 0, 2);
    // Transposed, a 32-column block is a 32 × 64 tile in the 128-byte swizzle: it starts at a
    // multiple of 256 pairs, and there are five of them.
    acc.stage_columns_transposed_32(&mut pairs, 128, 0);
    acc.stage_columns_transposed_32(&mut pairs, 1024, 5);
    acc.stage_columns_transposed_32(&mut pairs, 1024, 4);
}

fn main() {}
