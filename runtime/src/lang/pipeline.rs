//! A ring of `STAGES` buffers in dynamic shared memory with a full and an empty mbarrier per
//! stage: the canonical warp-specialised bulk-copy pipeline, correct by construction.
//!
//! The producer gets a [`ProducerSlot`] only from [`Producer::acquire`], which waits on the
//! stage's empty barrier; the slot is the only way to arm the stage's full barrier, and
//! [`ProducerSlot::load`] arrives with `expect_tx` of exactly the bytes its bulk copy completes.
//! The producer starts at the phase that treats every buffer as empty (its first wait on each
//! empty barrier is for the phase before the current one, which returns at once, §9.7.13.15.16).
//! Consumers wait on the full barrier and release the stage to the producer.

use super::tma::{BoxShape, Swizzling, TensorMap};
use super::{Element, Global, outside_kernel};
use core::marker::PhantomData;

/// `STAGES` buffers of `TILE` elements of `T`, with their barriers.
pub struct Pipeline<T: Element, const STAGES: usize, const TILE: usize>(PhantomData<T>);

/// Declares the pipeline: the stage buffers take `STAGES * TILE * size_of::<T>()` bytes of
/// dynamic shared memory (`KernelSpec::dynamic_shared_bytes`); the thread where `leader` is
/// true initialises the full barriers with `producer_arrivals` and the empty barriers with
/// `consumer_arrivals`, then `fence.mbarrier_init` and `bar.sync 0` publish them. Every thread
/// of the CTA reaches it.
pub fn pipeline<T: Element, const STAGES: usize, const TILE: usize>(
    _leader: bool,
    _producer_arrivals: u32,
    _consumer_arrivals: u32,
) -> Pipeline<T, STAGES, TILE> {
    outside_kernel("pipeline")
}

/// The pipeline of a cluster of `CTAS` CTAs whose producers multicast into each other's stages
/// (`ProducerSlot::load_tiles_multicast`): each stage's empty barrier counts the
/// `consumer_arrivals` of every CTA of the cluster, `release` arrives on every CTA's, the
/// barriers are published to the cluster (`fence.mbarrier_init` and `barrier.cluster`), and
/// every thread meets the others at the cluster barrier before it exits, so no CTA leaves
/// while a peer still arrives on its barriers. `CTAS` is the kernel's cluster size.
pub fn pipeline_cluster<T: Element, const STAGES: usize, const TILE: usize, const CTAS: usize>(
    _leader: bool,
    _producer_arrivals: u32,
    _consumer_arrivals: u32,
) -> Pipeline<T, STAGES, TILE> {
    outside_kernel("pipeline_cluster")
}

impl<T: Element, const STAGES: usize, const TILE: usize> Pipeline<T, STAGES, TILE> {
    /// The producer's state: stage 0, at the phase that treats every buffer as empty.
    pub fn producer(&self) -> Producer<T, STAGES, TILE> {
        outside_kernel("Pipeline::producer")
    }
    /// A consumer's state: stage 0, phase 0.
    pub fn consumer(&self) -> Consumer<T, STAGES, TILE> {
        outside_kernel("Pipeline::consumer")
    }
}

/// The producer side: which stage is next and its phase.
pub struct Producer<T: Element, const STAGES: usize, const TILE: usize>(PhantomData<T>);

impl<T: Element, const STAGES: usize, const TILE: usize> Producer<T, STAGES, TILE> {
    /// Waits until the next stage's buffer is empty (`try_wait.parity` on its empty barrier).
    pub fn acquire(&mut self) -> ProducerSlot<'_, T, STAGES, TILE> {
        outside_kernel("Producer::acquire")
    }
}

/// Proof that the producer waited for the stage's empty barrier.
#[must_use = "a slot must be loaded, or the consumers wait forever"]
pub struct ProducerSlot<'a, T: Element, const STAGES: usize, const TILE: usize>(
    PhantomData<&'a mut T>,
);

impl<T: Element, const STAGES: usize, const TILE: usize> ProducerSlot<'_, T, STAGES, TILE> {
    /// The stage index, 0..STAGES.
    pub fn stage(&self) -> u32 {
        outside_kernel("ProducerSlot::stage")
    }
    /// Arms the stage's full barrier (`mbarrier.arrive.expect_tx` of `TILE * size_of::<T>()`
    /// bytes) and copies `src[index .. index + TILE]` into the stage's buffer with
    /// `cp.async.bulk` completing on that barrier; then moves to the next stage.
    pub fn load(self, _src: &Global<T>, _index: u32) {
        outside_kernel("ProducerSlot::load")
    }
    /// Arms the stage's full barrier with the box's bytes and copies the box of `map` at
    /// `coords` into the stage's buffer with
    /// `cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes`; then moves
    /// to the next stage. The box must fill the stage exactly (`TILE` elements of `T`), a
    /// compile error otherwise.
    pub fn load_tile<B: BoxShape, S: Swizzling>(
        self,
        _map: &TensorMap<T, B, S>,
        _coords: B::Coords,
    ) {
        outside_kernel("ProducerSlot::load_tile")
    }
    /// On a [`pipeline_cluster`]: `a`'s box into this CTA's stage, and `b`'s box multicast
    /// (`.multicast::cluster`) to every CTA's stage at `a`'s size plus this CTA's rank times
    /// `b`'s size: the CTAs of a cluster that share a GEMM's B tile each load a slice of it.
    /// The stage's full barrier is armed with `a`'s bytes and `CTAS` of `b`'s, which together
    /// must fill the stage.
    pub fn load_tiles_multicast<BA: BoxShape, SA: Swizzling, BB: BoxShape, SB: Swizzling>(
        self,
        _a: &TensorMap<T, BA, SA>,
        _a_coords: BA::Coords,
        _b: &TensorMap<T, BB, SB>,
        _b_coords: BB::Coords,
    ) {
        outside_kernel("ProducerSlot::load_tiles_multicast")
    }
    /// Two boxes into one stage, `a`'s first and `b`'s right after it (a GEMM's A and B
    /// tiles), completing on the stage's full barrier armed with both boxes' bytes. Together
    /// they must fill the stage exactly.
    pub fn load_tiles<BA: BoxShape, SA: Swizzling, BB: BoxShape, SB: Swizzling>(
        self,
        _a: &TensorMap<T, BA, SA>,
        _a_coords: BA::Coords,
        _b: &TensorMap<T, BB, SB>,
        _b_coords: BB::Coords,
    ) {
        outside_kernel("ProducerSlot::load_tiles")
    }
}

/// A consumer's side: which stage is next and its phase.
pub struct Consumer<T: Element, const STAGES: usize, const TILE: usize>(PhantomData<T>);

impl<T: Element, const STAGES: usize, const TILE: usize> Consumer<T, STAGES, TILE> {
    /// Waits until the next stage's buffer is full (`try_wait.parity` on its full barrier).
    pub fn wait(&mut self) -> ConsumerSlot<'_, T, STAGES, TILE> {
        outside_kernel("Consumer::wait")
    }
    /// Moves past the next `stages` stages without waiting for them or releasing them: they
    /// belong to another consumer of the same ring, which waits and releases them (a ping-pong
    /// GEMM's warp groups take the producer's stages unit by unit, each unit's run of stages to
    /// one of them). The position goes forward `stages` stages and the phase parity flips once
    /// for each time that wraps around the ring, as `stages` calls of `wait` and `release`
    /// would move it. The empty barriers must count only the consumers that do release each
    /// stage (`consumer_arrivals`).
    pub fn skip(&mut self, _stages: u32) {
        outside_kernel("Consumer::skip")
    }
}

/// A full stage, readable until released.
#[must_use = "a slot must be released, or the producer waits forever"]
pub struct ConsumerSlot<'a, T: Element, const STAGES: usize, const TILE: usize>(
    PhantomData<&'a mut T>,
);

impl<T: Element, const STAGES: usize, const TILE: usize> ConsumerSlot<'_, T, STAGES, TILE> {
    /// The stage index, 0..STAGES.
    pub fn stage(&self) -> u32 {
        outside_kernel("ConsumerSlot::stage")
    }
    /// The shared-memory address of element `index` (0..TILE) of the stage's buffer, for
    /// operands that name shared memory by address (wgmma descriptors).
    pub fn address(&self, _index: u32) -> u32 {
        outside_kernel("ConsumerSlot::address")
    }
    /// Element `index` (0..TILE) of the stage's buffer.
    pub fn get(&self, _index: u32) -> T {
        outside_kernel("ConsumerSlot::get")
    }
    /// Arrives on the stage's empty barrier (each of the `consumer_arrivals` threads does) and
    /// moves to the next stage.
    pub fn release(self) {
        outside_kernel("ConsumerSlot::release")
    }
    /// Moves every caller to the next stage, and arrives on the stage's empty barrier only from
    /// the threads where `arrive` is true: one thread per warp group, say, with
    /// `consumer_arrivals` counting warp groups instead of threads (CUTLASS's signalling
    /// thread). Each elected thread must have finished its warp group's reads of the stage: a
    /// wgmma group that read it completed (`wait`), or a barrier over the group after plain
    /// loads. A count that the elected threads do not meet is a deadlock the analyzer and the
    /// simulator report.
    pub fn release_elected(self, _arrive: bool) {
        outside_kernel("ConsumerSlot::release_elected")
    }
}
