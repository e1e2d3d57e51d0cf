use phasegate::prelude::*;

// A part is the accumulator's values: storing it while its wgmma group is still in flight
// would store registers the tensor cores are still writing (PTX ISA §9.7.15.7.3). rustc
// refuses `store_partial` on an accumulator that is not `Readable`.

#[kernel(target = "sm_90a", block = "256,1,1")]
fn store_before_the_wait(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    partials: &mut [f32],
    arrivals: &mut [u32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if thread_idx_x() == 0 {
            pipe.producer().acquire().load_tiles(&a, [0, 0], &b, [0, 0]);
        }
    } else {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        let acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
        let group = named_barrier_dyn(1, 128);
        let arrival = acc
            .store_partial(partials, 0, block_idx_x(), 4096)
            .arrive(arrivals, 0, 2, &group);
        let acc = acc.wait::<0>();
        slot.release();
        if arrival.last() {
            arrival.total().store(c, 0, 64);
        }
        acc.store(c, 0, 64);
    }
}

fn main() {}
