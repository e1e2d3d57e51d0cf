//! A sum split across CTAs (split-K): each warp group stores its part of an accumulator, and
//! the last to arrive adds the parts up, in a fixed order, and goes on with the total.
//!
//! Where a product has too few output tiles to fill the GPU, its K is split: several CTAs
//! compute the same tile over different ranges of K, and their accumulators are summed.
//! [`Acc::store_partial`] and [`Partial::arrive`] are that sum's protocol: every thread stores
//! its elements into its part's slice of an `f32` buffer of partial sums (in the order the
//! threads hold them, so that the stores are contiguous); the warp group syncs;
//! one thread takes a ticket from a counter (`atom.acq_rel.gpu.global.add.u32`, PTX ISA
//! §9.7.13.5), releasing the group's stores and, on the last ticket, acquiring everyone's; the
//! warp group syncs again and learns whether it drew the last ticket ([`SplitArrival::last`]).
//! The last arrival adds the parts in the order of their index ([`SplitArrival::total`]), so the
//! sum is the same whichever CTA finishes last, launch after launch, and sets the counter back
//! to zero for the next launch: the counters are zeroed once, when they are allocated.
//!
//! What cannot be written: reading the parts where the arrival was not the last (`total()`
//! outside `if arrival.last() { .. }` is a compile error), a ticket taken before every thread's
//! stores (the sync is part of `arrive`), the parts of an accumulator whose wgmma group is still
//! in flight (rustc: `Readable`), a stored part that never arrives (`#[must_use]`), or a
//! reduction barrier for the syncs (mixing `bar.red` with `bar.sync` on one barrier is
//! undefined, §9.7.13.1).

use super::named::{DynNamedBarrier, NamedBarrier};
use super::wgmma::{Acc, AccState, Idle, Readable};
use super::{Global, outside_kernel};
use core::marker::PhantomData;

/// A named barrier that `bar.sync` can take: the warp group's own, over its 128 threads.
pub trait GroupBarrier: sealed::Sealed {}
impl<const ID: u32, const THREADS: u32, S> GroupBarrier for NamedBarrier<ID, THREADS, S> {}
impl GroupBarrier for DynNamedBarrier {}

mod sealed {
    pub trait Sealed {}
    impl<const ID: u32, const THREADS: u32, S> Sealed for super::NamedBarrier<ID, THREADS, S> {}
    impl Sealed for super::DynNamedBarrier {}
}

/// A warp group's part of a split sum, stored but not yet counted: it must [`arrive`](Self::arrive).
#[must_use = "a stored part counts only once it arrives: call `arrive`"]
pub struct Partial<const M: u32, const N: u32>(PhantomData<()>);

impl<const M: u32, const N: u32> Partial<M, N> {
    /// Syncs the warp group on `barrier` (every thread's stores before the ticket), takes a
    /// ticket from `arrivals[counter]` in the warp group's first thread
    /// (`atom.acq_rel.gpu.global.add.u32`), and syncs again; the arrival knows whether it was
    /// the last of `splits`. Every part of one sum arrives on the same counter with the same
    /// `splits`; the counter starts at zero and the last arrival leaves it at zero.
    pub fn arrive<B: GroupBarrier>(
        self,
        _arrivals: &mut Global<u32>,
        _counter: u32,
        _splits: u32,
        _barrier: &B,
    ) -> SplitArrival<M, N> {
        outside_kernel("Partial::arrive")
    }
}

/// A warp group's arrival with its part of a split sum: whether it drew the last ticket, and
/// then the total.
#[must_use = "only the last arrival holds the total: branch on `last()` and read `total()` there"]
pub struct SplitArrival<const M: u32, const N: u32>(PhantomData<()>);

impl<const M: u32, const N: u32> SplitArrival<M, N> {
    /// Whether this warp group's was the last of the `splits` arrivals on its counter: the
    /// same in every thread of the warp group, so a branch on it keeps the group converged.
    pub fn last(&self) -> bool {
        outside_kernel("SplitArrival::last")
    }

    /// The sum of the `splits` parts, part 0 first, in a fresh accumulator
    /// (`ld.relaxed.gpu.global.v4.f32` per four elements and `add.rn.f32` per element and
    /// part). Only inside
    /// `if arrival.last() { .. }`: elsewhere other CTAs may still be storing.
    pub fn total(self) -> Acc<f32, M, N, Idle> {
        outside_kernel("SplitArrival::total")
    }
}

impl<const M: u32, const N: u32, S: AccState> Acc<f32, M, N, S> {
    /// Stores this warp group's accumulator as part `part` of a split sum: its `M · N`
    /// elements to `partials[index + part * stride ..][.. M * N]`, in the order the threads
    /// hold them (thread `t` of the warp group's elements `4 j .. 4 j + 4` at `512 j + 4 t`, one
    /// `st.global.v4.f32`, so a warp writes 512 contiguous bytes an instruction). The layout is
    /// the split sum's own: [`SplitArrival::total`] reads it back into the same threads. The
    /// parts of one sum share `index` and `stride`, and no two sums' slices overlap.
    pub fn store_partial(
        &self,
        _partials: &mut Global<f32>,
        _index: u32,
        _part: u32,
        _stride: u32,
    ) -> Partial<M, N>
    where
        S: Readable,
    {
        outside_kernel("Acc::store_partial")
    }
}
