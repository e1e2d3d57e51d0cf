use phasegate::prelude::*;

// Two groups kept in flight, a custom epilogue with each thread's coordinates, a reset for the
// next tile.
#[kernel(target = "sm_90a", block = "256,1,1")]
fn two_in_flight(
    a: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    b: TensorMap<f32, Tile2<32, 64>, Swizzle128B>,
    c: &mut [f32],
    k_tiles: u32,
    alpha: f32,
) {
    const PENDING: u32 = 2;
    // the consumers keep two tiles in flight: fewer than two is not this kernel's work
    if k_tiles < 2 {
        return;
    }
    let pipe = pipeline::<f32, 4, 4096>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 && elect_one() {
        let mut producer = pipe.producer();
        for kt in 0..k_tiles {
            producer.acquire().load_tiles(&a, [kt * 32, 0], &b, [kt * 32, 0]);
        }
    } else if warp_id() >= 4 {
        let mut consumer = pipe.consumer();
        let first = consumer.wait();
        let acc = accumulator::<f32, 64, 64>().mma(&first, &a, &b).commit();
        let mut older = first.retire();
        let second = consumer.wait();
        let mut acc = acc.mma(&second, &a, &b).commit();
        let mut newer = second.retire();
        for _ in 2..k_tiles {
            let slot = consumer.wait();
            acc = acc.mma(&slot, &a, &b).commit().wait::<PENDING>();
            older.release();
            older = newer;
            newer = slot.retire();
        }
        let mut acc = acc.wait::<0>();
        older.release();
        newer.release();
        c[acc.row(0) * 64 + acc.col(0)] = alpha * acc.get(0);
        c[acc.row(31) * 64 + acc.col(31)] = alpha * acc.get(31);
        acc = accumulator::<f32, 64, 64>();
        acc.store(c, 4096, 64);
    }
}

fn main() {
    assert!(two_in_flight::PTX.contains("wgmma.wait_group.sync.aligned \t2;"));
}
