//! Tensor maps: tiles of a row-major matrix moved by the tensor memory accelerator (TMA)
//! through a typed pipeline.
//!
//! `tma_scale` streams 32 × 8 tiles of `x` into 4 stages with 128-byte swizzle and writes
//! `a * x` to `y`; the consumers undo the swizzle when they read a stage. `tma_add` loads a
//! tile of `a` and one of `b` into each stage (one mbarrier completes on both boxes), adds
//! them in shared memory and stores the sum with a tensor store. Neither kernel names a byte
//! count: each copy's bytes come from its map's type, and a box that did not fill its stage
//! would be a compile error.
//!
//! Launch: blocks of 160 threads (warp 0 produces, warps 1..=4 consume) and
//! `SPEC.dynamic_shared_bytes` of dynamic shared memory; the maps are made with
//! `SPEC.map_type(name)`'s `tiled` over the matrices (`cargo run --example tma_tiles` prints
//! the PTX and checks both kernels in the simulator).

use phasegate::prelude::*;
use phasegate::runtime::sim::{Launch, TensorMapArg};

/// `y = a * x` for a `width`-wide row-major matrix `x` of `tiles` 32 × 8 tiles, `tiles_x` of
/// them per row of tiles.
#[kernel(target = "sm_90a", block = "160,1,1")]
pub fn tma_scale(
    x: TensorMap<f32, Tile2<32, 8>, Swizzle128B>,
    y: &mut [f32],
    a: f32,
    width: u32,
    tiles_x: u32,
    tiles: u32,
) {
    let pipe = pipeline::<f32, 4, 256>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 {
        if elect_one() {
            x.prefetch();
            let mut producer = pipe.producer();
            for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
                producer
                    .acquire()
                    .load_tile(&x, [(t % tiles_x) * 32, (t / tiles_x) * 8]);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let k0 = thread_idx_x() - 32;
        for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
            let slot = consumer.wait();
            for j in 0..2u32 {
                let k = k0 + j * 128;
                let r = k / 32;
                let c = k % 32;
                // 128-byte swizzle: the 16-byte chunk of a row moves by the row's index mod 8.
                let chunk = (c / 4) ^ (r % 8);
                let v = slot.get(r * 32 + chunk * 4 + c % 4);
                y[((t / tiles_x) * 8 + r) * width + (t % tiles_x) * 32 + c] = a * v;
            }
            slot.release();
        }
    }
}

/// `c = a + b` for row-major matrices of `tiles` 16 × 16 tiles, `tiles_x` per row of tiles:
/// both tiles arrive in one stage, the sum leaves through a tensor store.
#[kernel(target = "sm_90a", block = "160,1,1")]
pub fn tma_add(
    a: TensorMap<f32, Tile2<16, 16>>,
    b: TensorMap<f32, Tile2<16, 16>>,
    c: TensorMap<f32, Tile2<16, 16>>,
    tiles_x: u32,
    tiles: u32,
) {
    let pipe = pipeline::<f32, 2, 512>(thread_idx_x() == 0, 1, 128);
    let mut sum = shared_array::<f32, 256>();
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
                let at = [(t % tiles_x) * 16, (t / tiles_x) * 16];
                producer.acquire().load_tiles(&a, at, &b, at);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let k = thread_idx_x() - 32;
        let store = named_barrier::<1, 128>();
        for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
            let slot = consumer.wait();
            sum[k] = slot.get(k) + slot.get(256 + k);
            sum[k + 128] = slot.get(k + 128) + slot.get(384 + k);
            slot.release();
            // Every consumer's generic-proxy writes are ordered before the async-proxy read.
            fence_proxy_async();
            store.sync();
            if k == 0 {
                tma_store(&c, [(t % tiles_x) * 16, (t / tiles_x) * 16], &sum, 0);
                bulk_commit();
                bulk_wait_read(0);
            }
            store.sync();
        }
        if k == 0 {
            bulk_wait(0);
        }
    }
}

/// `y = 2 x` for `tiles` consecutive 32 × 8 tiles of a 32-wide matrix, with the warp-group
/// register roles of a warp-specialised GEMM: warp group 0 produces and gives registers back
/// (`setmaxnreg.dec` to 40), warp groups 1 and 2 consume and take them (`setmaxnreg.inc` to
/// 232); `#[kernel]` checks that the two claims take exactly what the release gave.
#[kernel(target = "sm_90a", block = "384,1,1", max_registers = 168)]
pub fn tma_roles(x: TensorMap<f32, Tile2<32, 8>>, y: &mut [f32], tiles: u32) {
    let regs = warpgroup_registers::<168>();
    let pipe = pipeline::<f32, 4, 256>(thread_idx_x() == 0, 1, 256);
    if warp_id() < 4 {
        let _producer = regs.release::<40, 1>();
        if warp_id() == 0 && elect_one() {
            let mut producer = pipe.producer();
            for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
                producer.acquire().load_tile(&x, [0, t * 8]);
            }
        }
    } else {
        let _consumer = regs.claim::<232, 2>();
        let mut consumer = pipe.consumer();
        let k = thread_idx_x() - 128;
        for t in (block_idx_x()..tiles).step_by(grid_dim_x()) {
            let slot = consumer.wait();
            y[t * 256 + k] = 2.0 * slot.get(k);
            slot.release();
        }
    }
}

/// `c = a + b` per 16 × 16 tile, where the two CTAs of a cluster share each tile of `b`: each
/// CTA loads its own tile of `a` and one 8-row half of `b`'s tile, multicast into both CTAs'
/// stages. A stage is free again only when both CTAs' consumers released it; the pipeline
/// arrives on both CTAs' empty barriers and holds every thread at the cluster barrier before
/// it exits. Tile `s` of cluster `q`, CTA rank `r`, is rows `((q * steps + s) * 2 + r) * 16` of
/// `a` and `c`, and `b`'s tile `s` is rows `s * 16`.
#[kernel(target = "sm_90a", block = "160,1,1", cluster = "2,1,1")]
pub fn tma_multicast(
    a: TensorMap<f32, Tile2<16, 16>>,
    b: TensorMap<f32, Tile2<16, 8>>,
    c: &mut [f32],
    steps: u32,
) {
    let pipe = pipeline_cluster::<f32, 2, 512, 2>(thread_idx_x() == 0, 1, 128);
    let rank = cluster_cta_rank();
    let cluster = block_idx_x() / 2;
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for s in 0..steps {
                let row = ((cluster * steps + s) * 2 + rank) * 16;
                producer
                    .acquire()
                    .load_tiles_multicast(&a, [0, row], &b, [0, s * 16 + rank * 8]);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let k = thread_idx_x() - 32;
        for s in 0..steps {
            let slot = consumer.wait();
            let base = ((cluster * steps + s) * 2 + rank) * 256;
            c[base + k] = slot.get(k) + slot.get(256 + k);
            c[base + k + 128] = slot.get(k + 128) + slot.get(384 + k);
            slot.release();
        }
    }
}

fn main() {
    println!("{}", tma_scale::PTX);
    println!("{}", tma_add::PTX);
    println!("{}", tma_roles::PTX);
    println!("{}", tma_multicast::PTX);

    let (w, h) = (64u32, 16u32);
    let x: Vec<f32> = (0..w * h).map(|i| i as f32).collect();
    let map = tma_scale::SPEC
        .map_type("x")
        .expect("a map parameter")
        .tiled(0, &[w as u64, h as u64], &[w as u64 * 4])
        .expect("a valid map");
    let x_arg = TensorMapArg::owning(map, x.iter().flat_map(|v| v.to_le_bytes()).collect());
    let mut y = vec![0f32; (w * h) as usize];
    let launch = Launch {
        grid: (2, 1, 1),
        block: (160, 1, 1),
        ..Launch::default()
    };
    let tiles = (w / 32) * (h / 8);
    tma_scale::simulate(&launch, (&x_arg, &mut y, 3.0f32, w, w / 32, tiles))
        .expect("tma_scale simulates cleanly");
    assert!(y.iter().zip(&x).all(|(y, x)| *y == 3.0 * x));
    println!(
        "// tma_scale: simulated, y = 3 x for all {} elements",
        y.len()
    );
}
