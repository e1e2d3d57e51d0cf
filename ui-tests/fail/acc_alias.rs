use phasegate::prelude::*;

// `wait` gives an accumulator's own registers back, and an assignment moves the new
// accumulator into the binding's registers: a binding made by a wait is overwritten when the
// accumulator it came from is assigned again. Rust accepts these kernels (`acc` was moved, and
// may be assigned again); the lowering reports each read that would see the new values. A
// binding read before the assignment in the same iteration and bound anew in each one is fine:
// the promoting GEMM's loop in examples/gemm_hopper.rs (`let done = acc.wait::<0>()`, then
// `acc = done.reset().mma_block(..)`).

// Read after the assignment.
#[kernel(target = "sm_90a", block = "128,1,1")]
fn read_after_the_assignment(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    let done = acc.wait::<0>();
    acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    done.store(c, 0, 64);
    let acc = acc.wait::<0>();
    slot.release();
    acc.store(c, 4096, 64);
}

// Read in a loop before the assignment, which the next iteration follows.
#[kernel(target = "sm_90a", block = "128,1,1")]
fn read_before_the_assignment_in_a_loop(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    n: u32,
) {
    let pipe = pipeline::<f32, 2, 4096>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    let mut acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
    let done = acc.wait::<0>();
    let mut i = 0;
    loop {
        c[i] = done.get(0);
        acc = accumulator::<f32, 64, 64>().mma(&slot, &a, &b).commit();
        i += 1;
        if i == n {
            break;
        }
    }
    let acc = acc.wait::<0>();
    slot.release();
    acc.store(c, 4096, 64);
}

fn main() {}
