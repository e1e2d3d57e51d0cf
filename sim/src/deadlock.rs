//! Reports for runs that cannot go on: every live thread blocked, or the step budget spent.

use super::machine::Machine;
use super::report::{FindingKind, Report};
use super::state::{Block, lanes};

impl Machine<'_> {
    pub(crate) fn describe_block(&self, w: usize, why: Block) -> String {
        match why {
            Block::None => "are ready".into(),
            Block::Named { id } => {
                let bar = &self.ctas[self.warps[w].cta as usize].named[id as usize];
                format!("wait at named barrier {id} (phase {})", bar.phase)
            }
            Block::Cluster => format!(
                "wait at barrier.cluster.wait (phase {})",
                self.cluster.phase
            ),
            Block::Gather => "wait for the rest of their warp at an aligned instruction".into(),
            Block::Parked { cta, offset } => {
                let m = &self.ctas[cta as usize].mbars[&offset];
                format!(
                    "poll {} in a wait loop that cannot succeed: {}",
                    self.mbar_name(cta, offset),
                    m.describe()
                )
            }
            Block::AsyncWait => "wait in wait_group for their asynchronous copies".into(),
            Block::Warpgroup => "wait in wgmma.wait_group for a wgmma.mma_async the rest of their warpgroup has not issued".into(),
        }
    }

    /// Every non-exited thread is blocked and no asynchronous operation can complete.
    pub(crate) fn deadlock_report(&self) -> Report {
        // Lanes gathering at an aligned instruction while the rest of their warp waits elsewhere
        // are the cause, not a symptom.
        for (w, warp) in self.warps.iter().enumerate() {
            let gathering = lanes(warp.blocked)
                .filter(|&l| warp.why[l] == Block::Gather)
                .fold(0u32, |m, l| m | 1 << l);
            if gathering != 0 {
                let pc = warp.wait_pc[gathering.trailing_zeros() as usize];
                let here = lanes(gathering)
                    .filter(|&l| warp.wait_pc[l] == pc)
                    .fold(0u32, |m, l| m | 1 << l);
                let others = warp.live() & !here;
                if let super::report::Stop::Finding(r) =
                    self.divergence_report(w, here, pc, others, None)
                {
                    return *r;
                }
            }
        }
        let mut groups: Vec<(usize, Block, u32, u32)> = Vec::new();
        let mut blocked_threads = 0;
        for (w, warp) in self.warps.iter().enumerate() {
            for lane in lanes(warp.blocked & !warp.exited) {
                blocked_threads += 1;
                let key = (w, warp.why[lane], warp.wait_pc[lane]);
                match groups.iter_mut().find(|g| (g.0, g.1, g.2) == key) {
                    Some(g) => g.3 |= 1 << lane,
                    None => groups.push((key.0, key.1, key.2, 1 << lane)),
                }
            }
        }
        let mut specs: Vec<&str> = Vec::new();
        let mut r = Report::new(
            FindingKind::Deadlock,
            "",
            format!(
                "deadlock: all {blocked_threads} non-exited threads are blocked and no asynchronous operation is pending"
            ),
        );
        for (w, why, pc, mask) in &groups {
            let what = self.describe_block(*w, *why);
            let spec = match why {
                Block::Named { .. } => "§9.7.13.1",
                Block::Cluster => "§9.7.13.3",
                Block::Parked { .. } => "§9.7.13.15.16",
                Block::Warpgroup => "§9.7.15.7.3",
                _ => "§9.7.13.15.5",
            };
            if !specs.contains(&spec) {
                specs.push(spec);
            }
            r = r.site(self.site(*w, *mask, *pc, &what));
        }
        for cta in &self.ctas {
            for (id, bar) in cta.named.iter().enumerate() {
                if bar.arrived > 0 {
                    r = r.state(format!(
                        "cta {:?}: {}",
                        cta.ctaid,
                        bar.describe(id as u32, cta.live)
                    ));
                }
            }
            for (&off, m) in &cta.mbars {
                if m.valid && (!m.parked.is_empty() || m.pending != m.expected || m.tx != 0) {
                    r = r.state(format!(
                        "{}: {}",
                        self.mbar_name(cta.rank, off),
                        m.describe()
                    ));
                    if m.tx > 0 && m.pending == 0 {
                        r = r.note(format!("{} waits for {} bytes of transactions that no pending copy will complete (an expect_tx total larger than its copies)", self.mbar_name(cta.rank, off), m.tx));
                    }
                }
            }
        }
        if self.cluster.arrived > 0 || !self.cluster.waiters.is_empty() {
            r = r.state(self.cluster.describe(self.cluster_live()));
        }
        r.spec = specs.join(", ");
        r.note("no blocked thread can be released by another thread or by an asynchronous copy")
    }

    /// The groups of blocked threads (warp, wait op) and the barrier each waits on.
    pub(crate) fn blocked_groups(&self) -> Vec<crate::event_log::Blocked> {
        use crate::report::Object;
        let mut out: Vec<crate::event_log::Blocked> = Vec::new();
        for (w, warp) in self.warps.iter().enumerate() {
            for lane in lanes(warp.blocked & !warp.exited) {
                let on = match warp.why[lane] {
                    Block::Named { id } => Some(Object::Named {
                        cta: warp.cta,
                        id: id as u32,
                    }),
                    Block::Cluster => Some(Object::Cluster),
                    Block::Parked { cta, offset } => Some(Object::Mbarrier { cta, offset }),
                    _ => None,
                };
                let pc = warp.wait_pc[lane];
                match out
                    .iter_mut()
                    .find(|b| b.warp == w as u32 && b.pc == pc && b.on == on)
                {
                    Some(b) => b.lanes |= 1 << lane,
                    None => out.push(crate::event_log::Blocked {
                        warp: w as u32,
                        lanes: 1 << lane,
                        pc,
                        on,
                    }),
                }
            }
        }
        out
    }

    /// The valid mbarrier objects of the cluster and their states.
    pub(crate) fn mbarrier_states(&self) -> Vec<crate::event_log::MbarrierState> {
        let mut out = Vec::new();
        for cta in &self.ctas {
            for (&offset, m) in cta.mbars.iter().filter(|(_, m)| m.valid) {
                out.push(crate::event_log::MbarrierState {
                    object: crate::report::Object::Mbarrier {
                        cta: cta.rank,
                        offset,
                    },
                    phase: m.phase,
                    pending: m.pending,
                    expected: m.expected,
                    tx: m.tx,
                    unknown_done: m.unknown_done,
                });
            }
        }
        out
    }

    pub(crate) fn step_limit_report(&self) -> Report {
        let mut r = Report::new(
            FindingKind::StepLimit,
            "(simulator limit)",
            format!(
                "the run exceeded its budget of {} thread-instructions (a livelock, or raise Launch::max_steps)",
                self.max_steps
            ),
        );
        for (w, warp) in self.warps.iter().enumerate() {
            let mut pcs: Vec<u32> = lanes(warp.ready).map(|l| warp.pc[l]).collect();
            pcs.sort_unstable();
            pcs.dedup();
            for pc in pcs.into_iter().take(2) {
                let mask = lanes(warp.ready)
                    .filter(|&l| warp.pc[l] == pc)
                    .fold(0u32, |m, l| m | 1 << l);
                r = r.site(self.site(w, mask, pc, "are running here"));
            }
            if r.sites.len() >= 8 {
                break;
            }
        }
        r
    }
}
