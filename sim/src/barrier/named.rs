//! Named barriers of a CTA: `bar{.cta}` / `barrier{.cta}` `.sync`, `.arrive`, `.red`
//! (PTX ISA §9.7.13.1).
//!
//! Each CTA has sixteen barriers. A phase completes when its thread count (or, without a
//! count, every non-exited thread of the CTA) has arrived; the waiting threads restart and the
//! barrier is reinitialised at once. `.red` delivers the reduction of the arrivals' predicates
//! to every waiting thread. Checked here: ids 0..15, counts that are positive multiples of 32
//! and agree within a phase, no count below the arrivals, `.red` not mixed with `.sync` /
//! `.arrive` (nor `.red` of another operation), and that the warps executing one barrier
//! instruction for the k-th time meet in one instance of the barrier.
//!
//! A warp may arrive twice in one phase (`bar.arrive` then `bar.sync` on the same barrier): the
//! hardware counts both, and FlashAttention-3 relies on it (its first warp group arrives on its
//! own scheduler barrier so that its first `bar.sync` passes). "Care must be taken to keep a warp
//! from executing more barrier instructions than intended ... prior to the reset of the
//! barrier" (§9.7.13.1): when the extra arrival is not intended, it completes a phase early, and
//! the warps that were meant to meet there are split between two phases — the k-th execution of
//! one `bar.arrive` by warp A in phase p, by warp B in phase p + 1. That split is the finding:
//! the warps of one barrier instruction and iteration are the instance it stands for
//! (FlashInfer's epilogue arrives and then syncs on one barrier with all its warps; a fast warp's
//! `bar.sync` completes the phase before a slow warp has arrived).
//!
//! One phase may gather threads at different instructions with the same id and count: "different
//! warps may execute different forms of the barrier instruction using the same barrier name and
//! thread count" (§9.7.13.1), and nvcc tail-duplicates one `__syncthreads()` into both arms of a
//! warp-uniform branch, so that each warp executes one of two `bar.sync 0` (convergently) and all
//! meet at one barrier instance. `.aligned` asks each warp to execute its barrier convergently,
//! which the machine checks (a warp split between instructions is divergent).

use super::violation::{At, Violation};
use crate::decode::BarAction;
use crate::race::{Race, Releases};
use crate::report::FindingKind;
use rustc_hash::FxHashMap;

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
    pub vc: Releases,
    /// Threads (by warp-relative id within the CTA) that arrived in this phase.
    pub arrivals: Vec<u64>,
    /// `.red` waiters: warp, lanes, destination register.
    pub reds: Vec<(u32, u32, u32)>,
    pub completed: u64,
    /// How many times each warp (cluster index) executed each barrier instruction (pc) on it.
    pub executions: FxHashMap<(u32, u32), u32>,
    /// The phase the k-th execution of instruction pc joined, and the first warp to join it:
    /// (pc, k) -> (phase, warp). Entries of phases two behind are dropped.
    pub instances: FxHashMap<(u32, u32), (u64, u32)>,
    /// A warp that arrived a second time in the current phase (warp, pc of the second).
    pub doubled: Option<(u32, u32)>,
    /// The last phase completed with a doubled warp, and that warp and instruction.
    pub last_doubled: Option<(u64, u32, u32)>,
}

impl NamedBarrier {
    pub(crate) fn describe(&self, id: u32, expected: u32) -> String {
        if self.arrived == 0 {
            return format!(
                "named barrier {id}: phase {}, no thread arrived yet",
                self.phase
            );
        }
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
        if let Some((first_action, first_pc, fw, fl)) = self.first {
            let first_at = At {
                warp: fw,
                lanes: 1 << fl,
                pc: first_pc,
            };
            // No count means every non-exited thread of the CTA (§9.7.13.1): the same as
            // a count of that many.
            let effective = |c: Option<u32>| c.unwrap_or(live);
            if self
                .count
                .is_some_and(|c| effective(c) != effective(count_v))
            {
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
                .state(self.describe(id, live)));
            }
            if first_action.is_red() != action.is_red()
                || (action.is_red() && first_action != action)
            {
                return Err(Violation::new(FindingKind::BarrierRedMixed, SPEC, format!("bar.{} mixed with bar.{} on active barrier {id}", action.name(), first_action.name()))
                    .site(at, format!("executes bar.{}", action.name()))
                    .site(first_at, format!("executed bar.{} in the same phase", first_action.name()))
                    .state(self.describe(id, live))
                    .note("\"barrier.red should not be intermixed with barrier.sync or barrier.arrive using the same active barrier\""));
            }
        }
        // The k-th execution of this instruction by this warp joins this phase; every warp's
        // k-th must join the same one.
        let k = {
            let e = self.executions.entry((at.warp, pc)).or_insert(0);
            *e += 1;
            *e - 1
        };
        match self.instances.get(&(pc, k)) {
            Some(&(phase, other)) if phase != self.phase => {
                let nth = ordinal(k + 1);
                let mut v = Violation::new(
                    FindingKind::BarrierInstanceSplit,
                    SPEC,
                    format!(
                        "warps executing this barrier {id} instruction for the {nth} time meet in different phases of the barrier: warp {other} in phase {phase}, this warp in phase {}",
                        self.phase
                    ),
                )
                .site(at, format!("arrives in phase {}", self.phase))
                .site(
                    At {
                        warp: other,
                        lanes: u32::MAX,
                        pc,
                    },
                    format!("arrived here in phase {phase}"),
                )
                .state(self.describe(id, live));
                let doubled = self
                    .last_doubled
                    .filter(|&(p, ..)| p == phase.min(self.phase))
                    .or_else(|| self.doubled.map(|(w, dpc)| (self.phase, w, dpc)));
                let Some((p, w, dpc)) = doubled else {
                    // No warp arrived twice: the phase filled up with other arrivals (more
                    // threads than the count here, or arrivals at another instruction).
                    return Err(v.note("no warp arrived twice: the phase was completed by the arrivals before this warp's (more threads meet here than the barrier's thread count, or other instructions of the same barrier arrived in the phase), and this warp waits in the next one"));
                };
                v = v.site(
                    At {
                        warp: w,
                        lanes: u32::MAX,
                        pc: dpc,
                    },
                    format!("arrived a second time in phase {p}, which counted it twice"),
                );
                return Err(v.note("\"care must be taken to keep a warp from executing more barrier instructions than intended (barrier.arrive followed by any other barrier instruction to the same barrier) prior to the reset of the barrier\": a warp's extra arrival completed a phase before the warps it was meant to wait for arrived"));
            }
            Some(_) => {}
            None => {
                self.instances.insert((pc, k), (self.phase, at.warp));
            }
        }
        // A thread arriving a second time in this phase: counted again (see the module docs).
        // A warp's 32 threads lie in one word of the bitmap (`base` is a multiple of 32).
        let base = (a.index * 32) as usize;
        let (word, shift) = (base / 64, base % 64);
        if self.doubled.is_none()
            && self
                .arrivals
                .get(word)
                .is_some_and(|b| (b >> shift) as u32 & at.lanes != 0)
        {
            self.doubled = Some((at.warp, pc));
        }
        let n = at.lanes.count_ones();
        let expected = count_v.unwrap_or(live);
        if self.arrived + n > expected && count_v.is_some() {
            return Err(Violation::new(FindingKind::BarrierThreadCount, SPEC, format!("{} threads arrive at barrier {id} whose count is {expected}", self.arrived + n))
                .site(at, "arrives beyond the count")
                .state(self.describe(id, live))
                .note("more threads participate than the thread count: the barrier completes before all of them arrive"));
        }
        // Arrive: release each thread's clock into the barrier, fold the reduction operands.
        race.release_lanes(at.warp, at.lanes, &mut self.vc);
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
        if self.arrivals.len() <= word {
            self.arrivals.resize(word + 1, 0);
        }
        self.arrivals[word] |= (at.lanes as u64) << shift;
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
        let vc = self.vc.take();
        // Reductions reach every waiting thread.
        let value = match self.first.map(|f| f.0) {
            Some(BarAction::RedPopc) => self.popc as u64,
            Some(BarAction::RedAnd) => self.all as u64,
            _ => self.any as u64,
        };
        let reds = std::mem::take(&mut self.reds);
        if let Some((w, pc)) = self.doubled.take() {
            self.last_doubled = Some((self.phase, w, pc));
        }
        self.phase += 1;
        let phase = self.phase;
        self.instances.retain(|_, (p, _)| *p + 2 >= phase);
        self.completed += 1;
        self.arrived = 0;
        self.first = None;
        self.count = None;
        self.arrivals.iter_mut().for_each(|b| *b = 0);
        // Every waiter acquires the same clock, shared (`Race::acquire_barrier`).
        for &(w, mask) in &waiters {
            race.acquire_barrier_lanes(w, mask, &vc);
        }
        Some(Completed {
            waiters,
            reds,
            value,
        })
    }
}

/// `1st`, `2nd`, `3rd`, `4th`, ... `11th`, `21st`.
fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
