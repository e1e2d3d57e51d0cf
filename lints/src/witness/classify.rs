//! Which lint a rule broken in a witness run belongs to.
//!
//! The simulator names the rule (`FindingKind`); the lints name the mistake a programmer makes.
//! Most map one to one. Three need the run's log:
//!
//! - a missing wait (§9.7.13.15.4) or a read before the data's phase completed, when a thread
//!   of the run had a wait succeed on a phase it had already seen complete, or on the phase
//!   before the first of an object that transactions complete or whose first phase had
//!   already counted arrivals (a parity that names the wrong phase returns at once), is a
//!   parity mismatch: the wait was there, its parity was wrong;
//! - a deadlock of threads waiting on an mbarrier is a transaction mismatch when no arrival is
//!   pending and bytes are, a parity mismatch when the waiting threads skipped a phase that
//!   completed and no thread saw (they wait for the next one, whose arrivals come after their
//!   wait), and else a deadlock of arrivals that never come;
//! - a deadlock of threads at named barriers only is a named-barrier deadlock.

use phasegate_ptx::{Instruction, Opcode};
use phasegate_sim::FindingKind;
use phasegate_sim::probe::{LogEvent, LogKind, Object, ProbeRun};

use crate::lints::{self, LintInfo};

/// The lint of a rule a run broke, at `instruction` (the PTX model's instruction of the report's
/// first site); `None` for stops that say nothing about the kernel's barriers (a trap, an
/// access outside memory under made-up inputs, the step budget).
pub fn lint_of(
    kind: FindingKind,
    message: &str,
    instruction: Option<&Instruction>,
    run: &ProbeRun,
) -> Option<&'static LintInfo> {
    use FindingKind as K;
    let log = &run.log;
    Some(match kind {
        K::DivergentAlignedBarrier => {
            // A `bar`/`barrier` (guarded or not: `@p bar.sync 0`), else a warp collective.
            if instruction.is_some_and(|i| matches!(i.opcode, Opcode::Bar | Opcode::Barrier)) {
                &lints::aligned_barrier_divergence::LINT
            } else {
                &lints::warp_collective_divergence::LINT
            }
        }
        K::WarpCollective
            if message.contains("part of a warp") || message.contains("divergent") =>
        {
            &lints::warp_collective_divergence::LINT
        }
        K::BarrierRedMixed => &lints::barrier_red_sync_mix::LINT,
        K::BarrierThreadCount | K::BarrierId | K::BarrierInstanceSplit => {
            &lints::barrier_count::LINT
        }
        K::MbarrierMissingWait | K::AsyncReadBeforeWait | K::MbarrierCountRange
            if !ignored_failure(log) && stale_wait(log) =>
        {
            &lints::mbarrier_parity_mismatch::LINT
        }
        K::MbarrierMissingWait => &lints::mbarrier_missing_wait::LINT,
        // A read of what a copy writes before the phase that carries the copy: the copy's
        // barrier completed its phase without expecting the copy (its bytes land in the next
        // phase), or the reader did not wait.
        K::AsyncReadBeforeWait if unexpected_copy(log) => &lints::mbarrier_tx_mismatch::LINT,
        K::AsyncReadBeforeWait => &lints::mbarrier_missing_wait::LINT,
        K::MbarrierInvalidPhase => &lints::mbarrier_parity_mismatch::LINT,
        K::MbarrierCountRange if message.contains("tx-count") => &lints::mbarrier_tx_mismatch::LINT,
        K::MbarrierCountRange => &lints::mbarrier_missing_wait::LINT,
        K::MbarrierUninitialized | K::MbarrierReinit | K::MbarrierMemoryAccess => {
            &lints::mbarrier_uninit::LINT
        }
        K::ClusterArriveTwice | K::ClusterWaitWithoutArrive => {
            &lints::cluster_barrier_double_arrive::LINT
        }
        K::ProxyFenceMissing => &lints::missing_proxy_fence::LINT,
        // A race between accesses that a named barrier was to order, in a run where a warp's
        // second arrival counted in a phase: the extra arrival released the barrier early.
        K::SharedRace if doubled_arrival(log) => &lints::barrier_count::LINT,
        K::ExitedCtaAccess => &lints::cluster_peer_exit::LINT,
        K::Deadlock => deadlock(run)?,
        _ => return None,
    })
}

/// Whether some warp arrived twice in one phase of a named barrier (`bar.arrive` then
/// `bar.sync`): §9.7.13.1 counts both.
fn doubled_arrival(log: &[LogEvent]) -> bool {
    let mut seen: std::collections::HashMap<(u32, Object, Option<i64>), u32> =
        std::collections::HashMap::new();
    log.iter()
        .filter(|e| e.kind == LogKind::Arrive)
        .filter_map(|e| match e.object {
            Some(o @ Object::Named { .. }) => Some((e, o)),
            _ => None,
        })
        .any(|(e, o)| {
            let lanes = seen.entry((e.warp, o, e.phase)).or_insert(0);
            let again = *lanes & e.lanes != 0;
            *lanes |= e.lanes;
            again
        })
}

/// Whether some thread went on after a wait that failed: its next wait on the object is for
/// another phase (a retry waits for the same one). Its later waits can then observe phases
/// it is ahead of; the mistake is the ignored result, not the parity.
fn ignored_failure(log: &[LogEvent]) -> bool {
    // The phase a wait waits for: a failed one, the current phase; a successful one, the
    // phase it observed.
    let waits: Vec<&LogEvent> = log
        .iter()
        .filter(|e| matches!(e.kind, LogKind::WaitDone | LogKind::WaitPending))
        .collect();
    for (i, e) in waits.iter().enumerate() {
        if e.kind != LogKind::WaitPending {
            continue;
        }
        let next = waits[i + 1..]
            .iter()
            .find(|x| x.warp == e.warp && x.object == e.object && x.lanes & e.lanes != 0);
        if let Some(x) = next
            && x.phase != e.phase
        {
            return true;
        }
    }
    false
}

/// Whether `a` names a mistake more precisely than `b` when one rule broke at one statement
/// in two runs: a wrong parity or byte count says more than a missing wait or a deadlock,
/// which other runs of the same mistake show.
pub fn more_specific(a: &LintInfo, b: &LintInfo) -> bool {
    let general = |l: &LintInfo| {
        l.name == lints::mbarrier_missing_wait::LINT.name
            || l.name == lints::mbarrier_deadlock::LINT.name
    };
    general(b) && !general(a)
}

/// Whether some thread's wait succeeded on a phase it had seen complete before, or on the
/// phase before the first of an object that transactions complete (see the module docs).
fn stale_wait(log: &[LogEvent]) -> bool {
    let carries_tx = |o: Object| {
        log.iter()
            .any(|e| e.object == Some(o) && matches!(e.kind, LogKind::Issue | LogKind::Expect))
    };
    // (warp, lane, object) -> phases seen complete.
    let mut seen: Vec<(u32, u32, Object, i64)> = Vec::new();
    for (i, e) in log
        .iter()
        .enumerate()
        .filter(|(_, e)| e.kind == LogKind::WaitDone)
    {
        let (Some(o @ Object::Mbarrier { .. }), Some(phase)) = (e.object, e.phase) else {
            continue;
        };
        // The phase before the first, observed once arrivals of the first were counted: the
        // parity names a phase nothing completes, not the one under way.
        let first_begun = || {
            log[..i]
                .iter()
                .any(|x| x.object == Some(o) && x.kind == LogKind::Arrive && x.phase == Some(0))
        };
        if phase < 0 && (carries_tx(o) || first_begun()) {
            return true;
        }
        for lane in 0..32 {
            if e.lanes >> lane & 1 == 0 {
                continue;
            }
            if seen
                .iter()
                .any(|&(w, l, x, p)| w == e.warp && l == lane && x == o && p == phase)
            {
                return true;
            }
            seen.push((e.warp, lane, o, phase));
        }
    }
    false
}

/// Whether a copy completes transactions on an mbarrier that no one expects bytes on.
fn unexpected_copy(log: &[LogEvent]) -> bool {
    log.iter()
        .filter(|e| e.kind == LogKind::Issue)
        .filter_map(|e| e.object)
        .any(|o| {
            !log.iter().any(|x| {
                x.object == Some(o)
                    && (x.kind == LogKind::Expect
                        || (x.kind == LogKind::Arrive && x.text.contains("expecting")))
            })
        })
}

/// The lint of a deadlock (see the module docs).
fn deadlock(run: &ProbeRun) -> Option<&'static LintInfo> {
    let log = &run.log;
    let on_mbarrier: Vec<(&phasegate_sim::probe::Blocked, Object)> = run
        .blocked
        .iter()
        .filter_map(|b| match b.on {
            Some(o @ Object::Mbarrier { .. }) => Some((b, o)),
            _ => None,
        })
        .collect();
    if on_mbarrier.is_empty() {
        let named: Vec<Object> = run.blocked.iter().filter_map(|b| b.on).collect();
        if named.is_empty() {
            return None;
        }
        // A barrier used with two thread counts: the counts, not the order, are wrong.
        let counts = |o: Object| {
            let mut c: Vec<&str> = log
                .iter()
                .filter(|e| e.object == Some(o) && e.kind == LogKind::Arrive)
                .filter_map(|e| e.text.split("(count ").nth(1)?.split(')').next())
                .collect();
            c.sort_unstable();
            c.dedup();
            c.len()
        };
        if named.iter().any(|&o| counts(o) > 1) {
            return Some(&lints::barrier_count::LINT);
        }
        return Some(&lints::named_barrier_deadlock::LINT);
    }
    for &(b, o) in &on_mbarrier {
        let state = run.mbarriers.iter().find(|m| m.object == o);
        if let Some(m) = state
            && m.pending == 0
            && (m.tx != 0 || m.unknown_done as i64 > m.tx)
        {
            return Some(&lints::mbarrier_tx_mismatch::LINT);
        }
        // The phase the blocked threads wait for, and the phases they saw complete.
        let waiting = log
            .iter()
            .rev()
            .find(|e| {
                e.object == Some(o)
                    && e.warp == b.warp
                    && e.kind == LogKind::WaitPending
                    && e.lanes & b.lanes != 0
            })
            .and_then(|e| e.phase);
        let completed: Vec<i64> = log
            .iter()
            .filter(|e| e.object == Some(o) && e.kind == LogKind::Phase)
            .filter_map(|e| e.phase)
            .collect();
        // Phases some thread saw complete: a phase another role consumed is one the blocked
        // threads skip by design (CUTLASS's ping-pong consumers take turns), not by parity.
        let observed: Vec<i64> = log
            .iter()
            .filter(|e| e.object == Some(o) && e.kind == LogKind::WaitDone)
            .filter_map(|e| e.phase)
            .collect();
        if let Some(k) = waiting
            && k > 0
            && completed.contains(&(k - 1))
            && !observed.contains(&(k - 1))
        {
            return Some(&lints::mbarrier_parity_mismatch::LINT);
        }
    }
    Some(&lints::mbarrier_deadlock::LINT)
}
