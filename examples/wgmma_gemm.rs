//! A Hopper GEMM main loop in the kernel language: TMA tiles through a typed pipeline into
//! `wgmma`, one wgmma group kept in flight.
//!
//! `wgmma_gemm` computes `C = A · Bᵀ` for a row-major `M × K` matrix `A`, a row-major `N × K`
//! matrix `B` (both K contiguous, as tf32 wgmma reads them) and a row-major `M × N` matrix `C`,
//! one 64 × 64 tile of `C` per CTA. Warp 0 (one elected thread) loads each K-tile of 32 as two
//! boxes into a stage of a 4-stage ring: `A`'s 64 rows and `B`'s 64 rows, each row 128 bytes
//! with 128-byte swizzle. Warps 4 to 7, one warpgroup, multiply: `acc.mma(&slot, &a, &b)`
//! issues the stage's four `wgmma.mma_async.m64n64k8.f32.tf32.tf32`, whose matrix descriptors
//! come from the maps' types. The loop keeps one group in flight: it commits stage `i`'s
//! batch, waits until at most one group is pending (so stage `i - 1`'s is done) and only then
//! releases stage `i - 1` to the producer. The accumulator's type says what it may do at each
//! point (`Acc<f32, 64, 64, InFlight<P1>>` at the top of every iteration), so reading it before
//! `wait::<0>()` would not compile.
//!
//! Launch: blocks of 256 threads, a grid of `(N / 64, M / 64)`, `SPEC.dynamic_shared_bytes` of
//! dynamic shared memory, at least one K-tile. `cargo run --example wgmma_gemm` prints the PTX
//! and checks a 128 × 128 × 256 product in the simulator.

use phasegate::prelude::*;
use phasegate::runtime::sim::{Launch, TensorMapArg};

/// `c[r * n + j] = Σ_k a[r][k] · b[j][k]` for the CTA's 64 × 64 tile; `k_tiles` K-tiles of 32.
#[kernel(target = "sm_90a", block = "256,1,1")]
pub fn wgmma_gemm(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    n: u32,
    k_tiles: u32,
) {
    // A stage: A's box (32 × 64 f32) then B's (32 × 64 f32).
    let pipe = pipeline::<f32, 4, 4096>(thread_idx_x() == 0, 1, 128);
    let row0 = block_idx_y() * 64;
    let col0 = block_idx_x() * 64;
    if warp_id() < 4 {
        if warp_id() == 0 && elect_one() {
            a.prefetch();
            b.prefetch();
            let mut producer = pipe.producer();
            for kt in 0..k_tiles {
                producer
                    .acquire()
                    .load_tiles(&a, [kt * 32, row0], &b, [kt * 32, col0]);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        // ANCHOR: main_loop
        let slot = consumer.wait();
        let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
        let mut held = slot.retire();
        for _ in 1..k_tiles {
            let slot = consumer.wait();
            acc = acc.mma(&slot, &a, &b).commit().wait::<1>();
            // The group that read the held stage is complete: give it back.
            held.release();
            held = slot.retire();
        }
        let acc = acc.wait::<0>();
        held.release();
        acc.store(c, row0 * n + col0, n);
        // ANCHOR_END: main_loop
    }
}

/// Small integers: exact in tf32, and every sum of their products exact in f32.
pub fn operand(rows: u32, cols: u32, seed: u32) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| ((i.wrapping_mul(2654435761).wrapping_add(seed) >> 13) % 15) as f32 - 7.0)
        .collect()
}

/// The CPU reference: `C = A · Bᵀ`.
pub fn reference(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut c = vec![0f32; m * n];
    for r in 0..m {
        for j in 0..n {
            c[r * n + j] = (0..k).map(|x| a[r * k + x] * b[j * k + x]).sum();
        }
    }
    c
}

/// Simulates `wgmma_gemm` on an `m × n × k` problem; returns `C`.
pub fn run(m: u32, n: u32, k: u32, a: &[f32], b: &[f32], launch: Launch) -> Vec<f32> {
    let map = |name, rows: u32| {
        wgmma_gemm::SPEC
            .map_type(name)
            .expect("a map parameter")
            .tiled(0, &[k as u64, rows as u64], &[k as u64 * 4])
            .expect("a valid map")
    };
    let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let a_arg = TensorMapArg::owning(map("a", m), bytes(a));
    let b_arg = TensorMapArg::owning(map("b", n), bytes(b));
    let mut c = vec![f32::NAN; (m * n) as usize];
    let launch = Launch {
        grid: (n / 64, m / 64, 1),
        block: (256, 1, 1),
        ..launch
    };
    wgmma_gemm::simulate(&launch, (&a_arg, &b_arg, &mut c, n, k / 32))
        .unwrap_or_else(|e| panic!("wgmma_gemm: {e}"));
    c
}

fn main() {
    println!("{}", wgmma_gemm::PTX);
    let (m, n, k) = (128u32, 128u32, 256u32);
    let (a, b) = (operand(m, k, 1), operand(n, k, 2));
    let c = run(m, n, k, &a, &b, Launch::default());
    assert_eq!(c, reference(&a, &b, m as usize, n as usize, k as usize));
    println!("// wgmma_gemm: simulated, C = A · Bᵀ exactly for {m} × {n} × {k}");
}
