use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(y: &mut [[f32; 4]]) {
    let mut tile = shared_array::<[f32; 4], 128>();
    let t = thread_idx_x();
    tile[t] = [1.0, 2.0, 3.0, 4.0];
    sync_threads();
    // the bulk copy reads with the async proxy what the generic proxy wrote, without
    // fence_proxy_async() in the writing threads
    if t == 0 {
        bulk_store(y, 0, &tile, 0, 128);
        bulk_commit();
        bulk_wait(0);
    }
}

fn main() {}
