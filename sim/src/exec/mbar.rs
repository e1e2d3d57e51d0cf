//! The machine's side of mbarrier objects: reading an `mbarrier.*` instruction's operands
//! and locating its object, then parking and waking the lanes the object's state machine
//! (`barrier::mbarrier`) names, with stats and trace events.

use crate::barrier::At;
use crate::barrier::mbarrier::{self, Actor, MAX_COUNT, MBarrier, Parked};
use crate::decode::{Addr, MbarOp, SINK, Space, Src};
use crate::machine::Machine;
use crate::memory::{SHARED_GENERIC, cta_offset};
use crate::report::{FindingKind, Report};
use crate::state::{Block, Res, lanes};

impl<'a> Machine<'a> {
    /// How reports name the mbarrier at `off` of CTA `cta`, made only when one is.
    pub(crate) fn mbar_namer(&self, cta: u32, off: u32) -> impl Fn() -> String + use<'a> {
        let (prog, ctaid) = (self.prog, self.ctas[cta as usize].ctaid);
        move || {
            format!(
                "mbarrier {} of cta {ctaid:?}",
                super::sites::shared_name(prog, off)
            )
        }
    }

    pub(crate) fn mbar_name(&self, cta: u32, off: u32) -> String {
        self.mbar_namer(cta, off)()
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
        // For the log of a probe run: (cta, offset, lanes, succeeded lanes) per object.
        let logging = self.made.as_ref().is_some_and(|m| m.log.is_some());
        let mut touched: Vec<(u32, u32, u32, u32, u32)> = Vec::new();
        // Objects this instruction initialised, with their counts: lanes of one `mbarrier.init`
        // that name one object with one count are one initialisation (a warp that initialises
        // its barriers, as ThunderKittens does), not a re-initialisation of a valid object.
        let mut initialised: Vec<(u32, u32, i64)> = Vec::new();
        for lane in lanes(eff) {
            let at = self.addr_value(w, lane, addr);
            let (cta, off) = match located {
                Some((a, target)) if a == at => target,
                _ => {
                    let target = self.mbar_locate(w, lane, pc, space, at, mbarrier::section(op))?;
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
                return Err(Report::new(FindingKind::MbarrierAddress, "§9.7.13.15.8", format!("{} on an mbarrier of another CTA", mbarrier::op_name(op)))
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
                return Err(Report::new(FindingKind::MbarrierAddress, "§9.7.13.15.13", format!("{} on an mbarrier of another CTA returns a state", mbarrier::op_name(op)))
                    .site(self.site(w, 1 << lane, pc, "names a destination"))
                    .note("an arrive on a .shared::cluster mbarrier outside the executing CTA cannot return a value: the destination must be the sink `_`")
                    .into());
            }
            if logging && !touched.iter().any(|t| t.0 == cta && t.1 == off) {
                let phase = self.ctas[cta as usize]
                    .mbars
                    .get(&off)
                    .map_or(0, |m| m.phase);
                touched.push((cta, off, 0, 0, phase));
            }
            if op != MbarOp::Init {
                let name = self.mbar_namer(cta, off);
                let m = self.ctas[cta as usize].mbars.get(&off);
                let t = w as u32 * 32 + lane as u32;
                mbarrier::require_valid(m, actor, t, &self.race.seen(t), op, &name).map_err(
                    |v| self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off }),
                )?;
            }
            match op {
                MbarOp::Init => {
                    let count = arg as u32 as i64;
                    if !initialised.contains(&(cta, off, count)) {
                        self.mbar_init(cta, off, actor, count)?;
                        initialised.push((cta, off, count));
                    }
                }
                MbarOp::Inval => {
                    let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
                    let parked = m.inval(actor);
                    self.ctas[cta as usize].set_mbar_slot(off, false);
                    self.wake_parked(parked, 0);
                }
                MbarOp::ExpectTx if self.unknown_bytes(pc) => {
                    self.mbar_unknown_expect(cta, off, actor)?
                }
                MbarOp::ExpectTx => self.mbar_tx(cta, off, actor, arg as u32 as i64, op)?,
                MbarOp::CompleteTx => self.mbar_tx(cta, off, actor, -(arg as u32 as i64), op)?,
                MbarOp::Arrive {
                    drop,
                    expect_tx,
                    no_complete,
                } => {
                    if expect_tx && self.unknown_bytes(pc) {
                        self.mbar_unknown_expect(cta, off, actor)?;
                    } else if expect_tx {
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
                            if done && logging {
                                note(&mut touched, cta, off, 0, 1 << lane);
                            }
                            self.warps[w].set_reg(d, lane, done as u64)
                        }
                        None => parked |= 1 << lane,
                    }
                }
            }
            if logging {
                note(&mut touched, cta, off, 1 << lane, 0);
            }
        }
        if logging {
            self.log_mbarrier(
                w,
                pc,
                op,
                a.map(|s| self.src_value(w, eff.trailing_zeros() as usize, s)),
                &touched,
            );
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
            if self.tracing() {
                let own = self.warps[w].cta;
                let what = format!("{} {}", mbarrier::op_name(op), self.shared_name(off));
                self.trace_barrier(w, own, || what, false);
            }
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

    /// Logs what an `mbarrier` instruction did to each object it touched (`touched`: cta,
    /// offset, lanes, lanes whose wait succeeded, phase before the instruction), with the
    /// object's state after it.
    fn log_mbarrier(
        &mut self,
        w: usize,
        pc: u32,
        op: MbarOp,
        arg: Option<u64>,
        touched: &[(u32, u32, u32, u32, u32)],
    ) {
        use crate::event_log::LogKind;
        for &(cta, off, lanes, done, before) in touched {
            let before = before as i64;
            let name = self.shared_name(off);
            let state = self.ctas[cta as usize]
                .mbars
                .get(&off)
                .map_or_else(|| "invalidated".to_string(), |m| m.describe());
            let object = Some(crate::report::Object::Mbarrier { cta, offset: off });
            let arg = arg.unwrap_or(0);
            let (kind, what) = match op {
                MbarOp::Init => (
                    LogKind::Init,
                    format!("mbarrier.init {name} with count {arg}"),
                ),
                MbarOp::Inval => (LogKind::Inval, format!("mbarrier.inval {name}")),
                MbarOp::ExpectTx => (LogKind::Expect, format!("expect_tx {arg} bytes on {name}")),
                MbarOp::CompleteTx => (
                    LogKind::Complete,
                    format!("complete_tx {arg} bytes on {name}"),
                ),
                MbarOp::Arrive {
                    expect_tx: true, ..
                } => (
                    LogKind::Arrive,
                    format!("arrive on {name} expecting {arg} bytes"),
                ),
                MbarOp::Arrive { .. } => (LogKind::Arrive, format!("arrive on {name}")),
                MbarOp::TestWait { parity, .. } | MbarOp::TryWait { parity, .. } => {
                    let which = if matches!(op, MbarOp::TestWait { .. }) {
                        "test_wait"
                    } else {
                        "try_wait"
                    };
                    let on = if parity {
                        format!("parity {}", arg & 1)
                    } else {
                        format!("the phase of state 0x{arg:x}")
                    };
                    if done != 0 {
                        self.log_event(
                            w,
                            done,
                            pc,
                            object,
                            LogKind::WaitDone,
                            Some(before - 1),
                            || format!("{which} on {name} for {on} returns true: {state}"),
                        );
                    }
                    if lanes & !done != 0 {
                        self.log_event(
                            w,
                            lanes & !done,
                            pc,
                            object,
                            LogKind::WaitPending,
                            Some(before),
                            || format!("{which} on {name} for {on} returns false: {state}"),
                        );
                    }
                    continue;
                }
            };
            self.log_event(w, lanes, pc, object, kind, Some(before), || {
                format!("{what}: {state}")
            });
        }
    }

    fn mbar_init(&mut self, cta: u32, off: u32, actor: Actor, count: i64) -> Res<()> {
        let name = self.mbar_namer(cta, off);
        // The initialisation is a new epoch of its thread: what others learnt of the thread
        // before it does not order them after it.
        let t = actor.warp * 32 + actor.lane;
        self.race.tick(t);
        let epoch = (t, self.race.now(t));
        let m = MBarrier::init(
            self.ctas[cta as usize].mbars.get(&off),
            count,
            actor,
            epoch,
            &name,
        )
        .map_err(|v| self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off }))?;
        let c = &mut self.ctas[cta as usize];
        c.mbars.insert(off, m);
        c.set_mbar_slot(off, true);
        Ok(())
    }

    /// An expect-tx of unknown size ([`crate::probe::Probe::unknown_bytes`]).
    fn mbar_unknown_expect(&mut self, cta: u32, off: u32, actor: Actor) -> Res<()> {
        let name = self.mbar_namer(cta, off);
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let done = m.unknown_expected(actor, &name).map_err(|v| {
            self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off })
        })?;
        if let Some(parked) = done {
            self.mbar_completed(cta, off, parked, actor);
        }
        Ok(())
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
        let name = self.mbar_namer(cta, off);
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let done = m.tx(actor, delta, op, &name).map_err(|v| {
            self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off })
        })?;
        if let Some(parked) = done {
            self.mbar_completed(cta, off, parked, actor);
        }
        Ok(())
    }

    /// An arrive-on of `count` (see [`MBarrier::arrive`]); returns the state token.
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
        let name = self.mbar_namer(cta, off);
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let (before, done) = m
            .arrive(
                actor,
                count,
                drop,
                no_complete,
                vc,
                op,
                &mut self.race,
                &name,
            )
            .map_err(|v| {
                self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off })
            })?;
        if let Some(parked) = done {
            self.mbar_completed(cta, off, parked, actor);
        }
        Ok(before)
    }

    /// A phase of the mbarrier at `off` of CTA `cta` completed, by `actor`'s operation.
    pub(crate) fn mbar_completed(&mut self, cta: u32, off: u32, parked: Parked, actor: Actor) {
        let at = actor.time;
        self.stats.mbarrier_phases += 1;
        self.wake_parked(parked, at);
        let name = format!("mbarrier {}", self.shared_name(off));
        self.trace_phase(cta, &name, at);
        if self.made.is_some() {
            let m = &self.ctas[cta as usize].mbars[&off];
            let (done, next) = (m.phase.wrapping_sub(1), m.phase);
            let short = self.shared_name(off);
            self.log_event(
                actor.warp as usize,
                1 << actor.lane,
                actor.pc,
                Some(crate::report::Object::Mbarrier { cta, offset: off }),
                crate::event_log::LogKind::Phase,
                Some(done as i64),
                || {
                    format!(
                        "{short} completes phase {done} (parity {}); phase {next} begins",
                        done & 1
                    )
                },
            );
        }
    }

    /// Wakes the lanes still parked on an mbarrier (entries of lanes woken earlier are stale).
    pub(crate) fn wake_parked(&mut self, parked: Parked, at: u64) {
        for (w, mask) in parked {
            let warp = &self.warps[w as usize];
            let still = lanes(mask & warp.blocked)
                .filter(|&l| matches!(warp.why[l], Block::Parked { .. }))
                .fold(0u32, |m, l| m | 1 << l);
            self.wake_lanes(w as usize, still, at);
        }
    }

    /// test_wait/try_wait for one lane: `Some(result)`, or `None` when the lane parks: its
    /// poll failed before with no change to the mbarrier and no side effect of its warp since.
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
        let name = self.mbar_namer(cta, off);
        let at = At {
            warp: w as u32,
            lanes: 1 << lane,
            pc,
        };
        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
        let done = m
            .wait(at, parity, arg, relaxed, &mut self.race, &name)
            .map_err(|v| {
                self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off })
            })?;
        if done {
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

    /// `mbarrier.pending_count`.
    pub(crate) fn mbar_pending_count(&mut self, w: usize, eff: u32, d: u32, state: Src) {
        for lane in lanes(eff) {
            let s = self.src_value(w, lane, state);
            self.warps[w].set_reg(d, lane, (s >> 32) & MAX_COUNT as u64);
        }
    }
}

/// Adds `lanes` (and `done`) to the entry of object (`cta`, `off`) in `touched`.
fn note(touched: &mut [(u32, u32, u32, u32, u32)], cta: u32, off: u32, lanes: u32, done: u32) {
    if let Some(t) = touched.iter_mut().find(|t| t.0 == cta && t.1 == off) {
        t.2 |= lanes;
        t.3 |= done;
    }
}
