use phasegate::prelude::*;

// What the instruction cannot read is a compile error on the tokens that asked for it.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    short: TensorMap<f32, Tile2<32, 32>, Swizzle128B>,
    plain: TensorMap<f32, Tile2<32, 64>>,
    narrow: TensorMap<f32, Tile2<8, 64>, Swizzle64B>,
    words: TensorMap<u32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    i: u32,
) {
    // M is 64; N a multiple of 8 up to 256; the accumulator f32.
    let tall = accumulator::<f32, 128, 64>();
    let odd = accumulator::<f32, 64, 12>();
    let ints = accumulator::<u32, 64, 64>();
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>();
    // A's box has 32 rows, not M = 64 (and the two boxes do not fill the stage).
    let acc = acc.mma(&slot, &short, &b);
    // B's box has 64 rows, the accumulator N = 128.
    let wide = accumulator::<f32, 64, 128>().mma(&slot, &a, &b);
    // Unswizzled, and rows of 32 bytes under a 64-byte swizzle.
    let acc = acc.mma(&slot, &plain, &narrow);
    // Not an element type wgmma reads, nor the stage's.
    let acc = acc.mma(&slot, &words, &b);
    let acc = acc.commit().wait::<0>();
    // Each thread holds 32 elements, each a register of its own.
    c[0] = acc.get(32);
    c[1] = acc.get(i);
    let acc = acc.mma(&slot, &a, &b).commit();
    let acc = acc.wait();
    slot.release();
}

fn main() {}
