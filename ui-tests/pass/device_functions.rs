//! `#[device]` functions: const generics, memory and barrier handles passed through, the
//! same function called from several kernels.
use phasegate::prelude::*;

/// Zeroes the first `N` elements of a shared tile; `N` is a `usize` as array lengths are.
#[device]
fn zero<const N: usize>(tile: &mut SharedArray<f32, N>, t: u32) {
    if t < N as u32 {
        tile[t] = 0.0;
    }
}

/// Sums `x[base .. base + N]` with a constant trip count.
#[device]
fn window_sum<const N: u32>(x: &[f32], base: u32) -> f32 {
    let mut s = 0.0f32;
    for k in 0..N {
        s += x[base + k];
    }
    s
}

/// One phase of an mbarrier: the handle is moved in and the next phase's handle comes back.
#[device]
fn even_phase(bar: MBarrier<Ready<Even>>, out: &mut [u32], t: u32) -> MBarrier<Ready<Odd>> {
    out[t] = 1;
    bar.arrive().wait()
}

#[device]
fn odd_phase(bar: MBarrier<Ready<Odd>>, out: &mut [u32], t: u32) -> MBarrier<Ready<Even>> {
    out[t] = out[t] + 1;
    bar.arrive().wait()
}

/// The producer is borrowed: its stage advances in the caller's handle.
#[device]
fn refill(producer: &mut Producer<f32, 2, 256>, x: &[f32], tile: u32) {
    producer.acquire().load(x, tile * 256);
}

/// Reads a full stage and releases it; the shape is inferred from the slot's type.
#[device]
fn drain<const STAGES: usize, const TILE: usize>(
    slot: ConsumerSlot<'_, f32, STAGES, TILE>,
    y: &mut [f32],
    base: u32,
    t: u32,
) {
    if t < TILE as u32 {
        y[base + t] = slot.get(t);
    }
    slot.release();
}

mod more {
    use phasegate::prelude::*;

    /// Called by its path from the parent module.
    #[device]
    pub fn twice(x: f32) -> f32 {
        x * 2.0
    }
}

#[kernel]
fn windows(x: &[f32], y: &mut [f32]) {
    const W: u32 = 4;
    let mut tile = shared_array::<f32, 128>();
    let t = thread_idx_x();
    zero::<128>(&mut tile, t);
    // `N` inferred from the array's length, as rustc infers it.
    zero(&mut tile, t);
    y[t] = more::twice(window_sum::<W>(x, t) + window_sum::<{ W * 2 }>(x, t));
}

#[kernel]
fn windows_again(x: &[f32], y: &mut [f32]) {
    y[thread_idx_x()] = window_sum::<3>(x, thread_idx_x());
}

#[kernel(target = "sm_90")]
fn phases(out: &mut [u32]) {
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, block_dim_x()).publish_cta();
    let bar = even_phase(bar, out, t);
    let bar = odd_phase(bar, out, t);
    let _ = even_phase(bar, out, t);
}

#[kernel(target = "sm_90a", block = "96,1,1")]
fn refills(x: &[f32], y: &mut [f32], tiles: u32) {
    let pipe = pipeline::<f32, 2, 256>(thread_idx_x() == 0, 1, 64);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for tile in 0..tiles {
                refill(&mut producer, x, tile);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in 0..tiles {
            drain(consumer.wait(), y, tile * 256, t);
        }
    }
}

fn main() {
    assert!(!windows::PTX.contains("call"));
    assert!(windows_again::PTX.contains("ld.global"));
    assert!(phases::PTX.contains("mbarrier.arrive"));
    assert!(refills::PTX.contains("cp.async.bulk"));
}

/// Results of device functions used where the kernel's checker needs their types: known only
/// once the functions are collected.
#[device]
fn half(x: f32) -> f32 {
    x * 0.5
}

#[kernel]
fn uses_results(x: &[f32], y: &mut [u32], z: &mut [[f32; 2]]) {
    let t = thread_idx_x();
    y[t] = half(x[t]).to_bits();
    z[t] = [half(x[t]), half(x[t + 1])];
}
