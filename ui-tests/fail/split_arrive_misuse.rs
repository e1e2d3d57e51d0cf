use phasegate::prelude::*;

// `arrive` syncs the warp group twice on the barrier it is given, so a reduction barrier,
// which takes only `bar.red` (mixing it with `bar.sync` is undefined, PTX ISA §9.7.13.1), is
// refused; the counters are a `&mut [u32]` parameter and the parts a `&mut [f32]` one.

#[kernel(target = "sm_90a", block = "128,1,1")]
fn arrive_on_a_reduction_barrier(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    partials: &mut [f32],
    arrivals: &mut [u32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit().wait::<0>();
    slot.release();
    let vote = reduction_barrier::<1, 128>();
    let arrival = acc
        .store_partial(partials, 0, block_idx_x(), 4096)
        .arrive(arrivals, 0, 2, &vote);
    if arrival.last() {
        arrival.total().store(c, 0, 64);
    }
}

#[kernel(target = "sm_90a", block = "128,1,1")]
fn parts_in_a_u32_slice(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    arrivals: &mut [u32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit().wait::<0>();
    slot.release();
    let group = named_barrier_dyn(1, 128);
    let arrival = acc
        .store_partial(arrivals, 0, block_idx_x(), 4096)
        .arrive(arrivals, 0, 2, &group);
    if arrival.last() {
        arrival.total().store(c, 0, 64);
    }
}

fn main() {}
