use phasegate::prelude::*;

// `a.wait_behind(&b)` lowers to `wgmma.wait_group 1`, which completes every group but the
// newest (PTX ISA §9.7.15.7.3). rustc sees each accumulator with one group of its own in
// flight; which was committed last it cannot see. Here `b`'s group is the older: after the wait
// `a`'s may still be running, and reading it would read registers the tensor cores write.

#[kernel(target = "sm_90a", block = "256,1,1")]
fn wait_behind_older(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() < 4 {
        if thread_idx_x() == 0 {
            pipe.producer().acquire().load_tiles(&a, [0, 0], &b, [0, 0]);
        }
    } else {
        let mut consumer = pipe.consumer();
        let slot = consumer.wait();
        let first = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
        let second = accumulator::<f32, 64, 64>().mma(&slot, &b, &a).commit();
        let second = second.wait_behind(&first);
        second.store(c, 0, 64);
        let first = first.wait::<0>();
        slot.release();
        first.store(c, 4096, 64);
    }
}

fn main() {}
