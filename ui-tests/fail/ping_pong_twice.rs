use phasegate::prelude::*;

// `take` consumes the waiting handle and only `pass` gives it back: a group that takes the
// turn again without passing it uses a moved value, a rustc error.
#[kernel(target = "sm_90a", block = "384,1,1")]
fn k() {
    let wg = warp_id() / 4 - 1;
    if warp_id() >= 4 {
        let baton = ping_pong::<1, 2>(wg);
        let turn = baton.take();
        let again = baton.take();
        turn.pass().end();
        again.pass().end();
    }
}

fn main() {}
