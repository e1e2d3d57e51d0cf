//! The producer/consumer pattern of PTX ISA §9.7.13.1 with two named barriers: producer warps
//! fill a buffer and `arrive` on barrier 1, consumer warps `sync` on it, use the buffer, and
//! `arrive` on barrier 2, which the producers `sync` on before refilling. Each barrier counts
//! the 64 threads of the producer warp and the consumer warp.
//!
//! Launch: blocks of 64 threads (warp 0 produces, warp 1 consumes). `out` holds `rounds * 32`
//! values per block. `cargo run --example producer_consumer` prints the PTX.

use phasegate::prelude::*;

/// Warp 0 produces `round * 32 + lane` into a shared buffer each round; warp 1 doubles it
/// into `out`.
#[kernel]
pub fn producer_consumer(out: &mut [u32], rounds: u32) {
    let mut buffer = shared_array::<u32, 32>();
    let full = named_barrier::<1, 64>();
    let empty = named_barrier::<2, 64>();
    let lane = lane_id();
    let base = block_idx_x() * rounds * 32;
    if warp_id() == 0 {
        for round in 0..rounds {
            if round > 0 {
                empty.sync(); // wait until the consumer has read the last round
            }
            buffer[lane] = round * 32 + lane;
            full.arrive(); // announce the data without waiting
        }
    } else {
        for round in 0..rounds {
            full.sync(); // wait for the producer's data
            out[base + round * 32 + lane] = buffer[lane] * 2;
            if round + 1 < rounds {
                empty.arrive(); // hand the buffer back
            }
        }
    }
}

fn main() {
    println!("{}", producer_consumer::PTX);
}
