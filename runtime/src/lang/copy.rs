//! Asynchronous copies, fences and the other synchronisation instructions that go with them.

use super::mbarrier::{MBarrier, Ready, Scope};
use super::{Element, Global, SharedDst, outside_kernel};

/// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes, [bar]`
/// with `bytes = elements * size_of::<T>()`, where `elements` is a constant and `bytes` a
/// multiple of 16: copies `src[src_index..][..elements]` to `dst[dst_index..]`, completing
/// `bytes` transactions on `bar` when done. Arm `bar` with the same bytes (or use
/// [`MBarrier::arrive_load`], which does both).
pub fn bulk_load<T: Element, P>(
    _bar: &MBarrier<Ready<P>>,
    _dst: &mut impl SharedDst<T>,
    _dst_index: u32,
    _src: &Global<T>,
    _src_index: u32,
    _elements: u32,
) {
    outside_kernel("bulk_load")
}

/// The same copy delivered to the same offset in every CTA of the cluster named in `cta_mask`
/// (`.multicast::cluster`), completing on each CTA's barrier at the same offset.
pub fn bulk_load_multicast<T: Element, P>(
    _bar: &MBarrier<Ready<P>>,
    _dst: &mut impl SharedDst<T>,
    _dst_index: u32,
    _src: &Global<T>,
    _src_index: u32,
    _elements: u32,
    _cta_mask: u32,
) {
    outside_kernel("bulk_load_multicast")
}

/// `cp.async.bulk.global.shared::cta.bulk_group [dst], [src], elements * size_of::<T>()`:
/// copies `src[src_index..][..elements]` (a constant count) to global memory, tracked by the
/// bulk async-group of this thread. Write the shared data, then `fence_proxy_async()`, then
/// store.
pub fn bulk_store<T: Element>(
    _dst: &mut Global<T>,
    _dst_index: u32,
    _src: &impl SharedDst<T>,
    _src_index: u32,
    _elements: u32,
) {
    outside_kernel("bulk_store")
}

/// `cp.async.bulk.commit_group`: closes the current bulk async-group.
pub fn bulk_commit() {
    outside_kernel("bulk_commit")
}

/// `cp.async.bulk.wait_group n` (a constant): waits until at most `n` bulk async-groups of
/// this thread are pending.
pub fn bulk_wait(_n: u32) {
    outside_kernel("bulk_wait")
}

/// `cp.async.bulk.wait_group.read n` (a constant): waits until at most `n` groups still read
/// their source.
pub fn bulk_wait_read(_n: u32) {
    outside_kernel("bulk_wait_read")
}

/// `cp.async.ca.shared.global [dst], [src], size_of::<T>()` (Ampere's asynchronous copy of 4,
/// 8 or 16 bytes; 16-byte copies use `.cg`). Complete it with
/// [`MBarrier::cp_async_arrive`].
pub fn cp_async<T: Element>(
    _dst: &mut impl SharedDst<T>,
    _dst_index: u32,
    _src: &Global<T>,
    _src_index: u32,
) {
    outside_kernel("cp_async")
}

/// `fence.proxy.async.shared::cta`: orders this thread's generic-proxy shared-memory accesses
/// before later async-proxy ones (a bulk copy reading what it wrote).
pub fn fence_proxy_async() {
    outside_kernel("fence_proxy_async")
}

/// `fence.mbarrier_init.release.cluster`.
pub fn fence_mbarrier_init() {
    outside_kernel("fence_mbarrier_init")
}

/// `fence.acq_rel.{cta,cluster,gpu,sys}`.
pub fn fence_acq_rel(_scope: Scope) {
    outside_kernel("fence_acq_rel")
}

/// `fence.sc.{cta,cluster,gpu,sys}`.
pub fn fence_sc(_scope: Scope) {
    outside_kernel("fence_sc")
}

/// `membar.cta`.
pub fn membar_cta() {
    outside_kernel("membar_cta")
}

/// `membar.gl`.
pub fn membar_gl() {
    outside_kernel("membar_gl")
}

/// `membar.sys`.
pub fn membar_sys() {
    outside_kernel("membar_sys")
}

/// `elect.sync _|p, 0xffffffff`: true in exactly one active lane of the warp.
pub fn elect_one() -> bool {
    outside_kernel("elect_one")
}

/// `nanosleep.u32 ns`: suspends the thread for about `ns` nanoseconds (at most 1 ms).
pub fn nanosleep(_ns: u32) {
    outside_kernel("nanosleep")
}
