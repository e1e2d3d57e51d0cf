//! The cluster barrier and distributed shared memory (PTX ISA §9.7.13.2, `mapa` §9.7.9.21).
//!
//! Arriving consumes the [`ClusterBarrier`] and returns a [`ClusterArrival`]; waiting on it gives
//! the barrier back. So arriving twice without a wait, or waiting without having arrived, is a
//! rustc error (both are undefined, §9.7.13.2).

use super::{Element, SharedArray, outside_kernel};
use core::marker::PhantomData;

/// The barrier of all threads of the cluster.
pub struct ClusterBarrier(());

/// The cluster barrier of this thread.
pub fn cluster_barrier() -> ClusterBarrier {
    outside_kernel("cluster_barrier")
}

/// An arrival on the cluster barrier, to be waited on.
#[must_use = "a cluster arrival must be waited on before the next arrive"]
pub struct ClusterArrival(());

macro_rules! forms {
    ($ty:ident -> $out:ident: $($(#[$doc:meta])* $name:ident,)*) => {
        impl $ty {$(
            $(#[$doc])*
            pub fn $name(self) -> $out {
                outside_kernel(concat!(stringify!($ty), "::", stringify!($name)))
            }
        )*}
    };
}

forms! { ClusterBarrier -> ClusterArrival:
    /// `barrier.cluster.arrive` (release semantics by default).
    arrive,
    /// `barrier.cluster.arrive.release`.
    arrive_release,
    /// `barrier.cluster.arrive.relaxed`: no memory ordering.
    arrive_relaxed,
    /// `barrier.cluster.arrive.aligned`: every thread of the warp executes it convergently.
    arrive_aligned,
    /// `barrier.cluster.arrive.release.aligned`.
    arrive_release_aligned,
    /// `barrier.cluster.arrive.relaxed.aligned`.
    arrive_relaxed_aligned,
}

forms! { ClusterArrival -> ClusterBarrier:
    /// `barrier.cluster.wait` (acquire semantics by default).
    wait,
    /// `barrier.cluster.wait.acquire`.
    wait_acquire,
    /// `barrier.cluster.wait.aligned`.
    wait_aligned,
    /// `barrier.cluster.wait.acquire.aligned`.
    wait_acquire_aligned,
}

/// A shared array of another CTA of the cluster (`mapa.shared::cluster`), read and written with
/// `ld.shared::cluster` / `st.shared::cluster`.
pub struct PeerShared<T: Element, const N: usize>(PhantomData<T>);

/// The array `local` as it lives in the cluster's CTA of rank `rank`.
pub fn peer_shared<T: Element, const N: usize>(
    _local: &SharedArray<T, N>,
    _rank: u32,
) -> PeerShared<T, N> {
    outside_kernel("peer_shared")
}

impl<T: Element, const N: usize> core::ops::Index<u32> for PeerShared<T, N> {
    type Output = T;
    fn index(&self, _: u32) -> &T {
        outside_kernel("peer shared index")
    }
}

impl<T: Element, const N: usize> core::ops::IndexMut<u32> for PeerShared<T, N> {
    fn index_mut(&mut self, _: u32) -> &mut T {
        outside_kernel("peer shared index")
    }
}
