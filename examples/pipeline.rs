//! The warp-specialised bulk-copy pipeline: one producer thread streams 16 KB tiles of `x`
//! into 4 shared-memory stages with `cp.async.bulk`, completing on each stage's full mbarrier;
//! 4 consumer warps wait for a stage, compute `y = a * x` from it, and release it through the
//! stage's empty mbarrier. `Pipeline` makes the protocol correct by construction: the producer
//! can arm a stage only with the slot that proves it waited for the stage to be empty, and the
//! bytes it expects are the bytes its copy moves.
//!
//! Launch: blocks of exactly 160 threads (warp 0 produces, warps 1..=4 consume), any grid, and
//! `SPEC.dynamic_shared_bytes` (64 KiB) of dynamic shared memory. `x` and `y` hold
//! `tiles * 1024` vectors of 4 floats. `cargo run --example pipeline` prints the PTX.

use phasegate::prelude::*;

/// `y = a * x`, tile by tile, through a 4-stage bulk-copy pipeline. Blocks are exactly 160
/// threads, one per SM (the 64 KiB of stages allow no more): ptxas may give each thread enough
/// registers to keep all eight of its shared loads in flight, as CUDA's `__launch_bounds__(160, 1)`.
#[kernel(target = "sm_90a", block = "160,1,1", min_blocks_per_sm = 1)]
pub fn scale_pipeline(x: &[[f32; 4]], y: &mut [[f32; 4]], a: f32, tiles: u32) {
    const TILE: u32 = 1024; // vectors of 4 floats: 16 KB a tile
    const CONSUMERS: u32 = 128;
    let pipe = pipeline::<[f32; 4], 4, { TILE as usize }>(thread_idx_x() == 0, 1, CONSUMERS);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for tile in (block_idx_x()..tiles).step_by(grid_dim_x()) {
                producer.acquire().load(x, tile * TILE);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in (block_idx_x()..tiles).step_by(grid_dim_x()) {
            let slot = consumer.wait();
            // A constant trip count (8): ptxas unrolls it and keeps all eight loads in flight.
            for j in 0..TILE / CONSUMERS {
                let k = t + j * CONSUMERS;
                let v = slot.get(k);
                y[tile * TILE + k] = [a * v[0], a * v[1], a * v[2], a * v[3]];
            }
            slot.release();
        }
    }
}

fn main() {
    let spec = scale_pipeline::SPEC;
    println!(
        "// entry `{}`, target {}, {} bytes of dynamic shared memory",
        spec.entry, spec.target, spec.dynamic_shared_bytes
    );
    println!("{}", scale_pipeline::PTX);
}
