use phasegate::prelude::*;

// An `if` may give an accumulator from either branch, the else branch's registers moved into
// the then-branch's. Both branches here give one whose group is committed and not waited for:
// the same type to rustc, but moving registers a wgmma may still write reads them early (PTX
// ISA §9.7.15.7.3), so the lowering refuses the `if`.

#[kernel(target = "sm_90a", block = "256,1,1")]
fn merge_in_flight(
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
        let acc = if block_idx_x() == 0 {
            accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit()
        } else {
            accumulator::<f32, 64, 64>().mma(&slot, &b, &a).commit()
        };
        let acc = acc.wait::<0>();
        slot.release();
        acc.store(c, 0, 64);
    }
}

fn main() {}
