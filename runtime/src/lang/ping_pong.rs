//! Two consumer warpgroups taking turns at the tensor cores (FlashAttention-3's ping-pong).
//!
//! While one warpgroup issues its wgmmas the other runs its softmax, and then they swap. The
//! hand-over is a pair of named barriers (§9.7.13.1) of 256 threads, one per warpgroup: a
//! warpgroup waits for its turn with `bar.sync` on its own barrier and passes the turn with
//! `bar.arrive` on the other's, which completes the other's barrier. The protocol is in the
//! types: [`PingPong::take`] consumes the handle and gives a [`Turn`], and only
//! [`Turn::pass`] gives the handle back, so a warpgroup that takes the turn twice, or takes it
//! again without passing it, does not compile.

use super::outside_kernel;
use core::marker::PhantomData;

/// A warpgroup waiting for its turn.
#[must_use = "a ping-pong handle is taken in turn and ended with `end`"]
pub struct PingPong<const ID: u32>(PhantomData<()>);

/// The turn: this warpgroup issues its wgmmas while the other waits.
#[must_use = "the other warpgroup waits until the turn is passed"]
pub struct Turn<const ID: u32>(PhantomData<()>);

/// The ping-pong of consumer warpgroups `group` 0 and 1 (`group` is 0 or 1, the same in a whole
/// warpgroup), through named barriers `ID` (group 0's) and `ID + 1` (group 1's), 256 threads
/// each. Group 1 starts by passing the turn (`bar.arrive ID, 256`), so group 0 goes first.
pub fn ping_pong<const ID: u32>(_group: u32) -> PingPong<ID> {
    outside_kernel("ping_pong")
}

impl<const ID: u32> PingPong<ID> {
    /// Waits for the turn: `bar.sync ID + group, 256`.
    pub fn take(self) -> Turn<ID> {
        outside_kernel("PingPong::take")
    }

    /// Ends the ping-pong after the last turn: group 0 takes the turn group 1 passed last
    /// (`bar.sync ID, 256`), so no arrival is left on a barrier when both groups are done.
    /// Both groups must have taken the same number of turns.
    pub fn end(self) {
        outside_kernel("PingPong::end")
    }
}

impl<const ID: u32> Turn<ID> {
    /// Passes the turn to the other warpgroup: `bar.arrive ID + 1 − group, 256`.
    pub fn pass(self) -> PingPong<ID> {
        outside_kernel("Turn::pass")
    }
}
