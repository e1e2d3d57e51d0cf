use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(out: &mut [[f32; 4]]) {
    let pipe = pipeline::<[f32; 4], 4, 1024>(thread_idx_x() == 0, 1, 128);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    out[0] = slot.get(0);
    slot.release();
    slot.release();
}

fn main() {}
