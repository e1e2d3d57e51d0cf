//! mbarrier objects with their phase in the type (PTX ISA §9.7.13.15).
//!
//! A handle goes `Uninit` → `Initialized` (one thread ran `mbarrier.init`) → `Ready<Even>`
//! (published to the CTA: `fence.mbarrier_init` and `bar.sync 0`). Arriving consumes the handle
//! and gives a linear [`Arrival`] token; completing the wait on the token gives the handle back
//! at the next parity. So arriving twice without a wait, waiting on a stale token and waiting
//! for the wrong parity are rustc errors: the rule of §9.7.13.15.4 ("for each phase at least one
//! test_wait/try_wait returning true before an arrive-on of the next phase") holds by
//! construction for every thread that uses the typed handle. Threads that only observe a phase
//! use [`MBarrier::observe`]. Loops, where a type cannot change from one iteration to the next,
//! use [`DynMBarrier`] (parity in a register, checked by the analyzer and the simulator) or
//! [`super::Pipeline`].

use super::{Element, Global, SharedDst, outside_kernel};
use core::marker::PhantomData;

/// Not yet initialised (or invalidated: its memory may be reused).
pub struct Uninit;
/// `mbarrier.init` ran in one thread; not yet visible to the others.
pub struct Initialized;
/// Initialised, published, in a phase of parity `P`.
pub struct Ready<P>(PhantomData<P>);

/// Phase parity 0 (phases 0, 2, 4, ...).
pub struct Even;
/// Phase parity 1.
pub struct Odd;

/// A phase parity and the parity of the phase after it.
pub trait Parity {
    /// The parity of the next phase: a completed wait moves the handle to it.
    type Next: Parity;
}
impl Parity for Even {
    type Next = Odd;
}
impl Parity for Odd {
    type Next = Even;
}

/// The parity values, for [`MBarrier::wait_parity`].
pub const EVEN: Even = Even;
/// Parity 1, for [`MBarrier::wait_parity`].
pub const ODD: Odd = Odd;

/// Memory-ordering semantics of an mbarrier operation (`.release`/`.acquire` or `.relaxed`).
pub enum Sem {
    /// `.release` on arrive, `.acquire` on wait (the default).
    Ordered,
    /// `.relaxed`.
    Relaxed,
}

/// The scope of an operation (`.cta`, `.cluster`, `.gpu`, `.sys`).
pub enum Scope {
    /// `.cta`: the threads of the executing CTA (PTX ISA §8.5).
    Cta,
    /// `.cluster`: the threads of the executing thread's cluster.
    Cluster,
    /// `.gpu`: the threads of the current program on the same device.
    Gpu,
    /// `.sys`: the threads of the current program, on every device and the host.
    Sys,
}

/// An mbarrier object in shared memory (8 bytes, 8-aligned), in state `S`.
pub struct MBarrier<S>(PhantomData<S>);

/// Declares one mbarrier object in the CTA's shared memory.
pub fn mbarrier() -> MBarrier<Uninit> {
    outside_kernel("mbarrier")
}

impl MBarrier<Uninit> {
    /// `@leader mbarrier.init.shared::cta.b64 [bar], count`: the thread(s) where `leader` is
    /// true initialise it (one thread should).
    pub fn init(self, _leader: bool, _count: u32) -> MBarrier<Initialized> {
        outside_kernel("MBarrier::init")
    }
}

impl MBarrier<Initialized> {
    /// `fence.mbarrier_init.release.cluster; bar.sync 0`: makes the initialisation visible to
    /// the cluster and the async proxy (bulk copies). Every thread of the CTA reaches it
    /// (CTA-uniform control). sm_90.
    pub fn publish(self) -> MBarrier<Ready<Even>> {
        outside_kernel("MBarrier::publish")
    }
    /// `bar.sync 0` alone: enough for a barrier used only by the CTA's threads and `cp.async`
    /// (sm_80).
    pub fn publish_cta(self) -> MBarrier<Ready<Even>> {
        outside_kernel("MBarrier::publish_cta")
    }
}

/// Publishes several mbarriers with one `bar.sync 0` (no fence: CTA-local use and `cp.async`,
/// sm_80): `let [a, b] = publish_cta([a, b]);`.
pub fn publish_cta<const N: usize>(
    _bars: [MBarrier<Initialized>; N],
) -> [MBarrier<Ready<Even>>; N] {
    outside_kernel("publish_cta")
}

/// Publishes several mbarriers with one fence and one `bar.sync 0`:
/// `let [full, empty] = publish([full, empty]);`.
pub fn publish<const N: usize>(_bars: [MBarrier<Initialized>; N]) -> [MBarrier<Ready<Even>>; N] {
    outside_kernel("publish")
}

/// What an arrive-on returns: the phase it arrived in. Wait on it to get the handle back.
#[must_use = "an arrival must be waited on before the barrier is used again"]
pub struct Arrival<P>(PhantomData<P>);

/// What `arrive_drop` leaves: the thread no longer takes part in the barrier's phases.
pub struct Dropped(());

macro_rules! arrive_forms {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        $(#[$doc])*
        pub fn $name(self, $($arg: $ty),*) -> $out {
            $(let _ = $arg;)*
            outside_kernel(concat!("MBarrier::", stringify!($name)))
        }
    )*};
}

impl<P: Parity> MBarrier<Ready<P>> {
    arrive_forms! {
        /// `mbarrier.arrive.shared::cta.b64 state, [bar]`.
        arrive() -> Arrival<P>;
        /// `mbarrier.arrive.shared::cta.b64 state, [bar], count`.
        arrive_count(count: u32) -> Arrival<P>;
        /// `mbarrier.arrive.expect_tx.shared::cta.b64 state, [bar], bytes`: arrive and expect
        /// `bytes` of asynchronous transactions in this phase.
        arrive_expect_tx(bytes: u32) -> Arrival<P>;
        /// `mbarrier.arrive.noComplete.shared::cta.b64 state, [bar], count`: undefined if it
        /// completes the phase (§9.7.13.15.13).
        arrive_no_complete(count: u32) -> Arrival<P>;
        /// `mbarrier.arrive{.release,.relaxed}{.cta,.cluster}.shared::cta.b64 state, [bar]`.
        arrive_with(sem: Sem, scope: Scope) -> Arrival<P>;
        /// `mbarrier.arrive_drop.shared::cta.b64 state, [bar]`: arrive, and leave the barrier
        /// (its expected count drops by one for the following phases).
        arrive_drop() -> Dropped;
        /// `mbarrier.arrive_drop.shared::cta.b64 state, [bar], count`.
        arrive_drop_count(count: u32) -> Dropped;
        /// `mbarrier.arrive_drop.expect_tx.shared::cta.b64 state, [bar], bytes`.
        arrive_drop_expect_tx(bytes: u32) -> Dropped;
        /// `mbarrier.arrive_drop.noComplete.shared::cta.b64 state, [bar], count`.
        arrive_drop_no_complete(count: u32) -> Dropped;
        /// `mbarrier.arrive_drop{.sem}{.scope}.shared::cta.b64 state, [bar]`.
        arrive_drop_with(sem: Sem, scope: Scope) -> Dropped;
        /// `mbarrier.try_wait.parity.shared::cta.b64` in a loop: waits for the current phase to
        /// complete without arriving (a thread that only observes).
        observe() -> MBarrier<Ready<P::Next>>;
        /// `mbarrier.test_wait.parity.shared::cta.b64` in a loop.
        observe_test() -> MBarrier<Ready<P::Next>>;
        /// `mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity, hint_ns` in a loop.
        observe_hinted(hint_ns: u32) -> MBarrier<Ready<P::Next>>;
        /// `mbarrier.try_wait.parity{.acquire,.relaxed}{.cta,.cluster}.shared::cta.b64` in a loop.
        observe_with(sem: Sem, scope: Scope) -> MBarrier<Ready<P::Next>>;
        /// Observes the phase of parity `parity`, which must be the current one's.
        wait_parity(parity: P) -> MBarrier<Ready<P::Next>>;
        /// `@leader mbarrier.inval.shared::cta.b64 [bar]`: one thread invalidates the object, as
        /// one thread initialises it, once every thread is done with it (after a barrier); its
        /// memory may then be reused. A second `inval`, or any operation but `init`, on an
        /// invalidated object is undefined (§9.7.13.15).
        inval(leader: bool) -> MBarrier<Uninit>;
        /// The same barrier with its phase parity in a register, for loops.
        into_dynamic() -> DynMBarrier;
    }

    /// Arrives with `expect_tx` of `elements` (a constant) elements of `T` and starts the bulk
    /// copy of `src[src_index..]` to `dst[dst_index..]` that completes them: the byte count
    /// comes from one number and the element type, so the expectation and the copy cannot
    /// disagree.
    pub fn arrive_load<T: Element>(
        self,
        _dst: &mut impl SharedDst<T>,
        _dst_index: u32,
        _src: &Global<T>,
        _src_index: u32,
        _elements: u32,
    ) -> Arrival<P> {
        outside_kernel("MBarrier::arrive_load")
    }

    /// `mbarrier.expect_tx.shared::cta.b64 [bar], bytes`.
    pub fn expect_tx(&self, _bytes: u32) {
        outside_kernel("MBarrier::expect_tx")
    }
    /// `mbarrier.complete_tx.shared::cta.b64 [bar], bytes`.
    pub fn complete_tx(&self, _bytes: u32) {
        outside_kernel("MBarrier::complete_tx")
    }
    /// `mbarrier.expect_tx{.relaxed}{.scope}.shared::cta.b64 [bar], bytes`.
    pub fn expect_tx_with(&self, _bytes: u32, _sem: Sem, _scope: Scope) {
        outside_kernel("MBarrier::expect_tx_with")
    }
    /// `mbarrier.complete_tx{.relaxed}{.scope}.shared::cta.b64 [bar], bytes`.
    pub fn complete_tx_with(&self, _bytes: u32, _sem: Sem, _scope: Scope) {
        outside_kernel("MBarrier::complete_tx_with")
    }
    /// Arrive-on the same barrier in the cluster's CTA of rank `rank` (`mapa` then
    /// `mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote]`).
    pub fn arrive_on_peer(&self, _rank: u32) {
        outside_kernel("MBarrier::arrive_on_peer")
    }
    /// `mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [remote], bytes`.
    pub fn arrive_expect_tx_on_peer(&self, _rank: u32, _bytes: u32) {
        outside_kernel("MBarrier::arrive_expect_tx_on_peer")
    }
    /// `mbarrier.arrive_drop.release.cluster.shared::cluster.b64 _, [remote]`.
    pub fn arrive_drop_on_peer(&self, _rank: u32) {
        outside_kernel("MBarrier::arrive_drop_on_peer")
    }
    /// `cp.async.mbarrier.arrive.shared::cta.b64 [bar]`: an arrive-on when this thread's prior
    /// `cp.async` copies complete (the pending count is incremented first).
    pub fn cp_async_arrive(&self) {
        outside_kernel("MBarrier::cp_async_arrive")
    }
    /// `cp.async.mbarrier.arrive.noinc.shared::cta.b64 [bar]`: the same without the increment;
    /// the copies count towards the arrivals the barrier was initialised with.
    pub fn cp_async_arrive_noinc(&self) {
        outside_kernel("MBarrier::cp_async_arrive_noinc")
    }
}

macro_rules! wait_forms {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        $(#[$doc])*
        pub fn $name(self, $($arg: $ty),*) -> MBarrier<Ready<P::Next>> {
            $(let _ = $arg;)*
            outside_kernel(concat!("Arrival::", stringify!($name)))
        }
    )*};
}

impl<P: Parity> Arrival<P> {
    wait_forms! {
        /// `mbarrier.try_wait.shared::cta.b64 p, [bar], state` in a loop.
        wait();
        /// `mbarrier.test_wait.shared::cta.b64 p, [bar], state` in a loop.
        wait_test();
        /// `mbarrier.try_wait.shared::cta.b64 p, [bar], state, hint_ns` in a loop.
        wait_hinted(hint_ns: u32);
        /// `mbarrier.try_wait{.acquire,.relaxed}{.cta,.cluster}.shared::cta.b64` in a loop.
        wait_with(sem: Sem, scope: Scope);
    }

    /// `mbarrier.pending_count.b64 count, state`: arrivals still pending in the phase this
    /// arrival was made in, as of the arrival.
    pub fn pending_count(&self) -> u32 {
        outside_kernel("Arrival::pending_count")
    }
}

/// An mbarrier whose phase parity is kept in a register: what a loop uses. Its misuse is
/// found by the analyzer (`mbarrier_missing_wait`) and the simulator, not by rustc.
pub struct DynMBarrier(());

impl DynMBarrier {
    /// `mbarrier.arrive.shared::cta.b64`.
    pub fn arrive(&self) {
        outside_kernel("DynMBarrier::arrive")
    }
    /// `mbarrier.arrive.expect_tx.shared::cta.b64`.
    pub fn arrive_expect_tx(&self, _bytes: u32) {
        outside_kernel("DynMBarrier::arrive_expect_tx")
    }
    /// Waits for the phase of the tracked parity (`try_wait.parity`), then flips the parity.
    pub fn wait(&mut self) {
        outside_kernel("DynMBarrier::wait")
    }
    /// The tracked parity, 0 or 1.
    pub fn parity(&self) -> u32 {
        outside_kernel("DynMBarrier::parity")
    }
}
