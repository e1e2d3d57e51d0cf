//! Consumer warpgroups taking turns at the tensor cores (FlashAttention-3's ping-pong; with
//! three or four groups, a round robin).
//!
//! While one warpgroup issues its wgmmas the others run their softmax, and then the next one
//! takes its turn. The hand-over is a named barrier (§9.7.13.1) of 256 threads per warpgroup:
//! a warpgroup waits for its turn with `bar.sync` on its own barrier and passes the turn with
//! `bar.arrive` on the next group's, which completes the next group's barrier. The protocol is
//! in the types: [`PingPong::take`] consumes the handle and gives a [`Turn`], and only
//! [`Turn::pass`] gives the handle back, so a warpgroup that takes the turn twice, or takes it
//! again without passing it, does not compile.

use super::outside_kernel;
use core::marker::PhantomData;

/// A warpgroup waiting for its turn.
#[must_use = "a ping-pong handle is taken in turn and ended with `end`"]
pub struct PingPong<const ID: u32, const GROUPS: u32>(PhantomData<()>);

/// The turn: this warpgroup issues its wgmmas while the other waits.
#[must_use = "the other warpgroup waits until the turn is passed"]
pub struct Turn<const ID: u32, const GROUPS: u32>(PhantomData<()>);

/// The turns of `GROUPS` consumer warpgroups (2 to 4); this is group `group` (`0..GROUPS`, the
/// same in a whole warpgroup). Group `g` waits on named barrier `ID + g`, 256 threads each, and
/// passes to group `(g + 1) % GROUPS`. The last group starts by passing the turn (`bar.arrive
/// ID, 256`), so group 0 goes first.
pub fn ping_pong<const ID: u32, const GROUPS: u32>(_group: u32) -> PingPong<ID, GROUPS> {
    outside_kernel("ping_pong")
}

impl<const ID: u32, const GROUPS: u32> PingPong<ID, GROUPS> {
    /// Waits for the turn: `bar.sync ID + group, 256`.
    pub fn take(self) -> Turn<ID, GROUPS> {
        outside_kernel("PingPong::take")
    }

    /// Ends the turns after the last: group 0 takes the turn the last group passed last
    /// (`bar.sync ID, 256`), so no arrival is left on a barrier when all groups are done. Every
    /// group must have taken the same number of turns.
    pub fn end(self) {
        outside_kernel("PingPong::end")
    }
}

impl<const ID: u32, const GROUPS: u32> Turn<ID, GROUPS> {
    /// Passes the turn to the next warpgroup: `bar.arrive ID + (group + 1) % GROUPS, 256`.
    pub fn pass(self) -> PingPong<ID, GROUPS> {
        outside_kernel("Turn::pass")
    }
}
