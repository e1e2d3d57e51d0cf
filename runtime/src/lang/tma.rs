//! Tensor maps and the copies of the tensor memory accelerator (TMA) that use them.
//!
//! A [`TensorMap`] parameter is a `CUtensorMap` passed by value, as nvcc passes a
//! `const __grid_constant__ CUtensorMap` (`.param .align 64 .b8 name[128]`). Its type carries
//! what the kernel relies on: the element type, the box (the tile one copy moves, dimension 0
//! contiguous first) and the shared-memory swizzle. From these the kernel language derives
//! the bytes a copy completes on its mbarrier, so `expect_tx` is never written by hand, and
//! checks at compile time that a box fits the stage it fills. The launch encodes the rest of
//! the map (address, dimensions, strides) with `KernelSpec::map_type`'s `tiled`, which the
//! simulator and the GPU path share, and refuses a map whose element, box or swizzle differ
//! from the parameter's type.

use super::{Element, Global, SharedDst, outside_kernel};
use core::marker::PhantomData;

/// A `CUtensorMap` over a tensor of `T`, copying boxes of shape `B` laid out in shared memory
/// with swizzle `S`.
pub struct TensorMap<T: Element, B: BoxShape, S: Swizzling = NoSwizzle>(PhantomData<(T, B, S)>);

impl<T: Element, B: BoxShape, S: Swizzling> TensorMap<T, B, S> {
    /// `prefetch.tensormap [map]`: brings the map into the copy engine's cache ahead of the
    /// first copy (PTX ISA §9.7.9.15).
    pub fn prefetch(&self) {
        outside_kernel("TensorMap::prefetch")
    }

    /// Starts writing a map of this type into `slots[index]` (`map.edit(slots, i)`, the slots' parameter by name): the slot gets this map's 128
    /// bytes (generic stores), which the returned edit then changes field by field with
    /// `tensormap.replace` (PTX ISA §9.7.9.26) and ends with [`MapEdit::release`]. The element,
    /// box and swizzle stay this map's, so every copy through the new map still fills the
    /// stages it was checked against; what changes is where the tensor is and how large.
    ///
    /// One thread writes a slot; a slot that copies may still be reading is not written again
    /// (give each piece of work its own slot).
    pub fn edit(&self, _slots: &mut TensorMapSlots, _index: u32) -> MapEdit<T, B, S> {
        outside_kernel("TensorMap::edit")
    }

    /// The map that [`MapEdit::release`] wrote into `slots[index]`, for this thread's tensor
    /// copies: `fence.proxy.tensormap::generic.acquire.gpu [slot], 128` (§9.7.13.4), so the
    /// copy engine reads the bytes the release published and not a stale copy. The thread that
    /// released it, or one ordered after it (through the pipeline whose stage it then loads or
    /// waits for), acquires it.
    pub fn published(&self, _slots: &TensorMapSlots, _index: u32) -> TensorMap<T, B, S> {
        outside_kernel("TensorMap::published")
    }
}

/// A 128-byte, 64-byte-aligned place in global memory for a tensor map a kernel writes: the
/// element of a `&mut [TensorMapSlot]` parameter (the launch passes a buffer of `128 · slots`
/// bytes). Not an [`Element`]: a kernel does not index slots, it writes and reads maps in them.
pub struct TensorMapSlot(PhantomData<[u64; 16]>);

/// What a `&mut [TensorMapSlot]` parameter is inside a kernel: only [`TensorMap::edit`] and
/// [`TensorMap::published`] take it.
pub struct TensorMapSlots(PhantomData<TensorMapSlot>);

/// A tensor map being written into a slot ([`TensorMap::edit`]); each method is one
/// `tensormap.replace.tile` on the slot in global memory (§9.7.9.26). Copies cannot use it
/// until [`MapEdit::release`] fences it and a thread [`TensorMap::published`]s it: the copy
/// engine reads maps through the tensormap proxy, which the generic writes do not reach
/// unfenced (§9.7.13.4).
#[must_use = "an edited map is used only after `.release()` and `map.published(..)`"]
pub struct MapEdit<T: Element, B: BoxShape, S: Swizzling>(PhantomData<(T, B, S)>);

impl<T: Element, B: BoxShape, S: Swizzling> MapEdit<T, B, S> {
    /// `.global_address`: the tensor starts at `data[index]` (`.address(data, i)`, the slice
    /// parameter by name), whose element type is the map's; the address must be 16-byte
    /// aligned.
    pub fn address(self, _data: &Global<T>, _index: u32) -> Self {
        outside_kernel("MapEdit::address")
    }

    /// `.global_dim`: the tensor has `extent` elements along dimension `dim` (a literal below
    /// the rank; dimension 0 is the contiguous one). Copies fill what lies past it with zeros
    /// and stores skip it, so a tile that straddles the end needs no mask.
    pub fn global_dim(self, _dim: u32, _extent: u32) -> Self {
        outside_kernel("MapEdit::global_dim")
    }

    /// `fence.proxy.tensormap::generic.release.gpu`: the writes are published to the
    /// tensormap proxy; [`TensorMap::published`] acquires them.
    pub fn release(self) {
        outside_kernel("MapEdit::release")
    }
}

/// The shape of a box: its rank and its size per dimension (dimension 0 contiguous).
pub trait BoxShape {
    /// Dimensions, 1..=5.
    const RANK: u32;
    /// Elements per dimension, dimension 0 first; 1 past the rank.
    const DIMS: [u32; 5];
    /// The coordinates of a box's first element in the tensor: `[u32; RANK]`.
    type Coords;
}

macro_rules! tiles {
    ($($(#[$doc:meta])* $name:ident [$rank:literal] ($($d:ident),+) -> [$($dim:expr),+]);* $(;)?) => {$(
        $(#[$doc])*
        pub struct $name<$(const $d: u32),+>;
        impl<$(const $d: u32),+> BoxShape for $name<$($d),+> {
            const RANK: u32 = $rank;
            const DIMS: [u32; 5] = [$($dim),+];
            type Coords = [u32; $rank];
        }
    )*};
}

tiles! {
    /// A box of `D0` elements.
    Tile1[1](D0) -> [D0, 1, 1, 1, 1];
    /// A box of `D1` rows of `D0` contiguous elements.
    Tile2[2](D0, D1) -> [D0, D1, 1, 1, 1];
    /// A three-dimensional box, dimension 0 contiguous.
    Tile3[3](D0, D1, D2) -> [D0, D1, D2, 1, 1];
    /// A four-dimensional box, dimension 0 contiguous.
    Tile4[4](D0, D1, D2, D3) -> [D0, D1, D2, D3, 1];
    /// A five-dimensional box, dimension 0 contiguous.
    Tile5[5](D0, D1, D2, D3, D4) -> [D0, D1, D2, D3, D4];
}

/// How a box is laid out in shared memory (`CUtensorMapSwizzle`).
pub trait Swizzling {
    /// Bytes of the span whose 16-byte chunks the swizzle permutes (0: none).
    const SPAN: u32;
}

macro_rules! swizzles {
    ($($(#[$doc:meta])* $name:ident = $span:literal;)*) => {$(
        $(#[$doc])*
        pub struct $name;
        impl Swizzling for $name {
            const SPAN: u32 = $span;
        }
    )*};
}

swizzles! {
    /// Rows of the box land in shared memory one after another.
    NoSwizzle = 0;
    /// 16-byte chunks permuted within 32-byte spans.
    Swizzle32B = 32;
    /// 16-byte chunks permuted within 64-byte spans.
    Swizzle64B = 64;
    /// 16-byte chunks permuted within 128-byte spans: what wgmma's 128-byte swizzled operand
    /// layout reads without bank conflicts.
    Swizzle128B = 128;
}

/// Shared memory of `T` or of vectors `[T; N]` (a packed pair of bf16, say): what a tensor copy
/// of `T` elements reads, the index counting the array's own elements.
pub trait Lanes<T: Element>: Element {}
impl<T: Element> Lanes<T> for T {}
impl<T: Element, const N: usize> Lanes<T> for [T; N] where [T; N]: Element {}

/// `cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group [map, {coords}], [src]` (PTX ISA
/// §9.7.9.25.5.2): stores the
/// box at `src[src_index..]` (the box's bytes, laid out as the map's swizzle says) into the
/// tensor at `coords`, tracked by this thread's bulk async-group. Write the shared data, then
/// `fence_proxy_async()`, then store; [`super::bulk_commit`] and [`super::bulk_wait`] finish it.
pub fn tma_store<T: Element, B: BoxShape, S: Swizzling, E: Lanes<T>>(
    _map: &TensorMap<T, B, S>,
    _coords: B::Coords,
    _src: &impl SharedDst<E>,
    _src_index: u32,
) {
    outside_kernel("tma_store")
}
