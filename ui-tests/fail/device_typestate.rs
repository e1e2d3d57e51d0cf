use phasegate::prelude::*;

#[device]
fn phase(bar: MBarrier<Ready<Even>>, out: &mut [u32], t: u32) -> MBarrier<Ready<Odd>> {
    out[t] = 1;
    bar.arrive().wait()
}

#[device]
fn finish(slot: ConsumerSlot<'_, f32, 2, 256>) {
    slot.release();
}

#[kernel(target = "sm_90")]
fn twice(out: &mut [u32]) {
    let t = thread_idx_x();
    let bar = mbarrier().init(t == 0, block_dim_x()).publish_cta();
    let bar = phase(bar, out, t);
    // The barrier is in its odd phase now: `phase` takes an even one.
    let _ = phase(bar, out, t);
}

#[kernel(target = "sm_90a")]
fn released_twice(y: &mut [f32]) {
    let pipe = pipeline::<f32, 2, 256>(thread_idx_x() == 0, 1, 64);
    let mut consumer = pipe.consumer();
    let slot = consumer.wait();
    finish(slot);
    y[0] = slot.get(0);
}

fn main() {}
