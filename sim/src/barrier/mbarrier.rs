//! mbarrier objects (PTX ISA §9.7.13.15): current phase, pending count, expected count and
//! tx-count, exactly as the spec's contents (§9.7.13.15.2), phase completion (§9.7.13.15.6)
//! and each operation's page describe them.
//!
//! Checked here: operations on uninitialised or invalidated objects and `init` on a valid one
//! (§9.7.13.15, .9, .10), counts out of range (§9.7.13.15.2), `.noComplete` completing a phase
//! (§9.7.13.15.13), waits (with the state of an arrive) on a phase that is neither current nor
//! immediately preceding (§9.7.13.15.16), and "for each phase at least one test_wait or try_wait returning True
//! before an arrive-on of the subsequent phase" (§9.7.13.15.4) as a happens-before rule: a
//! successful wait by *any* thread that happens before the arrive counts.
//!
//! Initialisation is a write to the object's memory like any other: an operation of another
//! thread must happen after it (a CTA barrier, a cluster barrier whose arrive releases it, or
//! `fence.mbarrier_init` before a relaxed one), or it may see the memory as it was before
//! (§9.7.13.15: "the mbarrier object must be initialized prior to use", PTX ISA §8 on
//! ordering). [`require_valid`] checks that order with the threads' vector clocks.
//!
//! Tensor copies whose box the run does not know (the analyzer's witness runs make their
//! tensor maps up) complete an unknown, positive number of bytes: the object counts them
//! ([`MBarrier::unknown_issued`], [`MBarrier::unknown_completed`]) and completes the phase once
//! no arrival is pending, none of them is in flight, and the bytes expected could be theirs
//! (at least one per copy); bytes no one expected keep the phase from ever completing.

pub(crate) use super::violation::Actor;
use super::violation::{At, Violation};
use crate::decode::MbarOp;
use crate::race::{Clock, Race, join_into};
use crate::report::FindingKind;

pub(crate) const MAX_COUNT: i64 = (1 << 20) - 1;

/// The state tokens `mbarrier.arrive` returns: phase in bits 0..31, pending count before the
/// arrive in bits 32..51, bit 63 marks a token.
pub(crate) fn token(phase: u32, pending_before: i64) -> u64 {
    (1 << 63) | ((pending_before.clamp(0, MAX_COUNT) as u64) << 32) | phase as u64
}

#[derive(Clone, Debug, Default)]
pub(crate) struct MBarrier {
    pub valid: bool,
    pub phase: u32,
    pub pending: i64,
    pub expected: i64,
    pub tx: i64,
    pub cur_vc: Clock,
    /// A thread snapshot joined whole into `cur_vc` since it was last taken: an arrival of a
    /// thread whose clock is that snapshot joins only its own two components
    /// ([`Race::join_thread`]; the consumer threads of a GEMM arrive one by one).
    pub cur_base: Option<std::sync::Arc<[u32]>>,
    /// The completed phase's clock, shared: each waiting thread acquires it
    /// ([`crate::race::Race::acquire_shared`]).
    pub done_vc: std::sync::Arc<[u32]>,
    /// Successful waits on the immediately preceding phase: per thread, its clock at its first
    /// such wait (0: none), and the threads that waited.
    pub wait_clock: Vec<u32>,
    pub waiters: Vec<u32>,
    /// Changes whenever the state changes; parked pollers wake on a change.
    pub version: u64,
    pub parked: Vec<(u32, u32)>,
    /// Where it was initialised or invalidated last: (warp, lane, pc).
    pub last_lifecycle: (u32, u32, u32),
    pub completions: u64,
    /// The thread that initialised it and its clock component at the initialisation: an
    /// operation of another thread must have seen that epoch.
    pub init_by: u32,
    pub init_epoch: u32,
    /// Tensor copies of unknown size on it: issued and not yet complete, and completed in the
    /// current phase.
    pub unknown_inflight: u32,
    pub unknown_done: u32,
    /// Expectations of unknown size in the current phase (an expect-tx whose byte count the
    /// kernel computed from made-up inputs).
    pub unknown_expects: u32,
}

impl MBarrier {
    pub(crate) fn describe(&self) -> String {
        if !self.valid {
            return "invalidated (or never initialised)".into();
        }
        let unknown = match (self.unknown_done, self.unknown_inflight) {
            (0, 0) => String::new(),
            (d, f) => {
                format!(" (less the bytes of {d} completed and {f} pending copies of unknown size)")
            }
        };
        let unknown = match self.unknown_expects {
            0 => unknown,
            e => format!("{unknown} (plus {e} expectations of unknown size)"),
        };
        format!(
            "phase {} (parity {}), pending count {} of expected {}, tx-count {}{unknown}",
            self.phase,
            self.phase & 1,
            self.pending,
            self.expected,
            self.tx
        )
    }
}

/// The spec section of an mbarrier operation.
pub(crate) fn section(op: MbarOp) -> &'static str {
    match op {
        MbarOp::Init => "§9.7.13.15.9",
        MbarOp::Inval => "§9.7.13.15.10",
        MbarOp::ExpectTx => "§9.7.13.15.11",
        MbarOp::CompleteTx => "§9.7.13.15.12",
        MbarOp::Arrive { drop: false, .. } => "§9.7.13.15.13",
        MbarOp::Arrive { drop: true, .. } => "§9.7.13.15.14",
        MbarOp::TestWait { .. } | MbarOp::TryWait { .. } => "§9.7.13.15.16",
    }
}

pub(crate) fn op_name(op: MbarOp) -> &'static str {
    match op {
        MbarOp::Init => "mbarrier.init",
        MbarOp::Inval => "mbarrier.inval",
        MbarOp::ExpectTx => "mbarrier.expect_tx",
        MbarOp::CompleteTx => "mbarrier.complete_tx",
        MbarOp::Arrive { drop: false, .. } => "mbarrier.arrive",
        MbarOp::Arrive { drop: true, .. } => "mbarrier.arrive_drop",
        MbarOp::TestWait { .. } => "mbarrier.test_wait",
        MbarOp::TryWait { .. } => "mbarrier.try_wait",
    }
}

/// How reports name an mbarrier (`mbarrier `full` of cta (0, 0, 0)`); made only for a report.
pub(crate) type Name<'a> = &'a dyn Fn() -> String;

/// Lanes parked on an mbarrier whose state changed: (warp, lanes) to wake where still parked.
pub(crate) type Parked = Vec<(u32, u32)>;

/// Every operation but `init` needs a valid object (`m`; `None`: never initialised) whose
/// initialisation happens before it: `seen` is the clock of the operation (the thread's, or
/// for an asynchronous one its issuer's at issue), `thread` the clock component of the thread.
pub(crate) fn require_valid<S: crate::race::Seen + ?Sized>(
    m: Option<&MBarrier>,
    actor: Actor,
    thread: u32,
    seen: &S,
    op: MbarOp,
    name: Name<'_>,
) -> Result<(), Violation> {
    if let Some(m) = m.filter(|m| m.valid) {
        let ordered = thread == m.init_by
            || ((m.init_by as usize) < seen.width() && seen.at(m.init_by as usize) >= m.init_epoch);
        if ordered {
            return Ok(());
        }
        return Err(Violation::new(FindingKind::MbarrierUninitialized, "§9.7.13.15", format!("{} on an mbarrier ({}) whose initialisation does not happen before it", op_name(op), name()))
            .actor(actor, format!("performs {}", op_name(op)))
            .site(m.lifecycle_site(), "initialised it")
            .note("nothing orders the mbarrier.init before this operation (no CTA barrier, no cluster barrier that releases it, no fence.mbarrier_init before a relaxed one): the thread may see the object's memory as it was before the initialisation")
            .note("\"performing any mbarrier operation except mbarrier.init on an uninitialized mbarrier object results in undefined behavior\""));
    }
    let what = if m.is_some() {
        "an invalidated"
    } else {
        "an uninitialised"
    };
    let mut v = Violation::new(FindingKind::MbarrierUninitialized, "§9.7.13.15", format!("{} on {what} mbarrier ({})", op_name(op), name()))
        .actor(actor, format!("performs {}", op_name(op)))
        .note("\"performing any mbarrier operation except mbarrier.init on an uninitialized mbarrier object results in undefined behavior\"");
    if let Some(m) = m {
        v = v.site(m.lifecycle_site(), "invalidated it");
    }
    Err(v)
}

impl MBarrier {
    /// `mbarrier.init` with `count` over the object `old` at its address, if any: the new
    /// object, in phase 0 with `count` pending arrivals.
    /// `thread` is the initialising thread's clock component and `epoch` its value after the
    /// initialisation started a new epoch of the thread.
    pub(crate) fn init(
        old: Option<&MBarrier>,
        count: i64,
        actor: Actor,
        (thread, epoch): (u32, u32),
        name: Name<'_>,
    ) -> Result<MBarrier, Violation> {
        if let Some(m) = old
            && m.valid
        {
            return Err(Violation::new(
                FindingKind::MbarrierReinit,
                "§9.7.13.15.9",
                format!("mbarrier.init on a valid mbarrier ({})", name()),
            )
            .actor(actor, "initialises it again")
            .site(m.lifecycle_site(), "initialised it")
            .state(m.describe())
            .note("invalidate the mbarrier with mbarrier.inval before initialising it again"));
        }
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(Violation::new(
                FindingKind::MbarrierCountRange,
                "§9.7.13.15.2",
                format!("mbarrier.init with count {count}, outside the valid range 1..2^20-1"),
            )
            .actor(actor, "initialises the mbarrier"));
        }
        Ok(MBarrier {
            valid: true,
            phase: 0,
            pending: count,
            expected: count,
            tx: 0,
            version: old.map_or(0, |m| m.version + 1),
            last_lifecycle: (actor.warp, actor.lane, actor.pc),
            init_by: thread,
            init_epoch: epoch,
            ..MBarrier::default()
        })
    }

    /// `mbarrier.inval`: returns the lanes parked on it, which must look again.
    pub(crate) fn inval(&mut self, actor: Actor) -> Parked {
        self.valid = false;
        self.version += 1;
        self.last_lifecycle = (actor.warp, actor.lane, actor.pc);
        std::mem::take(&mut self.parked)
    }

    fn lifecycle_site(&self) -> At {
        let (warp, lane, pc) = self.last_lifecycle;
        At {
            warp,
            lanes: 1 << lane,
            pc,
        }
    }

    fn range_error(
        &self,
        actor: Actor,
        op: MbarOp,
        what: &str,
        value: i64,
        name: Name<'_>,
    ) -> Violation {
        Violation::new(FindingKind::MbarrierCountRange, "§9.7.13.15.2", format!("{} takes the {what} of {} to {value}, outside its valid range", op_name(op), name()))
            .actor(actor, format!("performs {}", op_name(op)))
            .state(self.describe())
            .note("valid ranges: expected arrival count 1..2^20-1, pending arrival count 0..2^20-1, tx-count -(2^20-1)..2^20-1")
    }

    /// expect-tx (`delta > 0`) or complete-tx (`delta < 0`); returns the parked lanes when
    /// the phase completed.
    pub(crate) fn tx(
        &mut self,
        actor: Actor,
        delta: i64,
        op: MbarOp,
        name: Name<'_>,
    ) -> Result<Option<Parked>, Violation> {
        let tx = self.tx + delta;
        if !(-MAX_COUNT..=MAX_COUNT).contains(&tx) {
            return Err(self.range_error(actor, op, "tx-count", tx, name));
        }
        self.tx = tx;
        self.version += 1;
        // An expectation can balance bytes that arrived before it (a peer's multicast copy
        // may land before this CTA expects it): any change of the count may complete.
        self.complete(actor, name)
    }

    /// An arrive-on of `count` (with `drop`, the expected count drops by `count` first) that
    /// releases `vc` — an async operation's clock, or with `None` the arriving thread's own,
    /// which then starts a new epoch. Returns the state token, and the parked lanes when the
    /// phase completed.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn arrive(
        &mut self,
        actor: Actor,
        count: i64,
        drop: bool,
        no_complete: bool,
        vc: Option<&[u32]>,
        op: MbarOp,
        race: &mut Race,
        name: Name<'_>,
    ) -> Result<(u64, Option<Parked>), Violation> {
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(self.range_error(actor, op, "arrival count argument", count, name));
        }
        let own = actor.warp * 32 + actor.lane;
        let len = vc.map_or(race.dims(), <[u32]>::len);
        if len > self.cur_vc.len() {
            self.cur_vc.resize(len, 0);
        }
        // The clock's components from the race's width on are 0: joined up to it (the
        // cluster's clock width is 768 in CUTLASS's GEMMs, half of them agents never made).
        let w = race.width().min(len);
        match vc {
            Some(vc) => join_into(&mut self.cur_vc[..w], &vc[..w]),
            None => {
                race.join_thread(own, &mut self.cur_vc, &mut self.cur_base);
                race.tick(own);
            }
        }
        let before = token(self.phase, self.pending);
        if drop {
            let expected = self.expected - count;
            if expected < 0 {
                return Err(self.range_error(actor, op, "expected arrival count", expected, name));
            }
            self.expected = expected;
        }
        let pending = self.pending - count;
        if pending < 0 {
            return Err(self.range_error(actor, op, "pending arrival count", pending, name));
        }
        self.pending = pending;
        self.version += 1;
        if no_complete && self.completes() {
            return Err(Violation::new(FindingKind::MbarrierNoComplete, "§9.7.13.15.13", format!("{} with .noComplete completes the current phase of {}", op_name(op), name()))
                .actor(actor, "arrives with .noComplete")
                .state(self.describe())
                .note("\"a mbarrier.arrive operation with .noComplete qualifier must not cause the mbarrier to complete its current phase\""));
        }
        Ok((before, self.complete(actor, name)?))
    }

    /// Whether the current phase completes now: no arrival pending and no transaction (bytes
    /// expected and not delivered) pending (§9.7.13.15.6). Tensor copies of unknown size count
    /// once none is in flight, as having delivered what was expected if at least a byte each
    /// was (they are taken to be as large as the expectation needs).
    fn completes(&self) -> bool {
        if self.pending != 0 || self.unknown_inflight != 0 {
            return false;
        }
        let (copies, expects) = (self.unknown_done as i64, self.unknown_expects as i64);
        // Whether positive sizes of the unknown copies and expectations balance the known
        // tx-count (expected minus delivered).
        match (expects, copies) {
            (0, 0) => self.tx == 0,
            (0, u) => self.tx >= u,
            (e, 0) => self.tx <= -e,
            _ => true,
        }
    }

    /// An expect-tx of unknown size: the bytes its copies deliver, at least one.
    pub(crate) fn unknown_expected(
        &mut self,
        actor: Actor,
        name: Name<'_>,
    ) -> Result<Option<Parked>, Violation> {
        self.unknown_expects += 1;
        self.version += 1;
        self.complete(actor, name)
    }

    /// A tensor copy of unknown size that will complete on this object was issued.
    pub(crate) fn unknown_issued(&mut self) {
        self.unknown_inflight += 1;
        self.version += 1;
    }

    /// A tensor copy of unknown size completed on this object: returns the parked lanes when
    /// the phase completed.
    pub(crate) fn unknown_completed(
        &mut self,
        actor: Actor,
        name: Name<'_>,
    ) -> Result<Option<Parked>, Violation> {
        self.unknown_inflight = self.unknown_inflight.saturating_sub(1);
        self.unknown_done += 1;
        self.version += 1;
        self.complete(actor, name)
    }

    /// Completes the current phase once no arrivals and no transactions are pending
    /// (§9.7.13.15.6), which `actor`'s operation brought about. Completing phase k + 1 while no
    /// wait has observed phase k breaks §9.7.13.15.4 (see [`MBarrier::lost_phase`]).
    fn complete(&mut self, actor: Actor, name: Name<'_>) -> Result<Option<Parked>, Violation> {
        if !self.completes() {
            return Ok(None);
        }
        if self.phase > 0 && self.waiters.is_empty() {
            return Err(self.lost_phase(actor, name));
        }
        self.tx = 0;
        self.unknown_done = 0;
        self.unknown_expects = 0;
        self.phase = self.phase.wrapping_add(1);
        self.pending = self.expected;
        self.done_vc = std::mem::take(&mut self.cur_vc).into();
        self.cur_base = None;
        for t in std::mem::take(&mut self.waiters) {
            self.wait_clock[t as usize] = 0;
        }
        self.version += 1;
        self.completions += 1;
        Ok(Some(std::mem::take(&mut self.parked)))
    }

    /// §9.7.13.15.4: "for each phase of the mbarrier object, at least one test_wait or
    /// try_wait operation must be performed which returns True for waitComplete before an
    /// arrive-on operation in the subsequent phase". Operations on one object are performed
    /// in one order (the object's); what the rule protects is that a phase is seen before the
    /// object moves two phases on, after which a wait by parity names a later phase and a
    /// state token is no longer valid. So the run breaks the rule when phase k + 1 completes
    /// and no wait has yet returned true for phase k: that phase can no longer be observed.
    /// Arrivals of phase k + 1 that come before the wait but cannot complete it without
    /// the waiter's own progress (a peer CTA's consumers releasing a buffer ahead of its
    /// producer) keep the rule's purpose and are not a finding.
    fn lost_phase(&self, actor: Actor, name: Name<'_>) -> Violation {
        let who = if actor.async_op {
            "an asynchronous operation issued here completes it"
        } else {
            "completes it"
        };
        Violation::new(
            FindingKind::MbarrierMissingWait,
            "§9.7.13.15.4",
            format!(
                "phase {} of {} completes before any test_wait/try_wait returned true for phase {}",
                self.phase,
                name(),
                self.phase - 1
            ),
        )
        .actor(actor, who)
        .state(self.describe())
        .note(format!(
            "phase {} was never observed: a wait for it by parity now waits for phase {}, and the arrivals of phase {} came before anyone saw the phase they follow",
            self.phase - 1,
            self.phase + 1,
            self.phase
        ))
        .note("\"for each phase of the mbarrier object, at least one test_wait or try_wait operation must be performed which returns True for waitComplete before an arrive-on operation in the subsequent phase\"")
    }

    /// test_wait/try_wait of the one lane `at` with a parity or state `arg`: whether the
    /// phase it names completed. A successful wait acquires the phase (unless `.relaxed`).
    pub(crate) fn wait(
        &mut self,
        at: At,
        parity: bool,
        arg: u64,
        relaxed: bool,
        race: &mut Race,
        name: Name<'_>,
    ) -> Result<bool, Violation> {
        let phase = self.phase;
        // A parity names the current phase or the one before it. On a fresh mbarrier, parity 1
        // names the phase before the first, which counts as complete: the hardware returns true
        // and the usual producer start state (wait for "empty" with parity 1) relies on it. A wait
        // meant for a later phase then passes too early; the reads it was meant to order are
        // caught as races.
        let done = if parity {
            (arg & 1) as u32 != phase & 1
        } else {
            if arg >> 63 != 1 {
                return Err(self.phase_error(
                    at,
                    format!("state 0x{arg:x}, which no mbarrier.arrive returned"),
                    name,
                ));
            }
            let tp = arg as u32;
            if tp == phase {
                false
            } else if tp.wrapping_add(1) == phase {
                true
            } else {
                return Err(self.phase_error(
                    at,
                    format!("phase {tp} (from its state), while the current phase is {phase}"),
                    name,
                ));
            }
        };
        if !done {
            return Ok(false);
        }
        let t = at.warp * 32 + at.lanes.trailing_zeros();
        if !relaxed {
            race.acquire_shared(t, &self.done_vc);
        }
        let now = race.now(t);
        if self.wait_clock.len() <= t as usize {
            self.wait_clock.resize(t as usize + 1, 0);
        }
        if self.wait_clock[t as usize] == 0 {
            self.wait_clock[t as usize] = now;
            self.waiters.push(t);
        }
        Ok(true)
    }

    fn phase_error(&self, at: At, what: String, name: Name<'_>) -> Violation {
        Violation::new(FindingKind::MbarrierInvalidPhase, "§9.7.13.15.16", format!("wait on {} for {what}", name()))
            .site(at, "waits")
            .state(self.describe())
            .note("\"the test_wait and try_wait operations are valid only for the current incomplete phase ... and the immediately preceding phase\"")
    }
}
