use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(x: &[f32], n: u32) {
    let mut tile = shared_array::<f32, 256>();
    let bar = mbarrier().init(thread_idx_x() == 0, 1).publish();
    // 3 floats are 12 bytes: bulk copies move multiples of 16
    bulk_load(&bar, &mut tile, 0, x, 0, 3);
    // the byte count must be known when the kernel is compiled
    bulk_load(&bar, &mut tile, 0, x, 0, n);
    let pipe = pipeline::<f32, 2, 6>(thread_idx_x() == 0, 1, 32);
}

fn main() {}
