//! Named CTA barriers (`bar`, `barrier`; PTX ISA §9.7.13.1).
//!
//! The barrier id and thread count are type parameters where they are constants, so the handle
//! says which barrier it is everywhere it goes; `#[kernel]` rejects an id outside 0..15 or a
//! count that is not a positive multiple of 32 on the user's tokens. Barriers used for
//! reductions are a different type from those used for sync/arrive, because `bar.red` and
//! `bar.sync`/`bar.arrive` on one barrier are unpredictable (§9.7.13.1).

use super::outside_kernel;

/// How the instructions of a handle are spelled: `bar.sync` / `barrier.sync`, or the `.cta`
/// spelling `bar.cta.sync` / `barrier.cta.sync` (same semantics, §9.7.13.1).
pub struct Plain;
/// The `.cta` spelling.
pub struct CtaSpelling;

/// A named barrier with `THREADS` participating threads, for `sync` and `arrive`
/// (producer/consumer patterns). Made by [`named_barrier`] or [`named_barrier_cta`].
pub struct NamedBarrier<const ID: u32, const THREADS: u32, S = Plain>(core::marker::PhantomData<S>);

/// Barrier `ID` with `THREADS` threads (a multiple of 32): `bar.sync ID, THREADS` /
/// `bar.arrive ID, THREADS`.
pub fn named_barrier<const ID: u32, const THREADS: u32>() -> NamedBarrier<ID, THREADS> {
    outside_kernel("named_barrier")
}

/// The same, spelled `bar.cta.*` / `barrier.cta.*`.
pub fn named_barrier_cta<const ID: u32, const THREADS: u32>()
-> NamedBarrier<ID, THREADS, CtaSpelling> {
    outside_kernel("named_barrier_cta")
}

impl<const ID: u32, const THREADS: u32, S> NamedBarrier<ID, THREADS, S> {
    /// `bar.sync ID, THREADS`: arrive and wait for the others. Each participating warp reaches
    /// it convergently (it is `.aligned`).
    pub fn sync(&self) {
        outside_kernel("NamedBarrier::sync")
    }
    /// `bar.arrive ID, THREADS`: arrive without waiting (the producer side).
    pub fn arrive(&self) {
        outside_kernel("NamedBarrier::arrive")
    }
    /// `barrier.sync ID, THREADS`: may be reached by a divergent warp.
    pub fn sync_unaligned(&self) {
        outside_kernel("NamedBarrier::sync_unaligned")
    }
    /// `barrier.arrive ID, THREADS`: may be reached by a divergent warp.
    pub fn arrive_unaligned(&self) {
        outside_kernel("NamedBarrier::arrive_unaligned")
    }
}

/// A barrier over all threads of the CTA (no thread count): `bar.sync ID`. There is no
/// `arrive`: PTX requires a thread count for it.
pub struct CtaBarrier<const ID: u32, S = Plain>(core::marker::PhantomData<S>);

/// Barrier `ID` over every thread of the CTA.
pub fn cta_barrier<const ID: u32>() -> CtaBarrier<ID> {
    outside_kernel("cta_barrier")
}

/// The same, spelled `bar.cta.sync` / `barrier.cta.sync`.
pub fn cta_barrier_cta<const ID: u32>() -> CtaBarrier<ID, CtaSpelling> {
    outside_kernel("cta_barrier_cta")
}

impl<const ID: u32, S> CtaBarrier<ID, S> {
    /// `bar.sync ID`: every non-exited thread of the CTA executes it, with CTA-uniform control.
    pub fn sync(&self) {
        outside_kernel("CtaBarrier::sync")
    }
    /// `barrier.sync ID`.
    pub fn sync_unaligned(&self) {
        outside_kernel("CtaBarrier::sync_unaligned")
    }
}

/// A named barrier used for reductions (`bar.red`); `THREADS == 0` means all threads of the
/// CTA. Its result is the same in every participating thread.
pub struct ReductionBarrier<const ID: u32, const THREADS: u32, S = Plain>(
    core::marker::PhantomData<S>,
);

/// Reduction barrier `ID` over `THREADS` threads (a multiple of 32).
pub fn reduction_barrier<const ID: u32, const THREADS: u32>() -> ReductionBarrier<ID, THREADS> {
    outside_kernel("reduction_barrier")
}

/// Reduction barrier `ID` over all threads of the CTA.
pub fn cta_reduction_barrier<const ID: u32>() -> ReductionBarrier<ID, 0> {
    outside_kernel("cta_reduction_barrier")
}

/// The same, spelled `barrier.cta.red`.
pub fn reduction_barrier_cta<const ID: u32, const THREADS: u32>()
-> ReductionBarrier<ID, THREADS, CtaSpelling> {
    outside_kernel("reduction_barrier_cta")
}

impl<const ID: u32, const THREADS: u32, S> ReductionBarrier<ID, THREADS, S> {
    /// `bar.red.popc.u32`: how many participating threads passed `true`. Pass `!p` to count
    /// the `false`s (the negated-predicate form).
    pub fn popc(&self, _p: bool) -> u32 {
        outside_kernel("ReductionBarrier::popc")
    }
    /// `bar.red.and.pred`: whether every participating thread passed `true`.
    pub fn all(&self, _p: bool) -> bool {
        outside_kernel("ReductionBarrier::all")
    }
    /// `bar.red.or.pred`: whether any participating thread passed `true`.
    pub fn any(&self, _p: bool) -> bool {
        outside_kernel("ReductionBarrier::any")
    }
    /// `barrier.red.popc.u32` (not `.aligned`).
    pub fn popc_unaligned(&self, _p: bool) -> u32 {
        outside_kernel("ReductionBarrier::popc_unaligned")
    }
    /// `barrier.red.and.pred` (not `.aligned`).
    pub fn all_unaligned(&self, _p: bool) -> bool {
        outside_kernel("ReductionBarrier::all_unaligned")
    }
    /// `barrier.red.or.pred` (not `.aligned`).
    pub fn any_unaligned(&self, _p: bool) -> bool {
        outside_kernel("ReductionBarrier::any_unaligned")
    }
}

/// A named barrier whose id and count are known only at run time; `#[kernel]` cannot check
/// them, the analyzer and the simulator do.
pub struct DynNamedBarrier(());

/// `bar.sync id, threads` with run-time operands.
pub fn named_barrier_dyn(_id: u32, _threads: u32) -> DynNamedBarrier {
    outside_kernel("named_barrier_dyn")
}

impl DynNamedBarrier {
    /// `bar.sync id, threads`: arrive and wait until `threads` threads have arrived (PTX ISA
    /// §9.7.13.1). Each participating warp reaches it convergently (it is `.aligned`).
    pub fn sync(&self) {
        outside_kernel("DynNamedBarrier::sync")
    }
    /// `bar.arrive id, threads`: arrive without waiting (a producer's side of the barrier).
    pub fn arrive(&self) {
        outside_kernel("DynNamedBarrier::arrive")
    }
}
