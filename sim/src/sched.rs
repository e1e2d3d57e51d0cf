//! Scheduling: which warp runs next, for how long, and when an asynchronous copy completes.
//!
//! Every choice comes from a seeded generator, so a schedule (policy + seed) replays exactly.
//! Completing an async operation is a scheduling choice like running a warp: a kernel that is
//! correct only when copies are fast (or slow) fails under some schedule.
//!
//! - [`Policy::RoundRobin`]: warps in turn, each until it blocks or its quantum ends;
//!   async operations complete as late as possible (when no warp can run).
//! - [`Policy::Random`]: a uniformly random ready warp or pending operation, random quanta.
//! - [`Policy::Pct`]: probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010):
//!   random priorities, the highest ready one runs; at `depth − 1` random points the running
//!   entity drops below all others. A bug of depth d is found with probability ≥ 1/(n·k^(d-1)).

use crate::rng::Rng;
use std::fmt;

/// How a run orders warps and async completions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Policy {
    /// Warps in turn, each until it blocks or its quantum ends; async operations complete as
    /// late as possible. Deterministic: the seed is unused.
    #[default]
    RoundRobin,
    /// A random ready warp for a random quantum (1 to 256 instructions), or a random pending
    /// async operation (a quarter of the choices while warps are ready).
    Random,
    /// Priority-based (PCT): random priorities, lowered at `depth − 1` random change points.
    Pct {
        /// The bug depth the schedule aims at: how many ordering constraints a failure needs.
        depth: u32,
    },
}

impl Policy {
    /// The name [`Policy::parse`] reads (without a PCT depth).
    pub fn name(self) -> &'static str {
        match self {
            Policy::RoundRobin => "round-robin",
            Policy::Random => "random",
            Policy::Pct { .. } => "pct",
        }
    }
    /// Parses `round-robin`, `random`, `pct` or `pct:DEPTH`.
    pub fn parse(text: &str) -> Option<Policy> {
        match text {
            "round-robin" | "rr" => Some(Policy::RoundRobin),
            "random" => Some(Policy::Random),
            "pct" => Some(Policy::Pct { depth: 3 }),
            other => other
                .strip_prefix("pct:")
                .and_then(|d| d.parse().ok())
                .map(|depth| Policy::Pct { depth }),
        }
    }
}

/// A policy and the seed of its choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Schedule {
    /// How warps and async completions are ordered.
    pub policy: Policy,
    /// The seed of the policy's random choices.
    pub seed: u64,
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.policy {
            Policy::Pct { depth } => write!(f, "pct:{depth}, seed {}", self.seed),
            p => write!(f, "{}, seed {}", p.name(), self.seed),
        }
    }
}

impl Schedule {
    /// The schedule of cluster `c` of a launch: each cluster has its own scheduler, so that
    /// clusters can run in parallel with the choices of a run in order. Cluster 0 uses the
    /// launch's seed itself (a launch of one cluster schedules as before clusters had their
    /// own); the others a seed mixed from it and `c` (SplitMix64's finaliser), so that
    /// neighbouring clusters draw unrelated sequences.
    pub(crate) fn for_cluster(self, c: u32) -> Schedule {
        if c == 0 {
            return self;
        }
        let mut z = self.seed ^ (c as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Schedule {
            seed: z ^ (z >> 31),
            ..self
        }
    }
}

/// What to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Run this warp (index into the cluster's warps) for at most this many instructions.
    Warp(usize, u32),
    /// Complete this pending async operation (index into the completable list).
    Async(usize),
}

/// Quantum of round-robin: long enough to amortise switching, short enough to interleave.
const RR_QUANTUM: u32 = 4096;

pub(crate) struct Scheduler {
    pub schedule: Schedule,
    rng: Rng,
    rr_next: usize,
    /// PCT: priority per warp and per async operation id (higher runs first).
    warp_prio: Vec<u64>,
    /// By operation id (ids count up from 0); 0 for one not seen yet. A kernel can have
    /// thousands of `cp.async` in flight, each looked at every decision.
    async_prio: Vec<u64>,
    change_points: Vec<u64>,
    next_low: u64,
    pub decisions: u64,
}

impl Scheduler {
    /// `expected` estimates how many decisions a run takes (for PCT's change points).
    pub(crate) fn new(schedule: Schedule, expected: u64) -> Scheduler {
        // Salted, so that schedule seed n and generated kernel n draw different sequences.
        let mut rng = Rng::new(schedule.seed ^ 0x005e_ed0f_9a5e_6a7e);
        let change_points = match schedule.policy {
            Policy::Pct { depth } => {
                let mut v: Vec<u64> = (0..depth.saturating_sub(1))
                    .map(|_| rng.below(expected.max(1)))
                    .collect();
                v.sort_unstable();
                v
            }
            _ => Vec::new(),
        };
        Scheduler {
            schedule,
            rng,
            rr_next: 0,
            warp_prio: Vec::new(),
            async_prio: Vec::new(),
            change_points,
            next_low: 0,
            decisions: 0,
        }
    }

    /// Called when a new cluster starts with `warps` warps.
    pub(crate) fn start_cluster(&mut self, warps: usize) {
        self.rr_next = 0;
        if let Policy::Pct { depth } = self.schedule.policy {
            // Distinct random priorities above the `depth` low ones used at change points.
            let mut prios: Vec<u64> = (0..warps as u64).map(|i| depth as u64 + 1 + i).collect();
            for i in (1..prios.len()).rev() {
                let j = self.rng.below(i as u64 + 1) as usize;
                prios.swap(i, j);
            }
            self.warp_prio = prios;
            self.async_prio.clear();
            self.next_low = depth as u64;
        }
    }

    fn async_priority(&mut self, id: u64) -> u64 {
        let i = id as usize;
        if let Some(&p) = self.async_prio.get(i)
            && p != 0
        {
            return p;
        }
        // New operations get a random priority among the warps' (at least 1: 0 is unseen).
        let p = self.rng.below(self.warp_prio.len() as u64 + 1) + self.next_low + 1;
        if self.async_prio.len() <= i {
            self.async_prio.resize(i + 1, 0);
        }
        self.async_prio[i] = p;
        p
    }

    /// How many of the completable async operations [`Scheduler::next`] looks at, when warps
    /// are ready (`any_ready`) or not: round-robin completes the oldest one, and only when no
    /// warp is ready, so the run loop need not list more (`usize::MAX`: all it offers).
    pub(crate) fn asyncs_looked_at(&self, any_ready: bool) -> usize {
        match self.schedule.policy {
            Policy::RoundRobin if any_ready => 0,
            Policy::RoundRobin => 1,
            _ => usize::MAX,
        }
    }

    /// Chooses among the ready warps and the completable async operations (by id).
    pub(crate) fn next(&mut self, ready: &[usize], completable: &[u64]) -> Option<Action> {
        self.decisions += 1;
        if ready.is_empty() && completable.is_empty() {
            return None;
        }
        Some(match self.schedule.policy {
            Policy::RoundRobin => {
                if let Some(&w) = ready.iter().find(|&&w| w >= self.rr_next).or(ready.first()) {
                    self.rr_next = w + 1;
                    Action::Warp(w, RR_QUANTUM)
                } else {
                    Action::Async(0)
                }
            }
            Policy::Random => {
                let total = ready.len() as u64 + completable.len() as u64;
                // Async completions get a quarter of the choices when warps are ready.
                let pick_async =
                    ready.is_empty() || (!completable.is_empty() && self.rng.below(4) == 0);
                if pick_async {
                    Action::Async(self.rng.below(completable.len() as u64) as usize)
                } else {
                    let _ = total;
                    let w = ready[self.rng.below(ready.len() as u64) as usize];
                    Action::Warp(w, 1 + self.rng.below(256) as u32)
                }
            }
            Policy::Pct { .. } => {
                let mut best: Option<(u64, Action)> = None;
                for &w in ready {
                    let p = self.warp_prio.get(w).copied().unwrap_or(0);
                    if best.is_none_or(|(b, _)| p > b) {
                        best = Some((p, Action::Warp(w, 64)));
                    }
                }
                for (i, &id) in completable.iter().enumerate() {
                    let p = self.async_priority(id);
                    if best.is_none_or(|(b, _)| p > b) {
                        best = Some((p, Action::Async(i)));
                    }
                }
                let action = best.expect("something is ready").1;
                if self
                    .change_points
                    .first()
                    .is_some_and(|&c| self.decisions >= c)
                {
                    self.change_points.remove(0);
                    let low = self.next_low;
                    self.next_low = self.next_low.saturating_sub(1);
                    match action {
                        Action::Warp(w, _) => self.warp_prio[w] = low,
                        Action::Async(i) => {
                            let id = completable[i];
                            if let Some(e) = self.async_prio.get_mut(id as usize) {
                                *e = low;
                            }
                        }
                    }
                }
                action
            }
        })
    }

    /// Forgets a completed async operation.
    pub(crate) fn retire_async(&mut self, id: u64) {
        if let Some(e) = self.async_prio.get_mut(id as usize) {
            *e = 0;
        }
    }
}
