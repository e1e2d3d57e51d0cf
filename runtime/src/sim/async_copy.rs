//! The asynchronous proxy: `cp.async.bulk` (global ↔ shared, shared → peer shared) and
//! Ampere's `cp.async` with `cp.async.mbarrier.arrive{.noinc}` (§9.7.13.15.15).
//!
//! An operation is checked and recorded when issued; it completes later, when the scheduler
//! chooses: only then it reads its source, writes its destination and signals its mbarrier
//! (complete-tx of its bytes, or an arrive-on). Bulk stores are tracked in bulk groups
//! (`commit_group`, `wait_group{.read}`), `cp.async` in its own groups.

use crate::sim::barrier::mbarrier::Actor;
use crate::sim::decode::{AtomOp, MbarOp, MemTy};
use crate::sim::machine::Machine;
use crate::sim::memory::{GlobalLoc, SHARED_BASE, load_le, store_le};
use crate::sim::race::{Clock, join_into};
use crate::sim::report::{FindingKind, Report};
use crate::sim::state::{Block, Res, lanes};

/// The source of a copy into shared memory.
#[derive(Clone, Copy, Debug)]
pub(crate) enum From {
    Global(GlobalLoc),
    Shared { cta: u32, off: u32 },
}

#[derive(Clone, Debug)]
pub(crate) enum AsyncKind {
    /// Into the shared memory of CTA `cta`, completing `bytes` of tx on an mbarrier; with
    /// `reduce`, each element combined into the destination's (`cp.reduce.async.bulk`).
    BulkLoad {
        from: From,
        cta: u32,
        off: u32,
        bytes: u32,
        mbar: (u32, u32),
        reduce: Option<(AtomOp, MemTy)>,
    },
    /// From the issuing CTA's shared memory to global memory, combined element by element with
    /// `reduce`.
    BulkStore {
        off: u32,
        to: GlobalLoc,
        bytes: u32,
        reduce: Option<(AtomOp, MemTy)>,
    },
    /// `cp.async`: `src_bytes` from global, zero-filled up to `bytes`.
    CpAsync {
        /// `None` when the source size is 0: nothing is read.
        from: Option<GlobalLoc>,
        off: u32,
        bytes: u32,
        src_bytes: u32,
    },
    /// `cp.async.mbarrier.arrive`: an arrive-on once the thread's earlier `cp.async` complete.
    MbarArrive { mbar: (u32, u32), after: Vec<u64> },
    /// A tensor copy or reduction (`exec::tma`).
    Tensor(Box<crate::sim::exec::TensorCopy>),
}

#[derive(Clone, Debug)]
pub(crate) struct AsyncOp {
    pub id: u64,
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    pub kind: AsyncKind,
    /// The issuing thread's clock at issue, with a new event of its async agent.
    pub vc: Clock,
    pub issued_at: u64,
    /// Bulk group / cp.async group sequence number (`u64::MAX`: not committed yet).
    pub group: u64,
}

/// Groups of one thread: uncommitted operations and committed groups still pending.
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups {
    pub next_group: u64,
    /// Pending operations per committed group: (group, pending count, joined clock).
    pub committed: Vec<(u64, u32, Clock)>,
    pub open: u32,
    pub open_vc: Clock,
}

#[derive(Default)]
pub(crate) struct AsyncState {
    pub pending: Vec<AsyncOp>,
    pub next_id: u64,
    /// Per thread (cluster numbering): bulk-group and cp.async-group bookkeeping.
    pub bulk: Vec<Groups>,
    pub cp: Vec<Groups>,
    /// Per thread: ids of `cp.async` not yet complete (for `cp.async.mbarrier.arrive`).
    pub cp_pending: Vec<Vec<u64>>,
}

impl AsyncState {
    pub(crate) fn new(threads: usize) -> AsyncState {
        AsyncState {
            pending: Vec::new(),
            next_id: 0,
            bulk: vec![Groups::default(); threads],
            cp: vec![Groups::default(); threads],
            cp_pending: vec![Vec::new(); threads],
        }
    }

    /// Ids of the operations that may complete now.
    pub(crate) fn completable(&self) -> Vec<u64> {
        self.pending
            .iter()
            .filter(|op| match &op.kind {
                AsyncKind::MbarArrive { after, .. } => after
                    .iter()
                    .all(|a| !self.pending.iter().any(|p| p.id == *a)),
                _ => true,
            })
            .map(|op| op.id)
            .collect()
    }

    /// Whether thread `t` waits for nothing more than `n` pending committed groups.
    pub(crate) fn groups_done(groups: &Groups, n: u32) -> bool {
        let pending: Vec<_> = groups.committed.iter().filter(|g| g.1 > 0).collect();
        let keep = groups.committed.len().saturating_sub(n as usize);
        // Every group but the newest `n` must be complete.
        groups.committed.iter().take(keep).all(|g| g.1 == 0) && pending.len() <= n as usize
    }
}

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
        let t = w as u32 * 32 + lane as u32;
        let (vc, _) = self.race.issue_async(t);
        let id = self.asyncs.next_id;
        self.asyncs.next_id += 1;
        let mut group = u64::MAX;
        if let Some(is_bulk) = bulk {
            let g = if is_bulk {
                &mut self.asyncs.bulk[t as usize]
            } else {
                &mut self.asyncs.cp[t as usize]
            };
            g.open += 1;
            group = g.next_group;
        }
        if matches!(kind, AsyncKind::CpAsync { .. }) {
            self.asyncs.cp_pending[t as usize].push(id);
        }
        self.warps[w].effects += 1;
        let issued_at = self.warps[w].clock;
        self.stats.async_ops += 1;
        self.asyncs.pending.push(AsyncOp {
            id,
            warp: w as u32,
            lane: lane as u32,
            pc,
            kind,
            vc,
            issued_at,
            group,
        });
    }

    /// `commit_group` for lanes `eff`.
    pub(crate) fn commit_groups(&mut self, w: usize, eff: u32, bulk: bool) {
        for lane in lanes(eff) {
            let t = w * 32 + lane;
            let g = if bulk {
                &mut self.asyncs.bulk[t]
            } else {
                &mut self.asyncs.cp[t]
            };
            let id = g.next_group;
            g.next_group += 1;
            let vc = std::mem::take(&mut g.open_vc);
            g.committed.push((id, g.open, vc));
            g.open = 0;
            g.committed.retain(|c| c.1 > 0 || c.0 + 64 > id);
        }
    }

    /// Completes pending operation `id`.
    pub(crate) fn complete_async(&mut self, id: u64) -> Res<()> {
        let index = self
            .asyncs
            .pending
            .iter()
            .position(|o| o.id == id)
            .expect("pending op");
        let op = self.asyncs.pending.remove(index);
        let t = op.warp * 32 + op.lane;
        let done_at = self.warps[op.warp as usize].clock.max(op.issued_at + 100);
        let actor = Actor {
            warp: op.warp,
            lane: op.lane,
            pc: op.pc,
            async_op: true,
            time: done_at,
        };
        let is_bulk = matches!(
            op.kind,
            AsyncKind::BulkStore { .. } | AsyncKind::BulkLoad { .. } | AsyncKind::Tensor(_)
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
                                .async_read(t, &op.vc, sc, so - SHARED_BASE, *bytes, op.pc)
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
                            &op.vc,
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
                self.async_mbar_valid(mc, mo, actor)?;
                let m = self.ctas[mc as usize].mbars.get_mut(&mo).expect("valid");
                if op.vc.len() > m.cur_vc.len() {
                    m.cur_vc.resize(op.vc.len(), 0);
                }
                join_into(&mut m.cur_vc, &op.vc);
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
                        .async_read(t, &op.vc, cta, off - SHARED_BASE, *bytes, op.pc)
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
                from,
                off,
                bytes,
                src_bytes,
            } => {
                let cta = self.warps[op.warp as usize].cta;
                let mut data = match from {
                    Some(from) => self.mem.global.read_vec(*from, *src_bytes as usize),
                    None => Vec::new(),
                };
                data.resize(*bytes as usize, 0);
                if self.race.checking() {
                    self.race
                        .cp_async_write(t, &op.vc, cta, off - SHARED_BASE, *bytes, op.pc)
                        .map_err(|c| self.race_report(c, cta, t, op.pc, true, false))?;
                }
                let s = (off - SHARED_BASE) as usize;
                self.ctas[cta as usize].shared[s..s + *bytes as usize].copy_from_slice(&data);
                self.asyncs.cp_pending[t as usize].retain(|&i| i != op.id);
            }
            AsyncKind::Tensor(copy) => self.complete_tensor(copy, t, &op.vc, op.pc, actor)?,
            AsyncKind::MbarArrive { mbar, .. } => {
                let (mc, mo) = *mbar;
                self.async_mbar_valid(mc, mo, actor)?;
                self.mbar_arrive(
                    mc,
                    mo,
                    actor,
                    1,
                    false,
                    false,
                    Some(&op.vc),
                    MbarOp::Arrive {
                        drop: false,
                        expect_tx: false,
                        no_complete: false,
                    },
                )?;
            }
        }
        // Group bookkeeping: the issuing thread's waits acquire the operation's clock.
        if op.group != u64::MAX {
            let g = if is_bulk {
                &mut self.asyncs.bulk[t as usize]
            } else {
                &mut self.asyncs.cp[t as usize]
            };
            if let Some(c) = g.committed.iter_mut().find(|c| c.0 == op.group) {
                c.1 -= 1;
                if op.vc.len() > c.2.len() {
                    c.2.resize(op.vc.len(), 0);
                }
                join_into(&mut c.2, &op.vc);
            } else {
                g.open -= 1;
                if op.vc.len() > g.open_vc.len() {
                    g.open_vc.resize(op.vc.len(), 0);
                }
                join_into(&mut g.open_vc, &op.vc);
            }
        }
        self.trace_async(op.warp, op.issued_at, done_at, &op.kind);
        self.wake_async_waiters(op.warp as usize, done_at);
        Ok(())
    }

    pub(crate) fn async_mbar_valid(&self, cta: u32, off: u32, actor: Actor) -> Res<()> {
        if self.ctas[cta as usize]
            .mbars
            .get(&off)
            .is_some_and(|m| m.valid)
        {
            return Ok(());
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

    /// Wakes lanes of warp `w` blocked in `wait_group` whose groups are now done.
    pub(crate) fn wake_async_waiters(&mut self, w: usize, at: u64) {
        let warp = &self.warps[w];
        let waiting: Vec<usize> = lanes(warp.blocked)
            .filter(|&l| warp.why[l] == Block::AsyncWait)
            .collect();
        for lane in waiting {
            let pc = self.warps[w].wait_pc[lane];
            let (n, bulk) = match &self.prog.ops[pc as usize].kind {
                crate::sim::decode::Kind::BulkWait { n, .. } => (*n, true),
                crate::sim::decode::Kind::CpAsyncWait { n } => (n.unwrap_or(0), false),
                _ => continue,
            };
            let t = w * 32 + lane;
            if self.async_wait_satisfied(t, n, bulk, pc) {
                self.acquire_groups(t as u32, bulk);
                self.wake_lanes(w, 1 << lane, at);
            }
        }
    }

    pub(crate) fn async_wait_satisfied(&self, t: usize, n: u32, bulk: bool, pc: u32) -> bool {
        let wait_all = matches!(
            self.prog.ops[pc as usize].kind,
            crate::sim::decode::Kind::CpAsyncWait { n: None }
        );
        let g = if bulk {
            &self.asyncs.bulk[t]
        } else {
            &self.asyncs.cp[t]
        };
        AsyncState::groups_done(g, n) && (!wait_all || g.open == 0)
    }

    /// The waiting thread acquires the clocks of its completed groups.
    pub(crate) fn acquire_groups(&mut self, t: u32, bulk: bool) {
        let g = if bulk {
            &self.asyncs.bulk[t as usize]
        } else {
            &self.asyncs.cp[t as usize]
        };
        let mut vc = Vec::new();
        for c in g.committed.iter().filter(|c| c.1 == 0) {
            if c.2.len() > vc.len() {
                vc.resize(c.2.len(), 0);
            }
            join_into(&mut vc, &c.2);
        }
        if g.open_vc.len() > vc.len() {
            vc.resize(g.open_vc.len(), 0);
        }
        join_into(&mut vc, &g.open_vc);
        self.race.acquire(t, &vc);
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
        let new = crate::sim::exec::atomic_value(op, ty, load_le(d), load_le(x), 0);
        store_le(d, new);
    }
}
