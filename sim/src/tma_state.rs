//! Tensor-map state that outlives an instruction: tensor maps modified and not fenced yet,
//! and the `setmaxnreg` of each warpgroup. Data only; `exec::tma` executes the instructions.

use crate::report::Site;
use std::collections::HashMap;

/// Tensor-map state of the cluster in flight.
#[derive(Default)]
pub(crate) struct TmaState {
    /// Tensor maps in global memory that `tensormap.replace` modified through the generic
    /// proxy with no `fence.proxy.tensormap::generic` (or `tensormap.cp_fenceproxy`) on them
    /// since: their address and where they were written. This outlives a cluster: it starts
    /// as the clusters before it left it.
    pub unfenced: Vec<(u64, Site)>,
    /// The cluster's changes to `unfenced`, in order: a cluster run in parallel replays them
    /// onto the list its predecessors left (its own copy started from an older one).
    pub log: Vec<Unfenced>,
    /// Whether the cluster read a tensor map from global memory (and so looked at
    /// `unfenced`): a parallel run that did, beside a predecessor that changed the list, is
    /// not the sequential run.
    pub map_reads: bool,
    /// Per (cluster, CTA, warpgroup): the `setmaxnreg` each of its warps executed, in order.
    pub setmaxnreg: HashMap<(u32, u32, u32), [Vec<SetMaxNReg>; 4]>,
    /// The runs of the box the last tensor copy completed moved (a cache: state of no one).
    pub box_runs: crate::tensor_copy::RunsMemo,
}

/// A change to the list of unfenced tensor maps.
#[derive(Clone, Debug)]
pub(crate) enum Unfenced {
    /// `tensormap.replace` modified the map at this address.
    Modified(u64, Site),
    /// A fence on the map at this address (`None`: on every map).
    Fenced(Option<u64>),
}

impl Unfenced {
    pub(crate) fn apply(&self, list: &mut Vec<(u64, Site)>) {
        match self {
            Unfenced::Modified(a, site) => {
                list.retain(|(m, _)| m != a);
                list.push((*a, site.clone()));
            }
            Unfenced::Fenced(Some(a)) => list.retain(|(m, _)| m + 128 <= *a || a + 128 <= *m),
            Unfenced::Fenced(None) => list.clear(),
        }
    }
}

impl TmaState {
    pub(crate) fn change(&mut self, op: Unfenced) {
        op.apply(&mut self.unfenced);
        self.log.push(op);
    }
}

/// One `setmaxnreg` a warp executed: increase?, count, warp, pc.
pub(crate) type SetMaxNReg = (bool, u32, usize, u32);
