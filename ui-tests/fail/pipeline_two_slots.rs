use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(x: &[[f32; 4]]) {
    let pipe = pipeline::<[f32; 4], 4, 1024>(thread_idx_x() == 0, 1, 128);
    let mut producer = pipe.producer();
    let first = producer.acquire();
    let second = producer.acquire();
    first.load(x, 0);
    second.load(x, 1024);
}

fn main() {}
