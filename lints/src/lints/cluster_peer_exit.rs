//! ### What it does
//! Finds a CTA of a cluster that exits while another CTA of the cluster can still access its
//! shared memory: a remote store or load (`st.shared::cluster`, `ld.shared::cluster` at an
//! address `mapa` made), a remote arrive on one of its mbarriers, or a multicast copy into it.
//! Only a witness reports it: a run of the kernel in which the peer's access comes after the
//! CTA exited.
//!
//! ### Why is this bad
//! PTX ISA §9.7.13.3 and the CUDA programming guide on distributed shared memory: a CTA's
//! shared memory exists while the CTA runs; accessing the shared memory of a CTA of the
//! cluster that has exited is undefined behaviour. On a GPU the access faults or lands in the
//! memory of the next CTA the SM runs.
//!
//! ### What its witness shows
//! A run in which a CTA reads, writes or arrives on the shared memory of a peer CTA of its
//! cluster after that peer exited.
//!
//! ### What it cannot decide
//! Clusters the PTX does not declare are chosen; and inputs the runs do not choose (a trip count
//! or flag from a parameter, data in global memory: the runs make every integer parameter 1, 128,
//! 2048 or 65536 and memory all 0 or all 0xff), schedules they do not try (round-robin, PCT of
//! depth 2 and 3, random; up to 36 runs), and launches the PTX does not declare (the block is
//! guessed when there is no `.reqntid`/`.maxntid`, and a guess is no proof for a kernel that
//! reads `%tid.y`/`%tid.z`).
//!
//! ### Example
//! ```ptx
//! // CTA 1 writes into CTA 0, which does not wait for it
//! @%p_rank1 mapa.shared::cluster.u32 %r2, %r1, 0;
//! @%p_rank1 st.shared::cluster.f32 [%r2], %f1;
//! ret;
//! ```
//!
//! ### Use instead
//! End the kernel with a cluster barrier (`barrier.cluster.arrive` and `barrier.cluster.wait`)
//! after the last remote access, so that no CTA exits before every peer is done with it.

use super::LintInfo;
use crate::diagnostic::Level;

/// `cluster_peer_exit`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it. Only witnesses report it (no static candidate).
pub const LINT: LintInfo = LintInfo {
    name: "cluster_peer_exit",
    default: Level::Deny,
    summary: "a CTA of a cluster exits while a peer CTA still accesses its shared memory",
};
