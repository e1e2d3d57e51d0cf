use phasegate::prelude::*;

// Two consumer warp groups take turns at the tensor cores. A turn has no `take` (the group
// already holds it) and the waiting handle has no `pass` (only a turn taken can be passed).
#[kernel(target = "sm_90a", block = "384,1,1")]
fn k() {
    let wg = warp_id() / 4 - 1;
    if warp_id() >= 4 {
        let turn = ping_pong::<1, 2>(wg).take();
        let twice = turn.take();
        let passed = ping_pong::<3, 2>(wg).pass();
        twice.pass().end();
        passed.end();
    }
}

fn main() {}
