//! Named barriers of a CTA: `bar{.cta}` / `barrier{.cta}` `.sync`, `.arrive`, `.red`
//! (PTX ISA §9.7.13.1).
//!
//! Each CTA has sixteen barriers. A phase completes when its thread count (or, without a
//! count, every non-exited thread of the CTA) has arrived; the waiting threads restart and the
//! barrier is reinitialised at once. `.red` delivers the reduction of the arrivals' predicates
//! to every waiting thread. Checked here: ids 0..15, counts that are positive multiples of 32
//! and agree within a phase, no count below the arrivals, `.red` not mixed with `.sync` /
//! `.arrive` (nor `.red` of another operation), and no thread arriving twice in a phase.
//!
//! One phase may gather threads at different instructions with the same id and count: "different
//! warps may execute different forms of the barrier instruction using the same barrier name and
//! thread count" (§9.7.13.1), and nvcc tail-duplicates one `__syncthreads()` into both arms of a
//! warp-uniform branch, so that each warp executes one of two `bar.sync 0` (convergently) and all
//! meet at one barrier instance. `.aligned` asks each warp to execute its barrier convergently,
//! which the machine checks (a warp split between instructions is divergent).

use super::violation::{At, Violation};
use crate::decode::BarAction;
use crate::race::{Clock, Race};
use crate::report::FindingKind;
use crate::state::lanes;

pub(crate) const SPEC: &str = "§9.7.13.1";

/// The state of one named barrier in its current phase.
#[derive(Clone, Debug, Default)]
pub(crate) struct NamedBarrier {
    pub phase: u64,
    pub arrived: u32,
    /// The thread count of this phase; `None` = all non-exited threads.
    pub count: Option<Option<u32>>,
    /// The first arrival's action and instruction.
    pub first: Option<(BarAction, u32, u32, u32)>,
    /// Warp index (in the cluster) and lanes blocked in this phase.
    pub waiters: Vec<(u32, u32)>,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
    pub vc: Clock,
    /// Threads (by warp-relative id within the CTA) that arrived in this phase.
    pub arrivals: Vec<u64>,
    /// `.red` waiters: warp, lanes, destination register.
    pub reds: Vec<(u32, u32, u32)>,
    pub completed: u64,
}

impl NamedBarrier {
    pub(crate) fn describe(&self, id: u32, expected: u32) -> String {
        let count = match self.count {
            Some(Some(c)) => format!("{c}"),
            _ => format!("{expected} (all non-exited threads)"),
        };
        let kind = self
            .first
            .map(|(a, ..)| format!(", {}", a.name()))
            .unwrap_or_default();
        format!(
            "named barrier {id}: phase {}, {} of {count} threads arrived{kind}",
            self.phase, self.arrived
        )
    }
}

/// The arrival of lanes of one warp at a named barrier, operands read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arrival {
    pub at: At,
    /// The warp's index within its CTA: the CTA numbers its threads `index * 32 + lane`.
    pub index: u32,
    pub action: BarAction,
    /// The thread count operand; `None`: all non-exited threads of the CTA.
    pub count: Option<u32>,
    /// The arriving lanes' predicates folded for `.red`: count of true, and, or.
    pub pred: (u32, bool, bool),
    /// Where a waiting lane of `.red` receives the reduction (a register slot), if anywhere.
    pub red_dest: Option<u32>,
}

/// A completed phase: the lanes to restart and the `.red` result for each destination.
#[derive(Debug)]
pub(crate) struct Completed {
    /// (warp, lanes) blocked in the phase; their clocks have acquired the phase's releases.
    pub waiters: Vec<(u32, u32)>,
    /// (warp, lanes, destination) of `.red` waiters, and the value each receives.
    pub reds: Vec<(u32, u32, u32)>,
    pub value: u64,
}

/// Checks a barrier id and thread count of the CTA's `threads` threads.
pub(crate) fn check_operands(
    at: At,
    id: u32,
    count: Option<u32>,
    threads: u32,
) -> Result<(), Violation> {
    if id > 15 {
        return Err(Violation::new(
            FindingKind::BarrierId,
            SPEC,
            format!("barrier id {id} is outside 0..15"),
        )
        .site(at, "names the barrier")
        .note("each CTA has sixteen barriers numbered 0..15"));
    }
    if let Some(c) = count
        && (c == 0 || c % 32 != 0 || c > threads.div_ceil(32) * 32)
    {
        let why = if c == 0 || c % 32 != 0 {
            "is not a positive multiple of the warp size (32)".to_string()
        } else {
            format!("exceeds the {threads} threads of the CTA")
        };
        return Err(Violation::new(
            FindingKind::BarrierThreadCount,
            SPEC,
            format!("thread count {c} of barrier {id} {why}"),
        )
        .site(at, "arrives with this count"));
    }
    Ok(())
}

impl NamedBarrier {
    /// Arrives `a` at this barrier, number `id` of a CTA with `live` non-exited threads;
    /// each arriving thread releases its clock into the phase. Returns whether the lanes
    /// wait (every action but `.arrive`); they are then among the phase's waiters.
    pub(crate) fn arrive(
        &mut self,
        id: u32,
        a: &Arrival,
        live: u32,
        race: &mut Race,
    ) -> Result<bool, Violation> {
        let (at, action, count_v, pc) = (a.at, a.action, a.count, a.at.pc);
        let state = self.describe(id, live);
        if let Some((first_action, first_pc, fw, fl)) = self.first {
            let first_at = At {
                warp: fw,
                lanes: 1 << fl,
                pc: first_pc,
            };
            if self.count.is_some_and(|c| c != count_v) {
                return Err(Violation::new(
                    FindingKind::BarrierThreadCount,
                    SPEC,
                    format!("barrier {id} is used with different thread counts in one phase"),
                )
                .site(
                    at,
                    format!(
                        "arrives with count {}",
                        count_v.map_or("all".to_string(), |c| c.to_string())
                    ),
                )
                .site(first_at, "arrived first in this phase")
                .state(state));
            }
            if first_action.is_red() != action.is_red()
                || (action.is_red() && first_action != action)
            {
                return Err(Violation::new(FindingKind::BarrierRedMixed, SPEC, format!("bar.{} mixed with bar.{} on active barrier {id}", action.name(), first_action.name()))
                    .site(at, format!("executes bar.{}", action.name()))
                    .site(first_at, format!("executed bar.{} in the same phase", first_action.name()))
                    .state(state)
                    .note("\"barrier.red should not be intermixed with barrier.sync or barrier.arrive using the same active barrier\""));
            }
        }
        // Per-thread double arrival.
        let base = (a.index * 32) as usize;
        if let Some(lane) = lanes(at.lanes).find(|&l| {
            self.arrivals
                .get((base + l) / 64)
                .is_some_and(|b| b >> ((base + l) % 64) & 1 == 1)
        }) {
            return Err(Violation::new(FindingKind::BarrierArriveTwice, SPEC, format!("a thread arrives twice at barrier {id} before the barrier completes"))
                .site(At { lanes: 1 << lane, ..at }, "arrives again")
                .state(state)
                .note("\"care must be taken to keep a warp from executing more barrier instructions than intended (barrier.arrive followed by any other barrier instruction to the same barrier) prior to the reset of the barrier\""));
        }
        let n = at.lanes.count_ones();
        let expected = count_v.unwrap_or(live);
        if self.arrived + n > expected && count_v.is_some() {
            return Err(Violation::new(FindingKind::BarrierThreadCount, SPEC, format!("{} threads arrive at barrier {id} whose count is {expected}", self.arrived + n))
                .site(at, "arrives beyond the count")
                .state(state)
                .note("more threads participate than the thread count: the barrier completes before all of them arrive"));
        }
        // Arrive: release each thread's clock into the barrier, fold the reduction operands.
        for lane in lanes(at.lanes) {
            race.release(at.warp * 32 + lane as u32, &mut self.vc);
        }
        if self.arrived == 0 {
            self.first = Some((action, pc, at.warp, at.lanes.trailing_zeros()));
            self.count = Some(count_v);
            self.popc = 0;
            self.all = true;
            self.any = false;
        }
        let (popc, all, any) = a.pred;
        self.arrived += n;
        self.popc += popc;
        self.all &= all;
        self.any |= any;
        for lane in lanes(at.lanes) {
            let i = base + lane;
            if self.arrivals.len() <= i / 64 {
                self.arrivals.resize(i / 64 + 1, 0);
            }
            self.arrivals[i / 64] |= 1 << (i % 64);
        }
        let blocks = action != BarAction::Arrive;
        if blocks {
            self.waiters.push((at.warp, at.lanes));
            if let Some(d) = a.red_dest {
                self.reds.push((at.warp, at.lanes, d));
            }
        }
        Ok(blocks)
    }

    /// Completes the phase if enough of the CTA's `live` threads arrived: the barrier is
    /// reinitialised at once and its waiters acquire the phase's releases.
    pub(crate) fn complete(&mut self, live: u32, race: &mut Race) -> Option<Completed> {
        if self.arrived == 0 {
            return None;
        }
        let expected = match self.count {
            Some(Some(c)) => c,
            _ => live,
        };
        if self.arrived < expected {
            return None;
        }
        let waiters = std::mem::take(&mut self.waiters);
        let vc = std::mem::take(&mut self.vc);
        // Reductions reach every waiting thread.
        let value = match self.first.map(|f| f.0) {
            Some(BarAction::RedPopc) => self.popc as u64,
            Some(BarAction::RedAnd) => self.all as u64,
            _ => self.any as u64,
        };
        let reds = std::mem::take(&mut self.reds);
        self.phase += 1;
        self.completed += 1;
        self.arrived = 0;
        self.first = None;
        self.count = None;
        self.arrivals.iter_mut().for_each(|b| *b = 0);
        for &(w, mask) in &waiters {
            for lane in lanes(mask) {
                race.acquire(w * 32 + lane as u32, &vc);
            }
        }
        Some(Completed {
            waiters,
            reds,
            value,
        })
    }
}
