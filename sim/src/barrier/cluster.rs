//! The cluster barrier: `barrier.cluster.arrive` / `barrier.cluster.wait` (PTX ISA §9.7.13.3).
//!
//! The barrier completes when every non-exited thread of the cluster has arrived; a wait
//! returns once the phase its thread arrived in has completed. Each thread arrives once per
//! phase and waits only after arriving: both are checked. `.release` arrivals (the default)
//! and `.acquire` waits order memory; a `.relaxed` arrive releases only after a fence.

use super::violation::{At, Violation};
use crate::race::{Clock, Race};
use crate::report::FindingKind;
use crate::state::lanes;

pub(crate) const SPEC: &str = "§9.7.13.3";

#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterBarrier {
    pub phase: u64,
    pub arrived: u32,
    pub vc: Clock,
    pub done_vc: Clock,
    pub waiters: Vec<(u32, u32)>,
}

impl ClusterBarrier {
    pub(crate) fn describe(&self, live: u32) -> String {
        format!(
            "cluster barrier: phase {}, {} of {live} non-exited threads arrived",
            self.phase, self.arrived
        )
    }
}

/// A warp's own part of the cluster barrier's state: which lanes arrived and have not waited
/// yet, and in which phase each arrived.
pub(crate) struct Lanes<'a> {
    pub arrived: &'a mut u32,
    pub phase: &'a mut [u64; 32],
}

impl ClusterBarrier {
    /// Arrives lanes `at` of a warp whose arrival state is `own`, in a cluster of `live`
    /// non-exited threads. Arrivals release their clocks, a `.relaxed` one only after a fence.
    pub(crate) fn arrive(
        &mut self,
        at: At,
        own: Lanes<'_>,
        relaxed: bool,
        live: u32,
        race: &mut Race,
    ) -> Result<(), Violation> {
        let again = *own.arrived & at.lanes;
        if again != 0 {
            return Err(Violation::new(
                FindingKind::ClusterArriveTwice,
                SPEC,
                "barrier.cluster.arrive twice without a barrier.cluster.wait in between",
            )
            .site(At { lanes: again, ..at }, "arrives again")
            .state(self.describe(live))
            .note(
                "\"each thread must arrive at the barrier only once before the barrier completes\"",
            ));
        }
        for lane in lanes(at.lanes) {
            let t = at.warp * 32 + lane as u32;
            if !relaxed || race.fenced[t as usize] {
                race.release(t, &mut self.vc);
            }
            own.phase[lane] = self.phase;
        }
        *own.arrived |= at.lanes;
        self.arrived += at.lanes.count_ones();
        Ok(())
    }

    /// Waits lanes `at`: those whose phase completed acquire it and go on; the others become
    /// waiters. Returns the lanes that wait.
    pub(crate) fn wait(
        &mut self,
        at: At,
        own: Lanes<'_>,
        live: u32,
        race: &mut Race,
    ) -> Result<u32, Violation> {
        let not_arrived = at.lanes & !*own.arrived;
        if not_arrived != 0 {
            return Err(Violation::new(FindingKind::ClusterWaitWithoutArrive, SPEC, "barrier.cluster.wait by a thread that has not arrived at the cluster barrier")
                .site(At { lanes: not_arrived, ..at }, "waits without arriving")
                .state(self.describe(live))
                .note("\"barrier.cluster.wait causes the executing thread to wait for all non-exited threads of the cluster to perform barrier.cluster.arrive\": a thread must arrive before it waits"));
        }
        let mut blocked = 0;
        for lane in lanes(at.lanes) {
            if own.phase[lane] < self.phase {
                race.acquire(at.warp * 32 + lane as u32, &self.done_vc);
                *own.arrived &= !(1 << lane);
            } else {
                blocked |= 1 << lane;
            }
        }
        if blocked != 0 {
            self.waiters.push((at.warp, blocked));
        }
        Ok(blocked)
    }

    /// Completes the phase once all `live` threads of the cluster arrived; returns the
    /// (warp, lanes) that waited, which have acquired the phase.
    pub(crate) fn complete(&mut self, live: u32, race: &mut Race) -> Option<Vec<(u32, u32)>> {
        if self.arrived == 0 || self.arrived < live {
            return None;
        }
        self.phase += 1;
        self.arrived = 0;
        self.done_vc = std::mem::take(&mut self.vc);
        let waiters = std::mem::take(&mut self.waiters);
        for &(w, mask) in &waiters {
            for lane in lanes(mask) {
                race.acquire(w * 32 + lane as u32, &self.done_vc);
            }
        }
        Some(waiters)
    }
}
