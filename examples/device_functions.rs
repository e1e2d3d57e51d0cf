//! Device functions: ordinary Rust functions under `#[device]`, called from kernels and from
//! each other, inlined into each kernel's PTX. `block_sums` adds each block's 256 inputs in
//! shared memory with a const-generic tree step (`halve::<N>`), the device functions of
//! `helpers` come in with a `use`, and `stream_scale` passes the slots of a bulk-copy pipeline
//! to device functions by value: rustc checks their typestate across the calls.
//! `cargo run --example device_functions` prints the PTX.

use phasegate::prelude::*;

mod helpers {
    use phasegate::prelude::*;

    /// `x` clamped to `0..=hi`, with an early `return`.
    #[device]
    pub fn clamp(x: f32, hi: f32) -> f32 {
        if x < 0.0 {
            return 0.0;
        }
        x.min(hi)
    }

    /// The global index of this thread.
    #[device]
    pub fn global_index() -> u32 {
        block_idx_x() * block_dim_x() + thread_idx_x()
    }
}

use helpers::{clamp, global_index};

// ANCHOR: halve
/// One step of a shared-memory tree sum: the first `N` threads add the upper half in.
#[device]
fn halve<const N: u32>(sums: &mut SharedArray<f32, 256>, t: u32) {
    if t < N {
        sums[t] = sums[t] + sums[t + N];
    }
    sync_threads();
}
// ANCHOR_END: halve

/// The sum of the CTA's 256 values of `sums`, in thread 0's result (others get garbage).
#[device]
fn tree_sum(sums: &mut SharedArray<f32, 256>, t: u32) -> f32 {
    halve::<128>(sums, t);
    halve::<64>(sums, t);
    halve::<32>(sums, t);
    halve::<16>(sums, t);
    halve::<8>(sums, t);
    halve::<4>(sums, t);
    halve::<2>(sums, t);
    halve::<1>(sums, t);
    sums[0]
}

// ANCHOR: block_sums
/// `out[b]` = the sum over block `b` of `clamp(x[i], hi)`. Blocks of 256 threads.
#[kernel(block = "256,1,1")]
pub fn block_sums(x: &[f32], out: &mut [f32], hi: f32, n: u32) {
    let mut sums = shared_array::<f32, 256>();
    let t = thread_idx_x();
    let i = global_index();
    let mut v = 0.0f32;
    if i < n {
        v = clamp(x[i], hi);
    }
    sums[t] = v;
    sync_threads();
    let total = tree_sum(&mut sums, t);
    if t == 0 {
        out[block_idx_x()] = total;
    }
}
// ANCHOR_END: block_sums

// ANCHOR: produce
/// Loads tile `tile` of `x` into the producer's acquired stage: the slot is moved in and used
/// up (a second `load` of it would be a rustc error at the call's caller).
#[device]
fn produce(slot: ProducerSlot<'_, [f32; 4], 4, 1024>, x: &[[f32; 4]], tile: u32) {
    slot.load(x, tile * 1024);
}
// ANCHOR_END: produce

/// Scales a full stage into `y` and releases it: the slot is moved in and released here.
#[device]
fn consume<const CONSUMERS: u32>(
    slot: ConsumerSlot<'_, [f32; 4], 4, 1024>,
    y: &mut [[f32; 4]],
    a: f32,
    tile: u32,
    t: u32,
) {
    for j in 0..1024 / CONSUMERS {
        let k = t + j * CONSUMERS;
        let v = slot.get(k);
        y[tile * 1024 + k] = [a * v[0], a * v[1], a * v[2], a * v[3]];
    }
    slot.release();
}

/// `y = a * x` through a 4-stage bulk-copy pipeline, as `examples/pipeline.rs`, with the
/// producer's and consumers' steps in device functions. Blocks of 160 threads.
#[kernel(target = "sm_90a", block = "160,1,1")]
pub fn stream_scale(x: &[[f32; 4]], y: &mut [[f32; 4]], a: f32, tiles: u32) {
    let pipe = pipeline::<[f32; 4], 4, 1024>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for tile in (block_idx_x()..tiles).step_by(grid_dim_x()) {
                produce(producer.acquire(), x, tile);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in (block_idx_x()..tiles).step_by(grid_dim_x()) {
            consume::<128>(consumer.wait(), y, a, tile, t);
        }
    }
}

fn main() {
    println!("{}", block_sums::PTX);
    println!("{}", stream_scale::PTX);
}
