use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(x: &[[f32; 4]], tiles: u32) {
    let pipe = pipeline::<[f32; 4], 4, 1024>(thread_idx_x() == 0, 1, 128);
    let mut producer = pipe.producer();
    // re-arming a stage without waiting for its empty barrier
    producer.load(x, 0);
}

fn main() {}
