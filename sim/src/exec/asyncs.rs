//! The machine's side of the asynchronous proxy (`async_copy`): issuing operations,
//! completing them (reading their source, writing their destination, signalling their
//! mbarrier) and waking the threads that wait for their groups.

use crate::async_copy::{AsyncKind, AsyncOp, CpLane, From, Issue};
use crate::barrier::mbarrier::Actor;
use crate::decode::{AtomOp, MbarOp, MemTy};
use crate::machine::Machine;
use crate::memory::{SHARED_BASE, load_le, store_le};
use crate::report::{FindingKind, Report};
use crate::state::{Block, Res, lanes};

impl Machine<'_> {
    /// Records an async operation issued by `lane` of warp `w`.
    pub(crate) fn issue_async(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        kind: AsyncKind,
        bulk: Option<bool>,
    ) {
        let by = self.issue_by(w, lane as u32, bulk);
        self.queue_async(w, pc, kind, by);
    }

    /// The `cp.async` of lanes `lanes` (lane, source, shared address, source bytes) of one
    /// instruction of warp `w`, `bytes` each: one operation (see [`AsyncKind::CpAsync`]).
    pub(crate) fn issue_cp_async(
        &mut self,
        w: usize,
        pc: u32,
        bytes: u32,
        issued: &[(u32, Option<crate::memory::GlobalLoc>, u32, u32)],
    ) {
        let (mut lanes, mut bases) = self.asyncs.cp_buffers.pop().unwrap_or_default();
        lanes.reserve(issued.len());
        let mut first = None;
        for &(lane, from, off, src_bytes) in issued {
            let t = w as u32 * 32 + lane;
            let issued = self.race.issue_async_parts(t);
            let group = self.asyncs.join_group(t, false);
            let snapshot = self.race.issued_base(t);
            let base = match bases
                .iter()
                .rposition(|b| std::sync::Arc::ptr_eq(b, snapshot))
            {
                Some(i) => i,
                None => {
                    bases.push(snapshot.clone());
                    bases.len() - 1
                }
            };
            if first.is_none() {
                let vc = crate::race::OpClock::of(snapshot.clone(), t, issued);
                first = Some((lane, vc, group));
            }
            lanes.push(CpLane {
                lane,
                from,
                off,
                src_bytes,
                base: base as u32,
                issued,
                group,
            });
        }
        let Some((lane, vc, group)) = first else {
            self.asyncs.cp_buffers.push((lanes, bases));
            return;
        };
        let by = Issue { lane, vc, group };
        self.stats.async_ops += lanes.len() as u64 - 1;
        self.queue_async(
            w,
            pc,
            AsyncKind::CpAsync {
                bytes,
                lanes,
                bases,
            },
            by,
        );
    }

    /// The clock and group of an operation lane `lane` of warp `w` issues now; `bulk` names
    /// its group kind, if it joins one.
    fn issue_by(&mut self, w: usize, lane: u32, bulk: Option<bool>) -> Issue {
        let t = w as u32 * 32 + lane;
        Issue {
            lane,
            vc: self.race.issue_async(t),
            group: bulk.map_or(u64::MAX, |b| self.asyncs.join_group(t, b)),
        }
    }

    fn queue_async(&mut self, w: usize, pc: u32, kind: AsyncKind, by: Issue) {
        self.warps[w].effects += 1;
        self.stats.async_ops += 1;
        let issued_at = self.warps[w].clock;
        let ready = !matches!(kind, AsyncKind::Unknown { .. });
        self.asyncs.issue(AsyncOp {
            id: 0,
            warp: w as u32,
            pc,
            kind,
            by,
            issued_at,
            ready,
        });
    }

    /// Issues a copy of lane `lane` of warp `w` whose transactions complete on mbarrier `mbar`
    /// (CTA rank, offset), and logs its barrier event: "issues `copy()` that completes
    /// transactions on ...". A copy of unknown size (`AsyncKind::Unknown`) is counted on the
    /// object as one that leaves its tx-count open.
    pub(crate) fn issue_on_mbarrier(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        mbar: (u32, u32),
        kind: AsyncKind,
        copy: impl FnOnce() -> String,
    ) {
        let (mc, mo) = mbar;
        if matches!(kind, AsyncKind::Unknown { .. }) {
            self.ctas[mc as usize]
                .mbars
                .get_mut(&mo)
                .expect("the caller checked the object is valid")
                .unknown_issued();
        }
        let name = self.shared_name(mo);
        self.log_event(
            w,
            1 << lane,
            pc,
            Some(crate::report::Object::Mbarrier {
                cta: mc,
                offset: mo,
            }),
            crate::event_log::LogKind::Issue,
            None,
            || {
                format!(
                    "issues {} that completes transactions on {name} of CTA rank {mc}",
                    copy()
                )
            },
        );
        self.issue_async(w, lane, pc, kind, None);
    }

    /// `commit_group` for lanes `eff`.
    pub(crate) fn commit_groups(&mut self, w: usize, eff: u32, bulk: bool) {
        for lane in lanes(eff) {
            self.asyncs.commit((w * 32 + lane) as u32, bulk);
        }
    }

    /// Completes pending operation `id`.
    pub(crate) fn complete_async(&mut self, id: u64) -> Res<()> {
        let op = self.asyncs.take(id);
        let t = op.warp * 32 + op.by.lane;
        let done_at = self.warps[op.warp as usize].clock.max(op.issued_at + 100);
        let actor = Actor {
            warp: op.warp,
            lane: op.by.lane,
            pc: op.pc,
            async_op: true,
            time: done_at,
        };
        let is_bulk = matches!(
            op.kind,
            AsyncKind::BulkStore { .. }
                | AsyncKind::BulkLoad { .. }
                | AsyncKind::Tensor(_)
                | AsyncKind::Unknown { .. }
        );
        match &op.kind {
            AsyncKind::BulkLoad {
                from,
                cta,
                off,
                bytes,
                mbar,
                reduce,
            } => {
                let data = match *from {
                    From::Global(loc) => self.mem.global.read_vec(loc, *bytes as usize),
                    From::Shared { cta: sc, off: so } => {
                        if self.race.checking() {
                            self.race
                                .async_read(t, &op.by.vc, sc, so - SHARED_BASE, *bytes, op.pc)
                                .map_err(|c| self.race_report(c, sc, t, op.pc, true, true))?;
                        }
                        let s = (so - SHARED_BASE) as usize;
                        self.ctas[sc as usize].shared[s..s + *bytes as usize].to_vec()
                    }
                };
                if self.race.checking() {
                    self.race
                        .async_write(
                            t,
                            &op.by.vc,
                            *cta,
                            off - SHARED_BASE,
                            *bytes,
                            op.pc,
                            reduce.is_some(),
                        )
                        .map_err(|c| self.race_report(c, *cta, t, op.pc, true, false))?;
                }
                let s = (off - SHARED_BASE) as usize;
                combine(
                    &mut self.ctas[*cta as usize].shared[s..s + *bytes as usize],
                    &data,
                    *reduce,
                );
                let (mc, mo) = *mbar;
                self.async_mbar_valid(mc, mo, actor, &op.by.vc)?;
                let m = self.ctas[mc as usize].mbars.get_mut(&mo).expect("valid");
                op.by.vc.join_into(&mut m.cur_vc);
                let (n, name) = (*bytes, self.shared_name(mo));
                self.log_event(
                    op.warp as usize,
                    1 << op.by.lane,
                    op.pc,
                    Some(crate::report::Object::Mbarrier {
                        cta: mc,
                        offset: mo,
                    }),
                    crate::event_log::LogKind::Complete,
                    None,
                    || format!("its bulk copy completes {n} bytes of transactions on {name}"),
                );
                self.mbar_tx(mc, mo, actor, -(*bytes as i64), MbarOp::CompleteTx)?;
            }
            AsyncKind::BulkStore {
                off,
                to,
                bytes,
                reduce,
            } => {
                let cta = self.warps[op.warp as usize].cta;
                if self.race.checking() {
                    self.race
                        .async_read(t, &op.by.vc, cta, off - SHARED_BASE, *bytes, op.pc)
                        .map_err(|c| self.race_report(c, cta, t, op.pc, true, true))?;
                }
                let s = (off - SHARED_BASE) as usize;
                let data = self.ctas[cta as usize].shared[s..s + *bytes as usize].to_vec();
                let mut out = if reduce.is_some() {
                    self.mem.global.read_vec(*to, *bytes as usize)
                } else {
                    vec![0; *bytes as usize]
                };
                combine(&mut out, &data, *reduce);
                self.mem.global.write(*to, &out);
            }
            AsyncKind::CpAsync {
                bytes,
                lanes,
                bases,
            } => {
                let cta = self.warps[op.warp as usize].cta;
                let n = *bytes as usize;
                // The lanes' race checks first, all at once (`Race::cp_async_writes`), then
                // the copies of the lanes before the first conflict: the checks read no data,
                // so the buffers and the report are those of each lane checked and copied in
                // turn.
                let checked = if self.race.checking() {
                    self.race
                        .cp_async_writes(cta, *bytes, op.pc, lanes.len(), |i| {
                            let l = &lanes[i];
                            let t = op.warp * 32 + l.lane;
                            let vc =
                                crate::race::LaneClock::of(&bases[l.base as usize], t, l.issued);
                            (t, vc, l.off - SHARED_BASE)
                        })
                } else {
                    Ok(())
                };
                let copied = checked.as_ref().map_or_else(|&(i, _)| i, |()| lanes.len());
                for l in &lanes[..copied] {
                    // Zero-filled past the source bytes (at most 16).
                    let mut data = [0u8; 16];
                    if let Some(from) = l.from {
                        self.mem
                            .global
                            .read_lane(from, &mut data[..l.src_bytes as usize]);
                    }
                    let s = (l.off - SHARED_BASE) as usize;
                    crate::overlay::copy_bytes(
                        &mut self.ctas[cta as usize].shared[s..s + n],
                        &data[..n],
                    );
                }
                if let Err((i, c)) = checked {
                    let t = op.warp * 32 + lanes[i].lane;
                    return Err(self.race_report(c, cta, t, op.pc, true, false));
                }
            }
            AsyncKind::Tensor(copy) => self.complete_tensor(copy, t, &op.by.vc, op.pc, actor)?,
            AsyncKind::Unknown { mbar: None } => {}
            AsyncKind::Unknown {
                mbar: Some((mc, mo)),
            } => {
                let (mc, mo) = (*mc, *mo);
                self.async_mbar_valid(mc, mo, actor, &op.by.vc)?;
                let name = self.mbar_namer(mc, mo);
                let m = self.ctas[mc as usize].mbars.get_mut(&mo).expect("valid");
                op.by.vc.join_into(&mut m.cur_vc);
                let done = m.unknown_completed(actor, &name).map_err(|v| {
                    self.violation_on(
                        v,
                        crate::report::Object::Mbarrier {
                            cta: mc,
                            offset: mo,
                        },
                    )
                })?;
                self.log_event(
                    op.warp as usize,
                    1 << op.by.lane,
                    op.pc,
                    Some(crate::report::Object::Mbarrier {
                        cta: mc,
                        offset: mo,
                    }),
                    crate::event_log::LogKind::Complete,
                    None,
                    || "its tensor copy completes its transactions".to_string(),
                );
                if let Some(parked) = done {
                    self.mbar_completed(mc, mo, parked, actor);
                }
            }
            AsyncKind::MbarArrive { mbar, .. } => {
                let (mc, mo) = *mbar;
                self.async_mbar_valid(mc, mo, actor, &op.by.vc)?;
                let name = self.shared_name(mo);
                self.log_event(
                    op.warp as usize,
                    1 << op.by.lane,
                    op.pc,
                    Some(crate::report::Object::Mbarrier {
                        cta: mc,
                        offset: mo,
                    }),
                    crate::event_log::LogKind::Complete,
                    None,
                    || format!("its cp.async operations are done: asynchronous arrive on {name}"),
                );
                self.mbar_arrive(
                    mc,
                    mo,
                    actor,
                    1,
                    false,
                    false,
                    Some(&op.by.vc.to_clock()),
                    MbarOp::Arrive {
                        drop: false,
                        expect_tx: false,
                        no_complete: false,
                    },
                )?;
            }
        }
        let changed = self.asyncs.retire(&op, is_bulk);
        self.trace_async(op.warp, op.issued_at, done_at, &op.kind);
        self.wake_async_waiters(op.warp as usize, done_at, changed);
        if let AsyncKind::CpAsync {
            mut lanes,
            mut bases,
            ..
        } = op.kind
        {
            lanes.clear();
            bases.clear();
            self.asyncs.cp_buffers.push((lanes, bases));
        }
        Ok(())
    }

    pub(crate) fn async_mbar_valid(
        &self,
        cta: u32,
        off: u32,
        actor: Actor,
        vc: &crate::race::OpClock,
    ) -> Res<()> {
        if let Some(m) = self.ctas[cta as usize].mbars.get(&off).filter(|m| m.valid) {
            let name = self.mbar_namer(cta, off);
            let issuer = actor.warp * 32 + actor.lane;
            return crate::barrier::mbarrier::require_valid(
                Some(m),
                actor,
                issuer,
                vc,
                MbarOp::CompleteTx,
                &name,
            )
            .map_err(|v| {
                self.violation_on(v, crate::report::Object::Mbarrier { cta, offset: off })
            });
        }
        Err(Report::new(
            FindingKind::MbarrierUninitialized,
            "§9.7.13.15",
            format!(
                "an asynchronous operation completes on an invalid mbarrier ({})",
                self.mbar_name(cta, off)
            ),
        )
        .site(self.actor_site(actor, "issued the operation"))
        .note("the mbarrier was invalidated (or never initialised) before the operation completed")
        .into())
    }

    /// Wakes lanes of warp `w` blocked in `wait_group` whose groups are now done. Only the
    /// lanes of `changed` are looked at: a lane blocks only while its wait is not satisfied,
    /// and only its own operations' completions change its groups' counts, which alone
    /// decide the wait ([`crate::async_copy::AsyncState::retire`] says which changed). Each
    /// completion looked at every waiting lane before, most of them unchanged (2.5 % of the
    /// Triton softmax's host instructions); the test builds check that the others stay
    /// unsatisfied.
    pub(crate) fn wake_async_waiters(&mut self, w: usize, at: u64, changed: u32) {
        let warp = &self.warps[w];
        let waiting = lanes(warp.blocked & changed)
            .filter(|&l| warp.why[l] == Block::AsyncWait)
            .fold(0u32, |m, l| m | 1 << l);
        #[cfg(debug_assertions)]
        for lane in lanes(warp.blocked & !changed).filter(|&l| warp.why[l] == Block::AsyncWait) {
            let pc = self.warps[w].wait_pc[lane];
            if let Some((n, bulk)) = self.wait_of(pc) {
                debug_assert!(
                    !self.async_wait_satisfied(w * 32 + lane, n, bulk, pc),
                    "lane {lane} of warp {w} satisfied by a completion that did not change it"
                );
            }
        }
        for lane in lanes(waiting) {
            let pc = self.warps[w].wait_pc[lane];
            let Some((n, bulk)) = self.wait_of(pc) else {
                continue;
            };
            let t = w * 32 + lane;
            if self.async_wait_satisfied(t, n, bulk, pc) {
                self.acquire_groups(t as u32, bulk);
                self.wake_lanes(w, 1 << lane, at);
            }
        }
    }

    /// The groups a wait at `pc` leaves pending at most, and whether they are bulk groups;
    /// `None` if `pc` is no wait.
    fn wait_of(&self, pc: u32) -> Option<(u32, bool)> {
        match &self.prog.ops[pc as usize].kind {
            crate::decode::Kind::BulkWait { n, .. } => Some((*n, true)),
            crate::decode::Kind::CpAsyncWait { n } => Some((n.unwrap_or(0), false)),
            _ => None,
        }
    }

    pub(crate) fn async_wait_satisfied(&self, t: usize, n: u32, bulk: bool, pc: u32) -> bool {
        let wait_all = matches!(
            self.prog.ops[pc as usize].kind,
            crate::decode::Kind::CpAsyncWait { n: None }
        );
        self.asyncs.wait_satisfied(t as u32, n, bulk, wait_all)
    }

    /// The waiting thread acquires the completion of its completed groups.
    pub(crate) fn acquire_groups(&mut self, t: u32, bulk: bool) {
        let event = self.asyncs.completed_event(t, bulk);
        self.race.acquire_agent(t, event);
    }
}

/// Writes `data` over `dst`, or with `reduce` combines it element by element (little-endian
/// elements of the type's size; the bulk size is a multiple of 16, so whole elements).
fn combine(dst: &mut [u8], data: &[u8], reduce: Option<(AtomOp, MemTy)>) {
    let Some((op, ty)) = reduce else {
        dst.copy_from_slice(data);
        return;
    };
    let n = ty.bytes() as usize;
    for (d, x) in dst.chunks_exact_mut(n).zip(data.chunks_exact(n)) {
        let new = super::mem::atomic_value(op, ty, load_le(d), load_le(x), 0);
        store_le(d, new);
    }
}
