//! The cluster barrier: `barrier.cluster.arrive` / `barrier.cluster.wait` (PTX ISA §9.7.13.3).
//!
//! The barrier completes when every non-exited thread of the cluster has arrived; a wait
//! returns once the phase its thread arrived in has completed. Each thread arrives once per
//! phase and waits only after arriving: both are checked. `.release` arrivals (the default)
//! and `.acquire` waits order memory; a `.relaxed` arrive releases only after a fence.

use crate::sim::machine::{Block, Machine, Res, lanes};
use crate::sim::race::Clock;
use crate::sim::report::{FindingKind, Report};

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

impl Machine<'_> {
    pub(crate) fn cluster_live(&self) -> u32 {
        self.ctas.iter().map(|c| c.live).sum()
    }

    pub(crate) fn cluster_arrive(&mut self, w: usize, eff: u32, pc: u32, relaxed: bool) -> Res<()> {
        self.warps[w].effects += 1;
        let again = self.warps[w].cluster_arrived & eff;
        if again != 0 {
            let live = self.cluster_live();
            return Err(Report::new(
                FindingKind::ClusterArriveTwice,
                SPEC,
                "barrier.cluster.arrive twice without a barrier.cluster.wait in between",
            )
            .site(self.site(w, again, pc, "arrives again"))
            .state(self.cluster.describe(live))
            .note(
                "\"each thread must arrive at the barrier only once before the barrier completes\"",
            )
            .into());
        }
        let mut vc = std::mem::take(&mut self.cluster.vc);
        for lane in lanes(eff) {
            let t = w as u32 * 32 + lane as u32;
            if !relaxed || self.race.fenced[t as usize] {
                self.race.release(t, &mut vc);
            }
            self.warps[w].cluster_phase[lane] = self.cluster.phase;
        }
        self.cluster.vc = vc;
        self.warps[w].cluster_arrived |= eff;
        self.cluster.arrived += eff.count_ones();
        self.trace_barrier(w, self.warps[w].cta, "barrier.cluster.arrive", false);
        self.check_cluster_completion();
        Ok(())
    }

    /// Returns the lanes that blocked.
    pub(crate) fn cluster_wait(&mut self, w: usize, eff: u32, pc: u32) -> Res<u32> {
        let not_arrived = eff & !self.warps[w].cluster_arrived;
        if not_arrived != 0 {
            let live = self.cluster_live();
            return Err(Report::new(FindingKind::ClusterWaitWithoutArrive, SPEC, "barrier.cluster.wait by a thread that has not arrived at the cluster barrier")
                .site(self.site(w, not_arrived, pc, "waits without arriving"))
                .state(self.cluster.describe(live))
                .note("\"barrier.cluster.wait causes the executing thread to wait for all non-exited threads of the cluster to perform barrier.cluster.arrive\": a thread must arrive before it waits")
                .into());
        }
        let mut blocked = 0;
        for lane in lanes(eff) {
            if self.warps[w].cluster_phase[lane] < self.cluster.phase {
                let t = w as u32 * 32 + lane as u32;
                let vc = std::mem::take(&mut self.cluster.done_vc);
                self.race.acquire(t, &vc);
                self.cluster.done_vc = vc;
                self.warps[w].cluster_arrived &= !(1 << lane);
            } else {
                blocked |= 1 << lane;
            }
        }
        self.trace_barrier(w, self.warps[w].cta, "barrier.cluster.wait", false);
        if blocked != 0 {
            self.warps[w].block(blocked, Block::Cluster, pc, pc + 1);
            self.cluster.waiters.push((w as u32, blocked));
        }
        Ok(blocked)
    }

    pub(crate) fn check_cluster_completion(&mut self) {
        let live = self.cluster_live();
        if self.cluster.arrived == 0 || self.cluster.arrived < live {
            return;
        }
        self.cluster.phase += 1;
        self.cluster.arrived = 0;
        self.cluster.done_vc = std::mem::take(&mut self.cluster.vc);
        self.stats.cluster_phases += 1;
        let waiters = std::mem::take(&mut self.cluster.waiters);
        let at = waiters
            .iter()
            .map(|&(w, _)| self.warps[w as usize].clock)
            .max()
            .unwrap_or(0);
        for (w, mask) in waiters {
            self.warps[w as usize].cluster_arrived &= !mask;
            self.wake_lanes(w as usize, mask, at);
            for lane in lanes(mask) {
                let vc = std::mem::take(&mut self.cluster.done_vc);
                self.race.acquire(w * 32 + lane as u32, &vc);
                self.cluster.done_vc = vc;
            }
        }
        self.trace_phase(u32::MAX, "barrier.cluster", at);
    }
}
