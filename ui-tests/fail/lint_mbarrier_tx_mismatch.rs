use phasegate::prelude::*;

#[kernel(target = "sm_90a")]
fn k(x: &[f32], out: &mut [f32]) {
    let mut tile = shared_array::<f32, 2048>();
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, 1).publish();
    let bar = if t == 0 {
        // 8192 bytes expected, 4096 copied: the phase never completes
        bar.expect_tx(8192);
        bulk_load(&bar, &mut tile, 0, x, 0, 1024);
        bar.arrive().wait()
    } else {
        bar.observe()
    };
    out[t] = tile[t];
    sync_threads();
    bar.inval(t == 0);
}

fn main() {}
