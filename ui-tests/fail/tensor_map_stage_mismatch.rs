use phasegate::prelude::*;

#[kernel(target = "sm_90a", block = "160,1,1")]
fn k(
    a: TensorMap<f32, Tile2<32, 8>>,
    h: TensorMap<u32, Tile2<32, 8>>,
    s: TensorMap<f32, Tile2<32, 8>, Swizzle128B>,
    n: u32,
) {
    // Stages of 512 floats; a box of 32 × 8 floats fills only half of one.
    let pipe = pipeline::<f32, 4, 512>(thread_idx_x() == 0, 1, 128);
    let mut producer = pipe.producer();
    producer.acquire().load_tile(&a, [0, n]);
    // The map's elements are not the stage's.
    producer.acquire().load_tiles(&a, [0, 0], &h, [0, 8]);
    // A box is named by as many coordinates as the map has dimensions.
    producer.acquire().load_tiles(&a, [0, 0, 0], &a, [n]);
    // Stages of 320 floats (1280 bytes): a 128-byte swizzled box needs 1024-byte stages.
    let odd = pipeline::<f32, 2, 320>(thread_idx_x() == 0, 1, 128);
    odd.producer().acquire().load_tile(&s, [0, 0]);
    // A tensor store reads its box from an aligned place of the right type.
    let tile = shared_array::<f32, 512>();
    let words = shared_array::<u32, 256>();
    tma_store(&a, [0, 0], &tile, 8);
    tma_store(&a, [0, 0], &words, 0);
    // Maps stay parameters.
    let m = a;
}

fn main() {}
