//! Warpgroup matrix multiply-accumulate (`wgmma`, PTX ISA §9.7.15) with its asynchrony in the
//! accumulator's type.
//!
//! A `wgmma.mma_async` runs after the instruction issues: it writes its accumulator registers
//! and reads its shared-memory operands until a `wgmma.wait_group` retires the group it was
//! committed in (§9.7.15.7). Touching the registers before that is undefined. Here the
//! accumulator [`Acc`] carries the state of its asynchronous work in its type, so what the ISA
//! leaves undefined is a rustc error on the user's tokens:
//!
//! | state | what it means | allowed |
//! |---|---|---|
//! | [`Idle`] | no wgmma on it is in flight | `get`, `store`, `mma` |
//! | [`Issued<P>`] | wgmmas issued into the open batch, `P` committed groups before it | `mma`, `commit` |
//! | [`InFlight<P>`] | `P` (≥ 1) committed groups may still write it | `mma`, `wait::<K>()` for `K < P` |
//!
//! `wait::<0>()` gives back an [`Idle`] accumulator, `wait::<K>()` an `InFlight<PK>`. The count
//! is per accumulator: `wgmma.wait_group K` leaves at most the `K` newest groups of the whole
//! warpgroup pending, so at most `K` of this accumulator's, whatever other accumulators
//! committed in between; and an accumulator whose wgmmas another accumulator's `commit` put in
//! an earlier group only completes sooner than its type says. The canonical main loop keeps
//! one group in flight and its type is the same at every iteration: `acc = acc.mma(..).commit()
//! .wait::<1>()` goes `InFlight<P1>` → `Issued<P1>` → `InFlight<P2>` → `InFlight<P1>`.
//!
//! `wgmma.fence` (§9.7.15.7.1) is placed by construction: the first `mma` of a batch (on a
//! `Idle` or `InFlight` accumulator) emits it before its wgmma, which covers the registers'
//! initialisation, reads by `get`/`store`, and every earlier instruction; later `mma`s of the
//! batch accumulate into the same registers with the same shape, which the ISA orders without a
//! fence.

use super::pipeline::ConsumerSlot;
use super::tma::{BoxShape, Swizzling, TensorMap};
use super::{Element, Global, outside_kernel};
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

/// Element types a wgmma accumulates in (`f32`).
pub trait AccElement: Element + sealed::Sealed {}

/// The 16-bit floats a wgmma multiplies from registers with an `f32` accumulator, and P of an
/// online softmax is rounded to: `bf16` and `f16` (`.bf16` / `.f16` A of `m64nNk16`, PTX ISA
/// §9.7.15.5.2).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a 16-bit float: wgmma multiplies A from registers as `bf16` or `f16`",
    note = "P is rounded to `bf16` (`online_softmax(..)`) or `f16` (`online_softmax::<f16>(..)`), and the values it multiplies are of the same type"
)]
pub trait HalfFloat: WgmmaInput + sealed::Sealed {}
impl sealed::Sealed for half::bf16 {}
impl HalfFloat for half::bf16 {}
impl sealed::Sealed for half::f16 {}
impl HalfFloat for half::f16 {}
impl sealed::Sealed for f32 {}
impl AccElement for f32 {}

/// A warpgroup's `M × N` accumulator of `wgmma.mma_async.m64nNkK`, in registers: each of the
/// 128 threads holds `N / 2` elements (for `M = 64`). Element `i` of the thread with lane `l`
/// in warp `w` of its warpgroup (`w = warp_id() % 4`) is row `16w + l / 4 + 8 ((i / 2) % 2)`,
/// column `8 (i / 4) + 2 (l % 4) + i % 2` (the D fragment of §9.7.15.5.1.1).
#[must_use = "an accumulator's products are lost unless it is read or stored"]
pub struct Acc<T: AccElement, const M: u32, const N: u32, S: AccState = Idle>(PhantomData<(T, S)>);

/// What asynchronous work an accumulator has: [`Idle`], [`Issued`] or [`InFlight`].
pub trait AccState: sealed::Sealed {}

/// No wgmma writing the accumulator is in flight: its registers can be read.
pub struct Idle;
/// wgmmas issued into the open (not yet committed) batch, `P` committed groups before it.
pub struct Issued<P: Groups>(PhantomData<P>);
/// `P` committed groups may still write the accumulator.
pub struct InFlight<P: Groups>(PhantomData<P>);

impl sealed::Sealed for Idle {}
impl AccState for Idle {}
impl<P: Groups> sealed::Sealed for Issued<P> {}
impl<P: Groups> AccState for Issued<P> {}
impl<P: Groups> sealed::Sealed for InFlight<P> {}
impl<P: Groups> AccState for InFlight<P> {}

/// A count of committed wgmma groups, `P0` to `P7`.
pub trait Groups: sealed::Sealed {
    /// The count.
    const COUNT: u32;
}

/// A count that one more commit can raise.
#[diagnostic::on_unimplemented(
    message = "a wgmma batch committed on top of `{Self}` groups: at most 7 are tracked",
    note = "wait for earlier groups (`wait::<K>()`) before committing more"
)]
pub trait MoreGroups: Groups {
    /// The count plus one.
    type Next: Groups;
}

macro_rules! counts {
    ($($name:ident = $n:literal),*) => {$(
        #[doc = concat!("Type-level count: ", stringify!($n), " committed groups.")]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Groups for $name {
            const COUNT: u32 = $n;
        }
    )*};
}
counts!(
    P0 = 0,
    P1 = 1,
    P2 = 2,
    P3 = 3,
    P4 = 4,
    P5 = 5,
    P6 = 6,
    P7 = 7
);

macro_rules! next {
    ($($a:ident -> $b:ident),*) => {$(
        impl MoreGroups for $a {
            type Next = $b;
        }
    )*};
}
next!(P0 -> P1, P1 -> P2, P2 -> P3, P3 -> P4, P4 -> P5, P5 -> P6, P6 -> P7);

/// States whose registers the threads may read: no wgmma writing them is in flight.
#[diagnostic::on_unimplemented(
    message = "the accumulator is read while wgmma work on it is `{Self}`",
    label = "its registers are written asynchronously until the group completes (PTX ISA §9.7.15.7.3)",
    note = "`commit()` the batch and `wait::<0>()` for it first: the result is an `Acc<.., Idle>`"
)]
pub trait Readable: AccState {}
impl Readable for Idle {}

/// States from which a wgmma can be issued, and the state after it.
pub trait Issue: AccState {
    /// The state after one more `mma`.
    type Out: AccState;
}
impl Issue for Idle {
    type Out = Issued<P0>;
}
impl<P: Groups> Issue for Issued<P> {
    type Out = Issued<P>;
}
impl<P: Groups> Issue for InFlight<P> {
    type Out = Issued<P>;
}

/// States with an open batch to commit.
#[diagnostic::on_unimplemented(
    message = "`commit()` on an accumulator in state `{Self}`: no wgmma was issued since the last commit",
    label = "nothing to commit",
    note = "a commit closes the batch of `mma`s issued since the last one; committing none makes an empty group"
)]
pub trait Commit: AccState {
    /// The state after the commit.
    type Out: AccState;
}
impl<P: MoreGroups> Commit for Issued<P> {
    type Out = InFlight<P::Next>;
}

/// States `wait::<K>()` applies to: `K` less than the groups in flight, no batch open.
#[diagnostic::on_unimplemented(
    message = "`wait::<{K}>()` on an accumulator in state `{Self}`",
    label = "a wait applies to committed groups, and `K` must be fewer than the groups in flight",
    note = "`commit()` an open batch before waiting; `wait::<0>()` waits for all of them"
)]
pub trait WaitTo<const K: u32>: AccState {
    /// The state after the wait.
    type Out: AccState;
}

macro_rules! waits {
    ($($p:ident: $($k:literal => $out:ty),*);*) => {$($(
        impl WaitTo<$k> for InFlight<$p> {
            type Out = $out;
        }
    )*)*};
}
waits! {
    P1: 0 => Idle;
    P2: 0 => Idle, 1 => InFlight<P1>;
    P3: 0 => Idle, 1 => InFlight<P1>, 2 => InFlight<P2>;
    P4: 0 => Idle, 1 => InFlight<P1>, 2 => InFlight<P2>, 3 => InFlight<P3>;
    P5: 0 => Idle, 1 => InFlight<P1>, 2 => InFlight<P2>, 3 => InFlight<P3>, 4 => InFlight<P4>;
    P6: 0 => Idle, 1 => InFlight<P1>, 2 => InFlight<P2>, 3 => InFlight<P3>, 4 => InFlight<P4>,
        5 => InFlight<P5>;
    P7: 0 => Idle, 1 => InFlight<P1>, 2 => InFlight<P2>, 3 => InFlight<P3>, 4 => InFlight<P4>,
        5 => InFlight<P5>, 6 => InFlight<P6>
}

impl<T: AccElement, const M: u32, const N: u32> Acc<T, M, N, InFlight<P1>> {
    /// `wgmma.wait_group.sync.aligned 1`, with `newer`'s group committed after this one's:
    /// every group but the newest is complete (PTX ISA §9.7.15.7.3), so this accumulator is
    /// readable while the tensor cores still run `newer`'s products. Two accumulators in flight
    /// in turn let a warpgroup read one product while it computes the next (an fp8 GEMM's
    /// promotion adds each stage's product into an f32 total this way). rustc sees only that
    /// each has one group of its own in flight; that `newer`'s was committed last is checked by
    /// `#[kernel]`, and any other commit after it is an error there.
    pub fn wait_behind<U: AccElement, const M2: u32, const N2: u32>(
        self,
        _newer: &Acc<U, M2, N2, InFlight<P1>>,
    ) -> Acc<T, M, N, Idle> {
        outside_kernel("Acc::wait_behind")
    }
}

/// Element types a wgmma reads from shared memory: `f32` (read as `.tf32`, `k8`), `bf16` and
/// `f16` (`k16`), `f8e4m3` and `f8e5m2` (`.e4m3`, `.e5m2`, `k32`; K-major only).
pub trait WgmmaInput: Element {}
impl WgmmaInput for f32 {}
impl WgmmaInput for half::bf16 {}
impl WgmmaInput for half::f16 {}
impl WgmmaInput for super::narrow::f8e4m3 {}
impl WgmmaInput for super::narrow::f8e5m2 {}

/// A zeroed `M × N` accumulator of `T` for the warpgroup (`mov.f32` of 0 into its `N / 2`
/// registers per thread). `M` is 64; `N` a multiple of 8 from 8 to 256 (PTX ISA §9.7.15.5.2):
/// `#[kernel]` checks both.
pub fn accumulator<T: AccElement, const M: u32, const N: u32>() -> Acc<T, M, N, Idle> {
    outside_kernel("accumulator")
}

impl<T: AccElement, const M: u32, const N: u32, S: AccState> Acc<T, M, N, S> {
    /// `acc += A · Bᵀ` over the whole K of a stage that `load_tiles(&a, .., &b, ..)` filled:
    /// `a`'s box (`Tile2<K, 64>`, K contiguous) at the start of the stage, `b`'s (`Tile2<K, N>`)
    /// right after it, both in the swizzled layout their maps' types name. One
    /// `wgmma.mma_async.sync.aligned.m64nNkK` per K step, with the matrix descriptors built from
    /// the boxes' types (swizzle mode, stride byte offset of 8 rows); the first `mma` of a
    /// batch is preceded by `wgmma.fence.sync.aligned`. Every thread of the warpgroup calls it.
    #[allow(clippy::type_complexity)]
    pub fn mma<E, const STAGES: usize, const TILE: usize, BA, SA, BB, SB>(
        self,
        _slot: &ConsumerSlot<'_, E, STAGES, TILE>,
        _a: &TensorMap<E, BA, SA>,
        _b: &TensorMap<E, BB, SB>,
    ) -> Acc<T, M, N, S::Out>
    where
        S: Issue,
        E: WgmmaInput,
        BA: BoxShape,
        SA: Swizzling,
        BB: BoxShape,
        SB: Swizzling,
    {
        outside_kernel("Acc::mma")
    }

    /// `mma` on row block `block` of a taller A box: the stage holds `a`'s box of `64 × R` rows
    /// (the CTA's rows, shared by `R` consumer warpgroups) and then `N` rows of B — `b`'s box,
    /// or on a [`super::pipeline_cluster`] the `CTAS` slices `load_tiles_multicast` put there;
    /// this warpgroup multiplies rows `64 · block .. 64 · block + 64` of A.
    pub fn mma_block<E, const STAGES: usize, const TILE: usize, BA, SA, BB, SB>(
        self,
        _slot: &ConsumerSlot<'_, E, STAGES, TILE>,
        _a: &TensorMap<E, BA, SA>,
        _b: &TensorMap<E, BB, SB>,
        _block: u32,
    ) -> Acc<T, M, N, S::Out>
    where
        S: Issue,
        E: WgmmaInput,
        BA: BoxShape,
        SA: Swizzling,
        BB: BoxShape,
        SB: Swizzling,
    {
        outside_kernel("Acc::mma_block")
    }

    /// `acc += A · Bᵀ` with A and B in two different stages: A the `64`-row block `a_block` of
    /// `a`'s box at the start of `a_slot`'s stage (say a query tile both consumer warpgroups
    /// share), B `b`'s box at element `b_offset` of `b_slot`'s stage (say a key tile). Both boxes
    /// are K-major in rows of one 128-byte swizzle span; a box of rank 3 or more
    /// (`Tile3<64, ROWS, CHUNKS>`, `Tile4<64, ROWS, CHUNKS, 1>`) holds `CHUNKS` such tiles one
    /// after another, so K runs to `64 · CHUNKS`. One `wgmma.mma_async.m64nNk16` per 16 of K.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub fn mma_tiles<
        E,
        const SA: usize,
        const TA: usize,
        const SB: usize,
        const TB: usize,
        BA,
        XA,
        BB,
        XB,
    >(
        self,
        _a_slot: &ConsumerSlot<'_, E, SA, TA>,
        _a: &TensorMap<E, BA, XA>,
        _a_block: u32,
        _b_slot: &ConsumerSlot<'_, E, SB, TB>,
        _b: &TensorMap<E, BB, XB>,
        _b_offset: u32,
    ) -> Acc<T, M, N, S::Out>
    where
        S: Issue,
        E: WgmmaInput,
        BA: BoxShape,
        XA: Swizzling,
        BB: BoxShape,
        XB: Swizzling,
    {
        outside_kernel("Acc::mma_tiles")
    }

    /// `acc += P · B` with A from registers: `p` is a [`Fragment`] (the `bf16` rounding of
    /// another accumulator, [`super::OnlineSoftmax::step`]), B `b`'s box at element `b_offset`
    /// of the stage, read N-major: its `K` rows of `64 · CHUNKS` contiguous elements (a value
    /// tile, `Tile3<64, K, CHUNKS>`) are the product's K, its columns the accumulator's N.
    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16 {d}, {a}, desc_b, 1, 1, 1, 1` (the
    /// last immediate: B transposed, §9.7.15.5.1.2.1.3; `.f16.f16` for f16), one per 16 of K.
    pub fn mma_regs<E: HalfFloat, const K: u32, const SB: usize, const TB: usize, BB, XB>(
        self,
        _p: &Fragment<E, K>,
        _b_slot: &ConsumerSlot<'_, E, SB, TB>,
        _b: &TensorMap<E, BB, XB>,
        _b_offset: u32,
    ) -> Acc<T, M, N, S::Out>
    where
        S: Issue,
        BB: BoxShape,
        XB: Swizzling,
    {
        outside_kernel("Acc::mma_regs")
    }

    /// Multiplies every element by `factor` (`mul.rn.f32` per register): the per-tensor scales
    /// of an fp8 product, applied to the f32 sums before they are rounded.
    pub fn scale(&mut self, _factor: f32)
    where
        S: Readable,
    {
        outside_kernel("Acc::scale")
    }

    /// Adds `other`'s elements to this accumulator's (`add.rn.f32` per register). fp8's
    /// promotion: each stage's product, summed by the tensor cores into a fresh accumulator,
    /// is added into an f32 total here, so that a long K is summed in f32 and not in the tensor
    /// cores' narrower fp8 accumulation. Both accumulators must be complete.
    pub fn add<S2>(&mut self, _other: &Acc<T, M, N, S2>)
    where
        S: Readable,
        S2: AccState + Readable,
    {
        outside_kernel("Acc::add")
    }

    /// The accumulator zeroed (`mov.f32` of 0 per register), on its own registers. Followed by
    /// a product in the same expression (`acc.reset().mma_block(..)`), nothing is written: the
    /// product's first wgmma overwrites the registers (scale-d 0), as a fresh
    /// [`accumulator`]'s does, and no instruction but wgmma defines them between two products.
    pub fn reset(self) -> Acc<T, M, N, Idle>
    where
        S: Readable,
    {
        outside_kernel("Acc::reset")
    }

    /// Sets the elements of columns `limit..N` to −∞ (`selp` per register): the columns past
    /// the end of a ragged sequence, so that softmax gives them weight 0.
    pub fn mask_columns(&mut self, _limit: u32)
    where
        S: Readable,
    {
        outside_kernel("Acc::mask_columns")
    }

    /// Sets element `(r, c)` to −∞ where `c > r + offset`: causal masking on a diagonal tile,
    /// `offset` being the tile's first query row minus its first key column.
    pub fn mask_causal(&mut self, _offset: u32)
    where
        S: Readable,
    {
        outside_kernel("Acc::mask_causal")
    }

    /// `wgmma.commit_group.sync.aligned`: closes the open batch into a group.
    pub fn commit(self) -> Acc<T, M, N, S::Out>
    where
        S: Commit,
    {
        outside_kernel("Acc::commit")
    }

    /// `wgmma.wait_group.sync.aligned K`: waits until at most `K` groups are pending.
    pub fn wait<const K: u32>(self) -> Acc<T, M, N, <S as WaitTo<K>>::Out>
    where
        S: WaitTo<K>,
    {
        outside_kernel("Acc::wait")
    }

    /// Columns `64 · block .. 64 · block + 64` of the accumulator (`block` a constant), rounded
    /// to the tile's `E` (`cvt.rn.bf16x2.f32` or `.f16x2`, a pair of neighbouring columns in one
    /// 32-bit word), into
    /// `tiles[index..index + 2048]`: a 64 × 64 tile in the 128-byte-swizzled layout a
    /// `Tile2<64, 64>` box of a `Swizzle128B` map has in shared memory (`index` a multiple of
    /// 256 pairs, so the tile starts where the swizzle pattern does), ready for `tma_store`
    /// after `fence_proxy_async()` and a barrier over the warpgroup.
    pub fn stage_columns<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns")
    }

    /// Columns `32 · block .. 32 · block + 32` of the accumulator (`block` a constant), rounded
    /// as [`stage_columns`](Self::stage_columns) rounds them, into `tiles[index..index + 1024]`:
    /// a 64 × 32 tile in the 64-byte-swizzled layout a `Tile2<32, 64>` box of a `Swizzle64B`
    /// map has in shared memory (row `r` at byte `64 r`, its 16-byte chunk `q` at chunk
    /// `q ^ (r / 2 % 4)`; `index` a multiple of 128 pairs, where the pattern starts). For units
    /// of C whose width is a multiple of 32 columns but not of 64 (160, 224), stored by a map
    /// of 32-column boxes.
    pub fn stage_columns_32<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns_32")
    }

    /// Columns `16 · block .. 16 · block + 16` of the accumulator (`block` a constant), rounded
    /// as [`stage_columns`](Self::stage_columns) rounds them, into `tiles[index..index + 512]`:
    /// a 64 × 16 tile in the 32-byte-swizzled layout a `Tile2<16, 64>` box of a `Swizzle32B`
    /// map has in shared memory (row `r` at byte `32 r`, its 16-byte chunk `q` at chunk
    /// `q ^ (r / 4 % 2)`; `index` a multiple of 64 pairs, where the pattern starts). For units
    /// of C whose width is a multiple of 16 columns but not of 32 (144, 176), stored by a map
    /// of 16-column boxes.
    pub fn stage_columns_16<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns_16")
    }

    /// Columns `64 · block .. 64 · block + 64` of the accumulator, transposed: the tile's row
    /// `c` holds column `c` of the block, its 64 elements the accumulator's 64 rows, rounded to
    /// `E` one element at a time (`cvt.rn.bf16.f32` and `st.shared.b16`: the two columns a
    /// register pair holds land in different rows), in the same 128-byte-swizzled layout as
    /// [`stage_columns`](Self::stage_columns). A product computed as `Cᵀ = B · Aᵀ` (a skinny
    /// GEMM whose few rows of A are the wgmma's N) is stored by it as C, with `tma_store` at
    /// the accumulator's row as the first coordinate.
    pub fn stage_columns_transposed<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns_transposed")
    }

    /// Columns `16 · block .. 16 · block + 16` of the accumulator, transposed as
    /// [`stage_columns_transposed`](Self::stage_columns_transposed) transposes 64 (one element
    /// at a time), into `tiles[index..index + 512]`: a 16 × 64 tile, its row `c` column `c` of the
    /// block, in the 128-byte-swizzled layout a `Tile2<64, 16>` box of a `Swizzle128B` map has
    /// in shared memory (`index` a multiple of 256 pairs). For a product computed as `Cᵀ = B · Aᵀ`
    /// whose units are 16 rows of A: C's 16 rows of 64 columns a warp group.
    pub fn stage_columns_transposed_16<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns_transposed_16")
    }

    /// Columns `32 · block .. 32 · block + 32` of the accumulator, transposed as
    /// [`stage_columns_transposed_16`](Self::stage_columns_transposed_16) transposes 16, into
    /// `tiles[index..index + 1024]`: a 32 × 64 tile in the 128-byte swizzle of a `Tile2<64, 32>`
    /// box (`index` a multiple of 256 pairs). For transposed units 32 rows of A wide.
    pub fn stage_columns_transposed_32<E: HalfFloat, const LEN: usize>(
        &self,
        _tiles: &mut super::SharedArray<[E; 2], LEN>,
        _index: u32,
        _block: u32,
    ) where
        S: Readable,
        [E; 2]: Element,
    {
        outside_kernel("Acc::stage_columns_transposed_32")
    }

    /// This thread's element `i` (`0..N / 2`, a constant): a copy of its register.
    pub fn get(&self, _i: u32) -> T
    where
        S: Readable,
    {
        outside_kernel("Acc::get")
    }

    /// The row of this thread's element `i` in the accumulator (`0..M`).
    pub fn row(&self, _i: u32) -> u32 {
        outside_kernel("Acc::row")
    }

    /// The column of this thread's element `i` in the accumulator (`0..N`).
    pub fn col(&self, _i: u32) -> u32 {
        outside_kernel("Acc::col")
    }

    /// Stores the accumulator into a row-major matrix: element `(r, c)` to
    /// `dst[index + r * ld + c]`; each thread stores its `N / 2` elements.
    pub fn store(&self, _dst: &mut Global<T>, _index: u32, _ld: u32)
    where
        S: Readable,
    {
        outside_kernel("Acc::store")
    }
}

/// A stage the consumer has finished reading with its own instructions but that asynchronous
/// readers (the wgmmas of a group still in flight) may still use: it goes back to the producer
/// only at [`Retired::release`]. Made by [`ConsumerSlot::retire`], it holds no borrow of the
/// consumer, so the next stage can be waited for while this one is kept: the main loop that
/// keeps one wgmma group in flight releases stage `i - 1` after `wait::<1>()` at stage `i`.
#[must_use = "a retired stage must be released, or the producer waits forever"]
pub struct Retired<T: Element, const STAGES: usize, const TILE: usize>(PhantomData<T>);

impl<T: Element, const STAGES: usize, const TILE: usize> Retired<T, STAGES, TILE> {
    /// Arrives on the stage's empty barrier (each of the `consumer_arrivals` threads does).
    pub fn release(self) {
        outside_kernel("Retired::release")
    }
}

impl<T: Element, const STAGES: usize, const TILE: usize> ConsumerSlot<'_, T, STAGES, TILE> {
    /// Ends this slot's reads and moves the consumer to the next stage, keeping the stage from
    /// the producer until the [`Retired`] token is released (after the wgmma group that reads
    /// it has completed).
    pub fn retire(self) -> Retired<T, STAGES, TILE> {
        outside_kernel("ConsumerSlot::retire")
    }
}

/// The A operand of a `wgmma` held in registers: `64 × K` `bf16`, `K / 4` 32-bit registers a
/// thread, each a pair of neighbouring columns (`cvt.rn.bf16x2.f32`). Its layout is the
/// accumulator's (§9.7.15.5.1.1: A's register fragment of `m64nNk16` is the D fragment of
/// `m64n16`), so an f32 accumulator becomes one without moving data between threads.
pub struct Fragment<E: Element, const K: u32>(PhantomData<E>);
