//! The little types the machine and the barrier state machines share: why a thread waits,
//! the result of an instruction, lane masks. They live apart from `machine` so that the
//! barriers (and everything else `machine` holds) depend on them without depending on the
//! machine: the dependency runs one way, machine → barrier → state.

use super::report::Stop;

/// Why a blocked thread waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Block {
    None,
    /// At a named barrier (`bar.sync`/`bar.red`), until its phase completes.
    Named {
        id: u8,
    },
    /// At `barrier.cluster.wait`.
    Cluster,
    /// At an aligned barrier or warp collective, until the rest of its warp gets there.
    Gather,
    /// In a wait loop on an mbarrier whose state has not changed since the last try.
    Parked {
        cta: u32,
        offset: u32,
    },
    /// At `cp.async.bulk.wait_group` / `cp.async.wait_group`.
    AsyncWait,
    /// At `wgmma.wait_group`, until the other warps of the warpgroup issue the wgmma.mma_async
    /// it waits for (the operation starts once all four have).
    Warpgroup,
}

pub(crate) type Res<T> = Result<T, Stop>;

/// Iterates the set bits of a lane mask.
#[inline]
pub(crate) fn lanes(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if mask == 0 {
            None
        } else {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            Some(i)
        }
    })
}
