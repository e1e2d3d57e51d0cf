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

use crate::sim::decode::{Addr, MbarOp, SINK, Space, Src};
use crate::sim::machine::{Block, Machine, Res, lanes};
use crate::sim::memory::{SHARED_GENERIC, cta_offset};
use crate::sim::race::{Clock, join_into};
use crate::sim::report::{FindingKind, Report};

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
    pub done_vc: Clock,
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
}

impl MBarrier {
    pub(crate) fn describe(&self) -> String {
        if !self.valid {
            return "invalidated (or never initialised)".into();
        }
        format!(
            "phase {} (parity {}), pending count {} of expected {}, tx-count {}",
            self.phase,
            self.phase & 1,
            self.pending,
            self.expected,
            self.tx
        )
    }
}

/// The spec section of an mbarrier operation.
fn section(op: MbarOp) -> &'static str {
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

fn op_name(op: MbarOp) -> &'static str {
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

/// Who performs an arrive-on or complete-tx: a thread, or an async operation issued by one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Actor {
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    /// Whether the actor is the async proxy (an operation the thread issued).
    pub async_op: bool,
    /// Simulated time of the operation.
    pub time: u64,
}

impl Machine<'_> {
    pub(crate) fn mbar_name(&self, cta: u32, off: u32) -> String {
        format!(
            "mbarrier {} of cta {:?}",
            self.shared_name(off),
            self.ctas[cta as usize].ctaid
        )
    }

    /// Executes an `mbarrier.*` instruction for lanes `eff`; returns the lanes that parked.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mbarrier(
        &mut self,
        w: usize,
        eff: u32,
        pc: u32,
        op: MbarOp,
        space: Space,
        d: u32,
        addr: Addr,
        a: Option<Src>,
    ) -> Res<u32> {
        let mut parked = 0u32;
        let mut succeeded = false;
        if !matches!(op, MbarOp::TestWait { .. } | MbarOp::TryWait { .. }) {
            self.warps[w].effects += 1;
        }
        let traced = self.trace.is_some() && eff != 0;
        let first_target = if traced {
            Some(self.addr_value(w, eff.trailing_zeros() as usize, addr))
        } else {
            None
        };
        // Lanes of a group mostly name one mbarrier: locate it once.
        let mut located: Option<(u64, (u32, u32))> = None;
        for lane in lanes(eff) {
            let at = self.addr_value(w, lane, addr);
            let (cta, off) = match located {
                Some((a, target)) if a == at => target,
                _ => {
                    let target = self.mbar_locate(w, lane, pc, space, at, section(op))?;
                    located = Some((at, target));
                    target
                }
            };
            let arg = a.map(|s| self.src_value(w, lane, s)).unwrap_or(0);
            let own = self.warps[w].cta;
            if cta != own
                && !matches!(
                    op,
                    MbarOp::Arrive { .. } | MbarOp::ExpectTx | MbarOp::CompleteTx
                )
            {
                return Err(Report::new(FindingKind::MbarrierAddress, "§9.7.13.15.8", format!("{} on an mbarrier of another CTA", op_name(op)))
                    .site(self.site(w, 1 << lane, pc, "operates on a remote mbarrier"))
                    .note("only arrive, expect_tx and complete_tx are supported on .shared::cluster mbarriers")
                    .into());
            }
            let actor = Actor {
                warp: w as u32,
                lane: lane as u32,
                pc,
                async_op: false,
                time: self.warps[w].clock,
            };
            if cta != own && d != SINK {
                return Err(Report::new(FindingKind::MbarrierAddress, "§9.7.13.15.13", format!("{} on an mbarrier of another CTA returns a state", op_name(op)))
                    .site(self.site(w, 1 << lane, pc, "names a destination"))
                    .note("an arrive on a .shared::cluster mbarrier outside the executing CTA cannot return a value: the destination must be the sink `_`")
                    .into());
            }
            if op != MbarOp::Init {
                self.require_valid(cta, off, actor, op)?;
            }
            match op {
                MbarOp::Init => self.mbar_init(cta, off, actor, arg as u32 as i64)?,
                MbarOp::Inval => {
                    let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
                    m.valid = false;
                    m.version += 1;
                    m.last_lifecycle = (w as u32, lane as u32, pc);
                    let parked = std::mem::take(&mut m.parked);
                    self.ctas[cta as usize].set_mbar_slot(off, false);
                    self.wake_parked(parked, 0);
                }
                MbarOp::ExpectTx => self.mbar_tx(cta, off, actor, arg as u32 as i64, op)?,
                MbarOp::CompleteTx => self.mbar_tx(cta, off, actor, -(arg as u32 as i64), op)?,
                MbarOp::Arrive {
                    drop,
                    expect_tx,
                    no_complete,
                } => {
                    if expect_tx {
                        self.mbar_tx(cta, off, actor, arg as u32 as i64, op)?;
                    }
                    let count = if expect_tx || a.is_none() {
                        1
                    } else {
                        arg as u32 as i64
                    };
                    let before =
                        self.mbar_arrive(cta, off, actor, count, drop, no_complete, None, op)?;
                    if d != SINK {
                        self.warps[w].set_reg(d, lane, before);
                    }
                }
                MbarOp::TestWait { parity, relaxed } | MbarOp::TryWait { parity, relaxed } => {
                    match self.mbar_wait(w, lane, pc, cta, off, parity, arg, relaxed)? {
                        Some(done) => {
                            succeeded |= done;
                            self.warps[w].set_reg(d, lane, done as u64)
                        }
                        None => parked |= 1 << lane,
                    }
                }
            }
        }
        if let Some(a) = first_target
            && (succeeded || !matches!(op, MbarOp::TestWait { .. } | MbarOp::TryWait { .. }))
        {
            let off = cta_offset(
                (a.wrapping_sub(if a >= SHARED_GENERIC {
                    SHARED_GENERIC
                } else {
                    0
                })) as u32,
            );
            let own = self.warps[w].cta;
            self.trace_barrier(
                w,
                own,
                &format!("{} {}", op_name(op), self.shared_name(off)),
                false,
            );
        }
        if parked != 0 {
            self.warps[w].block(parked, Block::Parked { cta: 0, offset: 0 }, pc, pc);
            for lane in lanes(parked) {
                let (cta, off) = self.mbar_locate(
                    w,
                    lane,
                    pc,
                    space,
                    self.addr_value(w, lane, addr),
                    "§9.7.13.15.16",
                )?;
                self.warps[w].why[lane] = Block::Parked { cta, offset: off };
                self.ctas[cta as usize]
                    .mbars
                    .get_mut(&off)
                    .expect("valid")
                    .parked
                    .push((w as u32, 1 << lane));
            }
        }
        Ok(parked)
    }

    fn require_valid(&self, cta: u32, off: u32, actor: Actor, op: MbarOp) -> Res<()> {
        let m = self.ctas[cta as usize].mbars.get(&off);
        if m.is_some_and(|m| m.valid) {
            return Ok(());
        }
        let what = if m.is_some() {
            "an invalidated"
        } else {
            "an uninitialised"
        };
        let mut r = Report::new(FindingKind::MbarrierUninitialized, "§9.7.13.15", format!("{} on {what} mbarrier ({})", op_name(op), self.mbar_name(cta, off)))
            .site(self.actor_site(actor, &format!("performs {}", op_name(op))))
            .note("\"performing any mbarrier operation except mbarrier.init on an uninitialized mbarrier object results in undefined behavior\"");
        if let Some(m) = m {
            let (lw, ll, lpc) = m.last_lifecycle;
            r = r.site(self.site(lw as usize, 1 << ll, lpc, "invalidated it"));
        }
        Err(r.into())
    }

    fn mbar_init(&mut self, cta: u32, off: u32, actor: Actor, count: i64) -> Res<()> {
        if let Some(m) = self.ctas[cta as usize].mbars.get(&off)
            && m.valid
        {
            let (lw, ll, lpc) = m.last_lifecycle;
            let state = m.describe();
            return Err(Report::new(
                FindingKind::MbarrierReinit,
                "§9.7.13.15.9",
                format!(
                    "mbarrier.init on a valid mbarrier ({})",
                    self.mbar_name(cta, off)
                ),
            )
            .site(self.actor_site(actor, "initialises it again"))
            .site(self.site(lw as usize, 1 << ll, lpc, "initialised it"))
            .state(state)
            .note("invalidate the mbarrier with mbarrier.inval before initialising it again")
            .into());
        }
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(Report::new(
                FindingKind::MbarrierCountRange,
                "§9.7.13.15.2",
                format!("mbarrier.init with count {count}, outside the valid range 1..2^20-1"),
            )
            .site(self.actor_site(actor, "initialises the mbarrier"))
            .into());
        }
        let c = &mut self.ctas[cta as usize];
        let old = c.mbars.remove(&off);
        let version = old.map_or(0, |m| m.version + 1);
        c.mbars.insert(
            off,
            MBarrier {
                valid: true,
                phase: 0,
                pending: count,
                expected: count,
                tx: 0,
                version,
                last_lifecycle: (actor.warp, actor.lane, actor.pc),
                ..MBarrier::default()
            },
        );
        c.set_mbar_slot(off, true);
        Ok(())
    }

    fn range_error(
        &self,
        cta: u32,
        off: u32,
        actor: Actor,
        op: MbarOp,
        what: &str,
        value: i64,
    ) -> Report {
        let m = &self.ctas[cta as usize].mbars[&off];
        Report::new(FindingKind::MbarrierCountRange, "§9.7.13.15.2", format!("{} takes the {what} of {} to {value}, outside its valid range", op_name(op), self.mbar_name(cta, off)))
            .site(self.actor_site(actor, &format!("performs {}", op_name(op))))
            .state(m.describe())
            .note("valid ranges: expected arrival count 1..2^20-1, pending arrival count 0..2^20-1, tx-count -(2^20-1)..2^20-1")
    }

    /// expect-tx (`delta > 0`) or complete-tx (`delta < 0`).
    pub(crate) fn mbar_tx(
        &mut self,
        cta: u32,
        off: u32,
        actor: Actor,
        delta: i64,
        op: MbarOp,
    ) -> Res<()> {
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let tx = m.tx + delta;
        if !(-MAX_COUNT..=MAX_COUNT).contains(&tx) {
            return Err(self.range_error(cta, off, actor, op, "tx-count", tx).into());
        }
        m.tx = tx;
        m.version += 1;
        if delta < 0 {
            self.mbar_maybe_complete(cta, off, actor.time)?;
        }
        Ok(())
    }

    /// An arrive-on of `count` (with `drop`, the expected count drops by `count` first) that
    /// releases `vc` — an async operation's clock, or with `None` the arriving thread's own,
    /// which then starts a new epoch; returns the state token.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn mbar_arrive(
        &mut self,
        cta: u32,
        off: u32,
        actor: Actor,
        count: i64,
        drop: bool,
        no_complete: bool,
        vc: Option<&[u32]>,
        op: MbarOp,
    ) -> Res<u64> {
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(self
                .range_error(cta, off, actor, op, "arrival count argument", count)
                .into());
        }
        let own = actor.warp * 32 + actor.lane;
        self.check_wait_before_arrive(cta, off, actor, vc.unwrap_or(self.race.clock(own)))?;
        let Machine { ctas, race, .. } = self;
        let m = ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let released = vc.unwrap_or(race.clock(own));
        if released.len() > m.cur_vc.len() {
            m.cur_vc.resize(released.len(), 0);
        }
        join_into(&mut m.cur_vc, released);
        if vc.is_none() {
            race.tick(own);
        }
        let before = token(m.phase, m.pending);
        if drop {
            let expected = m.expected - count;
            if expected < 0 {
                return Err(self
                    .range_error(cta, off, actor, op, "expected arrival count", expected)
                    .into());
            }
            m.expected = expected;
        }
        let pending = m.pending - count;
        if pending < 0 {
            return Err(self
                .range_error(cta, off, actor, op, "pending arrival count", pending)
                .into());
        }
        m.pending = pending;
        m.version += 1;
        if m.pending == 0 && m.tx == 0 && no_complete {
            let state = m.describe();
            return Err(Report::new(FindingKind::MbarrierNoComplete, "§9.7.13.15.13", format!("{} with .noComplete completes the current phase of {}", op_name(op), self.mbar_name(cta, off)))
                .site(self.actor_site(actor, "arrives with .noComplete"))
                .state(state)
                .note("\"a mbarrier.arrive operation with .noComplete qualifier must not cause the mbarrier to complete its current phase\"")
                .into());
        }
        self.mbar_maybe_complete(cta, off, actor.time)?;
        Ok(before)
    }

    /// §9.7.13.15.4: some successful wait on the preceding phase must happen before this
    /// arrive-on of the current one.
    fn check_wait_before_arrive(&self, cta: u32, off: u32, actor: Actor, vc: &[u32]) -> Res<()> {
        let m = &self.ctas[cta as usize].mbars[&off];
        let seen = |t: u32| {
            vc.get(t as usize)
                .is_some_and(|&v| v >= m.wait_clock[t as usize])
        };
        // The arriving thread's own wait is the usual witness; then anyone's.
        let own = actor.warp * 32 + actor.lane;
        if m.phase == 0
            || (!actor.async_op
                && m.wait_clock.get(own as usize).is_some_and(|&c| c != 0)
                && seen(own))
            || m.waiters.iter().any(|&t| seen(t))
        {
            return Ok(());
        }
        let who = if actor.async_op {
            "an asynchronous arrive-on (cp.async.mbarrier.arrive) issued"
        } else {
            "arrives"
        };
        let waits = if m.waiters.is_empty() {
            format!(
                "no thread has completed a test_wait/try_wait on phase {}",
                m.phase - 1
            )
        } else {
            format!(
                "{} thread(s) waited on phase {}, but none of those waits happens before this arrive",
                m.waiters.len(),
                m.phase - 1
            )
        };
        Err(Report::new(FindingKind::MbarrierMissingWait, "§9.7.13.15.4", format!("arrive-on in phase {} of {} without a successful wait on phase {} before it", m.phase, self.mbar_name(cta, off), m.phase - 1))
            .site(self.actor_site(actor, who))
            .state(m.describe())
            .note(waits)
            .note("\"for each phase of the mbarrier object, at least one test_wait or try_wait operation must be performed which returns True for waitComplete before an arrive-on operation in the subsequent phase\"")
            .into())
    }

    fn mbar_maybe_complete(&mut self, cta: u32, off: u32, at: u64) -> Res<()> {
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        if m.pending != 0 || m.tx != 0 {
            return Ok(());
        }
        m.phase = m.phase.wrapping_add(1);
        m.pending = m.expected;
        m.done_vc = std::mem::take(&mut m.cur_vc);
        for t in std::mem::take(&mut m.waiters) {
            m.wait_clock[t as usize] = 0;
        }
        m.version += 1;
        m.completions += 1;
        let parked = std::mem::take(&mut m.parked);
        self.stats.mbarrier_phases += 1;
        self.wake_parked(parked, at);
        let name = format!("mbarrier {}", self.shared_name(off));
        self.trace_phase(cta, &name, at);
        Ok(())
    }

    /// Wakes the lanes still parked on an mbarrier (entries of lanes woken earlier are stale).
    pub(crate) fn wake_parked(&mut self, parked: Vec<(u32, u32)>, at: u64) {
        for (w, mask) in parked {
            let warp = &self.warps[w as usize];
            let still = lanes(mask & warp.blocked)
                .filter(|&l| matches!(warp.why[l], Block::Parked { .. }))
                .fold(0u32, |m, l| m | 1 << l);
            self.wake_lanes(w as usize, still, at);
        }
    }

    /// test_wait/try_wait for one lane: `Some(result)`, or `None` when the lane parks.
    #[allow(clippy::too_many_arguments)]
    fn mbar_wait(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        cta: u32,
        off: u32,
        parity: bool,
        arg: u64,
        relaxed: bool,
    ) -> Res<Option<bool>> {
        let m = &self.ctas[cta as usize].mbars[&off];
        let phase = m.phase;
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
                    w,
                    lane,
                    pc,
                    cta,
                    off,
                    format!("state 0x{arg:x}, which no mbarrier.arrive returned"),
                ));
            }
            let tp = arg as u32;
            if tp == phase {
                false
            } else if tp.wrapping_add(1) == phase {
                true
            } else {
                return Err(self.phase_error(
                    w,
                    lane,
                    pc,
                    cta,
                    off,
                    format!("phase {tp} (from its state), while the current phase is {phase}"),
                ));
            }
        };
        let t = w as u32 * 32 + lane as u32;
        if done {
            if !relaxed {
                let vc = std::mem::take(
                    &mut self.ctas[cta as usize]
                        .mbars
                        .get_mut(&off)
                        .expect("valid")
                        .done_vc,
                );
                self.race.acquire(t, &vc);
                self.ctas[cta as usize]
                    .mbars
                    .get_mut(&off)
                    .expect("valid")
                    .done_vc = vc;
            }
            let now = self.race.now(t);
            let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
            if m.wait_clock.len() <= t as usize {
                m.wait_clock.resize(t as usize + 1, 0);
            }
            if m.wait_clock[t as usize] == 0 {
                m.wait_clock[t as usize] = now;
                m.waiters.push(t);
            }
            self.warps[w].poll[lane] = None;
            return Ok(Some(true));
        }
        let key = (
            cta,
            off,
            self.ctas[cta as usize].mbars[&off].version,
            self.warps[w].effects,
        );
        if self.warps[w].poll[lane] == Some(key) {
            return Ok(None);
        }
        self.warps[w].poll[lane] = Some(key);
        Ok(Some(false))
    }

    fn phase_error(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        cta: u32,
        off: u32,
        what: String,
    ) -> Stop {
        let m = &self.ctas[cta as usize].mbars[&off];
        Report::new(FindingKind::MbarrierInvalidPhase, "§9.7.13.15.16", format!("wait on {} for {what}", self.mbar_name(cta, off)))
            .site(self.site(w, 1 << lane, pc, "waits"))
            .state(m.describe())
            .note("\"the test_wait and try_wait operations are valid only for the current incomplete phase ... and the immediately preceding phase\"")
            .into()
    }

    /// `mbarrier.pending_count`.
    pub(crate) fn mbar_pending_count(&mut self, w: usize, eff: u32, d: u32, state: Src) {
        for lane in lanes(eff) {
            let s = self.src_value(w, lane, state);
            self.warps[w].set_reg(d, lane, (s >> 32) & MAX_COUNT as u64);
        }
    }
}

use crate::sim::report::Stop;
