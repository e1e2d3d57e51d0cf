use phasegate::prelude::*;

// `acc.stage_columns_16(&mut tile, index, block)` writes a constant 16-column block of the
// accumulator into a 64 × 16 tile of 16-bit floats (512 pairs) where its 32-byte swizzle
// starts (a multiple of 64 pairs); `stage_columns_transposed_16` the same block as a 16 × 64
// tile where its 128-byte swizzle starts (a multiple of 256 pairs).
#[kernel(target = "sm_90a", block = "128,1,1")]
fn narrowest_staging_misuse() {
    let acc = accumulator::<f32, 64, 144>();
    let mut pairs = shared_array::<[bf16; 2], 1024>();
    let mut short = shared_array::<[bf16; 2], 256>();
    // A block past the accumulator's nine.
    acc.stage_columns_16(&mut pairs, 0, 9);
    // Not where the 32-byte swizzle pattern starts.
    acc.stage_columns_16(&mut pairs, 32, 1);
    // Shorter than one 64 × 16 tile.
    acc.stage_columns_16(&mut short, 0, 0);
    // 144 columns hold four whole 32-column blocks; a fifth would run past the accumulator.
    acc.stage_columns_32(&mut pairs, 0, 4);
    // The whole blocks are fine.
    acc.stage_columns_32(&mut pairs, 0, 3);
    acc.stage_columns_16(&mut pairs, 512, 8);
    // Transposed, a 16-column block is a 16 × 64 tile in the 128-byte swizzle: it starts at a
    // multiple of 256 pairs.
    acc.stage_columns_transposed_16(&mut pairs, 256, 8);
    acc.stage_columns_transposed_16(&mut pairs, 128, 0);
    let narrow = accumulator::<f32, 64, 16>();
    narrow.stage_columns_transposed_16(&mut pairs, 0, 1);
}

fn main() {}
