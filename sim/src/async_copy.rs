//! The asynchronous proxy: `cp.async.bulk` (global ↔ shared, shared → peer shared) and
//! Ampere's `cp.async` with `cp.async.mbarrier.arrive{.noinc}` (§9.7.13.15.15).
//!
//! An operation is checked and recorded when issued; it completes later, when the scheduler
//! chooses: only then it reads its source, writes its destination and signals its mbarrier
//! (complete-tx of its bytes, or an arrive-on). Bulk stores are tracked in bulk groups
//! (`commit_group`, `wait_group{.read}`), `cp.async` in its own groups.

use crate::decode::{AtomOp, MemTy};
use crate::memory::GlobalLoc;
use crate::race::{IssuedAsync, OpClock};
use crate::tensor_copy::TensorCopy;

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
    /// `cp.async` of a warp's lanes (one warp instruction): each lane copies `src_bytes` from
    /// global, zero-filled up to `bytes` (at most 16). The lanes complete together, one legal
    /// order of many, and one scheduling decision and queue entry instead of 32: real kernels
    /// keep thousands of them in flight.
    CpAsync {
        bytes: u32,
        lanes: Vec<CpLane>,
        /// The issuing threads' snapshots the lanes' clocks are based on ([`CpLane::base`]):
        /// after a barrier, one for the whole warp.
        bases: Vec<std::sync::Arc<[u32]>>,
    },
    /// `cp.async.mbarrier.arrive`: an arrive-on once the thread's earlier `cp.async` complete.
    MbarArrive { mbar: (u32, u32), after: Vec<u64> },
    /// A tensor copy or reduction (`exec::tma`).
    Tensor(Box<TensorCopy>),
    /// A tensor copy whose tensor map the run does not know (the analyzer's runs make their
    /// inputs up): it moves no data, and a load completes an unknown number of bytes on its
    /// mbarrier (`MBarrier::unknown_completed`).
    Unknown {
        /// A load's mbarrier (CTA, offset); `None` for a store.
        mbar: Option<(u32, u32)>,
    },
}

/// One lane's `cp.async` of a warp instruction.
#[derive(Clone, Debug)]
pub(crate) struct CpLane {
    pub lane: u32,
    /// `None` when the source size is 0: nothing is read.
    pub from: Option<GlobalLoc>,
    pub off: u32,
    pub src_bytes: u32,
    /// Its clock: `bases[base]` of the operation with these components apart
    /// (`race::LaneClock`).
    pub base: u32,
    pub issued: IssuedAsync,
    /// The cp.async group it joins.
    pub group: u64,
}

/// Who issued an operation, and what for its groups.
#[derive(Clone, Debug)]
pub(crate) struct Issue {
    pub lane: u32,
    /// The issuing thread's clock at issue, with a new event of its async agent.
    pub vc: OpClock,
    /// The bulk or cp.async group it joins (`u64::MAX`: none; see [`Groups`]).
    pub group: u64,
}

#[derive(Clone, Debug)]
pub(crate) struct AsyncOp {
    pub id: u64,
    pub warp: u32,
    pub pc: u32,
    pub kind: AsyncKind,
    /// The issuing lane (a `cp.async`'s first lane; [`AsyncOp::issues`] gives every lane).
    pub by: Issue,
    pub issued_at: u64,
    /// Whether it may complete. A copy of unknown size completes only when nothing else can
    /// happen ([`AsyncState::release_all`]): its mbarrier can then count every copy issued for
    /// the phase (the A and B tiles of a stage, a peer's multicast) before it decides whether
    /// their bytes can be what the phase expects. Copies may be that slow on a GPU, so this is
    /// one legal order; completing one copy early would make its unknown size be the whole
    /// phase's, which the other copies then contradict.
    pub ready: bool,
}

impl AsyncOp {
    /// Every lane that issued the operation, with the group it joined and its event: a
    /// `cp.async`'s lanes, else the one issuer.
    pub(crate) fn issues(&self) -> impl Iterator<Item = (u32, u64, u32)> + '_ {
        let (lanes, one) = match &self.kind {
            AsyncKind::CpAsync { lanes, .. } => (
                Some(lanes.iter().map(|l| (l.lane, l.group, l.issued.event))),
                None,
            ),
            _ => (
                None,
                Some((self.by.lane, self.by.group, self.by.vc.event())),
            ),
        };
        lanes.into_iter().flatten().chain(one)
    }
}

/// Groups of one thread: uncommitted operations and committed groups still pending.
///
/// A thread that waits for its groups acquires what their operations did: their clocks are
/// the thread's own clock at each issue (which it has seen since) but for its async agent's
/// component, so a group keeps only the latest agent event of its completed operations.
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups {
    pub next_group: u64,
    /// Committed groups in commit order from the oldest with operations pending: (group,
    /// pending count, latest agent event completed). Completed groups leave the front into
    /// `done_event`.
    pub committed: std::collections::VecDeque<(u64, u32, u32)>,
    /// The latest agent event of the completed groups that left `committed`.
    pub done_event: u32,
    pub open: u32,
    /// The latest agent event of completed operations not committed yet.
    pub open_event: u32,
}

impl Groups {
    /// Moves the completed groups at the front of `committed` into `done_event`.
    fn settle(&mut self) {
        while self.committed.front().is_some_and(|c| c.1 == 0) {
            let (_, _, event) = self.committed.pop_front().expect("a front");
            self.done_event = self.done_event.max(event);
        }
    }
}

/// How many completable operations a scheduling decision chooses among.
const OFFERED: usize = 64;

/// The operations in flight, by id: a flat table from the oldest one still in flight (ids
/// count up from 0 in issue order, and completions take them from near the front). It counts
/// the operations that are not simply completable ([`AsyncOp::ready`] false, and
/// `cp.async.mbarrier.arrive`), so that the run loop's question at every decision, which may
/// complete now, is the first [`OFFERED`] entries when there are none.
#[derive(Default)]
pub(crate) struct InFlight {
    /// The id of `ops[0]`.
    first: u64,
    /// `None`: completed (the front is always an operation in flight, or `ops` is empty).
    ops: std::collections::VecDeque<Option<AsyncOp>>,
    /// Operations with `ready` false.
    held: usize,
    /// `cp.async.mbarrier.arrive` operations.
    arrives: usize,
}

impl InFlight {
    fn counts(op: &AsyncOp) -> (usize, usize) {
        (
            !op.ready as usize,
            matches!(op.kind, AsyncKind::MbarArrive { .. }) as usize,
        )
    }

    /// Adds `op`, whose id is the next one.
    fn push(&mut self, op: AsyncOp) {
        debug_assert_eq!(
            op.id,
            self.first + self.ops.len() as u64,
            "ids in issue order"
        );
        let (held, arrives) = InFlight::counts(&op);
        self.held += held;
        self.arrives += arrives;
        self.ops.push_back(Some(op));
    }

    fn slot(&self, id: u64) -> Option<usize> {
        let i = id.checked_sub(self.first)? as usize;
        (i < self.ops.len()).then_some(i)
    }

    pub(crate) fn contains(&self, id: u64) -> bool {
        self.slot(id).is_some_and(|i| self.ops[i].is_some())
    }

    fn remove(&mut self, id: u64) -> Option<AsyncOp> {
        let i = self.slot(id)?;
        let op = self.ops[i].take()?;
        let (held, arrives) = InFlight::counts(&op);
        self.held -= held;
        self.arrives -= arrives;
        while self.ops.front().is_some_and(|o| o.is_none()) {
            self.ops.pop_front();
            self.first += 1;
        }
        Some(op)
    }

    /// The operations in flight in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &AsyncOp> {
        self.ops.iter().flatten()
    }

    /// Every operation may complete ([`AsyncState::release_all`]).
    fn release_all(&mut self) {
        for op in self.ops.iter_mut().flatten() {
            op.ready = true;
        }
        self.held = 0;
    }
}

#[derive(Default)]
pub(crate) struct AsyncState {
    /// By id (issue order): completions take any of them, thousands may be in flight.
    pub pending: InFlight,
    pub next_id: u64,
    /// Per thread (cluster numbering): bulk-group and cp.async-group bookkeeping.
    pub bulk: Vec<Groups>,
    pub cp: Vec<Groups>,
    /// Per thread: ids of `cp.async` not yet complete (for `cp.async.mbarrier.arrive`; kept
    /// only when the program has one).
    pub cp_pending: Vec<Vec<u64>>,
    track_cp_pending: bool,
    /// The lane and snapshot lists of completed `cp.async` operations, emptied, for the next
    /// ones to fill: two allocations per warp's `cp.async` were 2 % of softmax's host
    /// instructions.
    pub(crate) cp_buffers: Vec<CpBuffers>,
}

thread_local! {
    /// The async state of the last cluster this thread ran, for the next one to reset and
    /// reuse ([`AsyncState::new`]).
    static SPARE_ASYNC: std::cell::Cell<Option<AsyncState>> = const { std::cell::Cell::new(None) };
}

impl Drop for AsyncState {
    /// Leaves the state's allocations for the thread's next cluster (unless the thread
    /// already keeps another's).
    fn drop(&mut self) {
        if self.bulk.is_empty() {
            return;
        }
        // `try_with`: a state dropped while the thread's locals are torn down keeps nothing.
        let _ = SPARE_ASYNC.try_with(|s| {
            let kept = s.take();
            if kept.is_some() {
                s.set(kept);
                return;
            }
            s.set(Some(AsyncState {
                pending: std::mem::take(&mut self.pending),
                next_id: 0,
                bulk: std::mem::take(&mut self.bulk),
                cp: std::mem::take(&mut self.cp),
                cp_pending: std::mem::take(&mut self.cp_pending),
                track_cp_pending: false,
                cp_buffers: std::mem::take(&mut self.cp_buffers),
            }));
        });
    }
}

/// The lists of an [`AsyncKind::CpAsync`] operation.
pub(crate) type CpBuffers = (Vec<CpLane>, Vec<std::sync::Arc<[u32]>>);

impl AsyncState {
    /// The state of a cluster of `threads` threads; `cp_arrives`: whether the program has a
    /// `cp.async.mbarrier.arrive`, which needs each thread's pending `cp.async`.
    ///
    /// The state of the last cluster this thread ran is reset and reused ([`AsyncState::drop`]):
    /// allocating and freeing a group queue per thread per cluster was 3 % of a softmax over
    /// 1024 one-CTA clusters.
    pub(crate) fn new(threads: usize, cp_arrives: bool) -> AsyncState {
        let Some(mut state) = SPARE_ASYNC.try_with(|s| s.take()).ok().flatten() else {
            return AsyncState {
                pending: InFlight::default(),
                next_id: 0,
                bulk: vec![Groups::default(); threads],
                cp: vec![Groups::default(); threads],
                cp_pending: vec![Vec::new(); threads],
                track_cp_pending: cp_arrives,
                cp_buffers: Vec::new(),
            };
        };
        let InFlight {
            first,
            ops,
            held,
            arrives,
        } = &mut state.pending;
        (*first, *held, *arrives) = (0, 0, 0);
        ops.clear();
        state.next_id = 0;
        for groups in [&mut state.bulk, &mut state.cp] {
            groups.truncate(threads);
            for g in groups.iter_mut() {
                let Groups {
                    next_group,
                    committed,
                    done_event,
                    open,
                    open_event,
                } = g;
                (*next_group, *done_event, *open, *open_event) = (0, 0, 0, 0);
                committed.clear();
            }
            groups.resize_with(threads, Groups::default);
        }
        state.cp_pending.truncate(threads);
        for p in state.cp_pending.iter_mut() {
            p.clear();
        }
        state.cp_pending.resize_with(threads, Vec::new);
        state.track_cp_pending = cp_arrives;
        // `cp_buffers` holds emptied lists only.
        state
    }

    /// Ids of the operations that may complete now, into `out` (cleared first): the run loop
    /// asks at every decision, with thousands of copies pending in some kernels, so it is
    /// offered the oldest [`OFFERED`] of them. Every order it picks among those is a legal one;
    /// an operation waits at most until the ones issued before it leave the window.
    /// `limit`: how many of them the caller looks at (the first ones).
    pub(crate) fn completable_into(&self, out: &mut Vec<u64>, limit: usize) {
        out.clear();
        let limit = limit.min(OFFERED);
        if limit == 0 {
            return;
        }
        if self.pending.held == 0 && self.pending.arrives == 0 {
            out.extend(self.pending.iter().map(|op| op.id).take(limit));
            return;
        }
        let pending = |id: u64| self.pending.contains(id);
        out.extend(
            self.pending
                .iter()
                .filter(|op| match &op.kind {
                    AsyncKind::MbarArrive { after, .. } => after.iter().all(|&a| !pending(a)),
                    _ => op.ready,
                })
                .map(|op| op.id)
                .take(limit),
        );
    }

    /// Whether thread `t` waits for nothing more than `n` pending committed groups: every
    /// group but the newest `n` is complete. `committed` starts at the oldest pending group,
    /// so that holds when it has at most `n` groups.
    pub(crate) fn groups_done(groups: &Groups, n: u32) -> bool {
        groups.committed.len() <= n as usize
    }

    /// Thread `t`'s next operation joins its open group (bulk or `cp.async`): returns the
    /// group's number for [`Issue::group`].
    pub(crate) fn join_group(&mut self, t: u32, bulk: bool) -> u64 {
        let g = self.groups_mut(t, bulk);
        g.open += 1;
        g.next_group
    }

    /// Queues operation `op`, giving it its `id`.
    pub(crate) fn issue(&mut self, mut op: AsyncOp) {
        let id = self.next_id;
        self.next_id += 1;
        op.id = id;
        if self.track_cp_pending && matches!(op.kind, AsyncKind::CpAsync { .. }) {
            for (lane, _, _) in op.issues() {
                self.cp_pending[(op.warp * 32 + lane) as usize].push(id);
            }
        }
        self.pending.push(op);
    }

    fn groups_mut(&mut self, t: u32, bulk: bool) -> &mut Groups {
        if bulk {
            &mut self.bulk[t as usize]
        } else {
            &mut self.cp[t as usize]
        }
    }

    fn groups(&self, t: u32, bulk: bool) -> &Groups {
        if bulk {
            &self.bulk[t as usize]
        } else {
            &self.cp[t as usize]
        }
    }

    /// `commit_group` of thread `t`: its open operations become a group.
    pub(crate) fn commit(&mut self, t: u32, bulk: bool) {
        let g = self.groups_mut(t, bulk);
        let id = g.next_group;
        g.next_group += 1;
        let event = std::mem::take(&mut g.open_event);
        g.committed.push_back((id, g.open, event));
        g.open = 0;
        g.settle();
    }

    /// Whether copies of unknown size wait to complete (see [`AsyncOp::ready`]).
    pub(crate) fn any_held(&self) -> bool {
        self.pending.held > 0
    }

    /// Every copy may complete: nothing else can happen.
    pub(crate) fn release_all(&mut self) {
        self.pending.release_all();
    }

    /// Takes pending operation `id` out of the queue to complete it.
    pub(crate) fn take(&mut self, id: u64) -> AsyncOp {
        self.pending.remove(id).expect("pending op")
    }

    /// Group bookkeeping of a completed operation, for each lane that issued it. Returns the
    /// lanes (of `op.warp`) whose wait may have become satisfied: those whose committed groups
    /// or open operations went down in number (a wait is satisfied by those two counts alone,
    /// [`AsyncState::wait_satisfied`]), or a superset. A lane of a `cp.async` whose operation
    /// leaves its oldest group with operations pending is left out: in the Triton softmax
    /// three completions in four.
    pub(crate) fn retire(&mut self, op: &AsyncOp, is_bulk: bool) -> u32 {
        match &op.kind {
            AsyncKind::CpAsync { lanes, .. } => {
                let mut changed = 0;
                for l in lanes {
                    let t = op.warp * 32 + l.lane;
                    if self.track_cp_pending {
                        self.cp_pending[t as usize].retain(|&i| i != op.id);
                    }
                    if self.retire_lane(t, l.group, l.issued.event, false) {
                        changed |= 1 << l.lane;
                    }
                }
                changed
            }
            _ => {
                let t = op.warp * 32 + op.by.lane;
                self.retire_lane(t, op.by.group, op.by.vc.event(), is_bulk);
                1 << op.by.lane
            }
        }
    }

    /// The group bookkeeping of thread `t`'s operation of `group` with `event`. Inlined into
    /// [`AsyncState::retire`]'s loop over a `cp.async`'s lanes (it was a call per lane, 47
    /// host instructions each in the Triton softmax); the other cases go out of line.
    /// Returns whether `t`'s groups may have changed in number (its committed groups or its
    /// open operations): false when the operation joined no group or left its oldest group
    /// with operations pending.
    #[inline(always)]
    fn retire_lane(&mut self, t: u32, group: u64, event: u32, is_bulk: bool) -> bool {
        if group == u64::MAX {
            return false;
        }
        let g = self.groups_mut(t, is_bulk);
        // The usual case: the oldest group with operations pending (what follows, for the
        // front, without the index arithmetic).
        if let Some(c) = g.committed.front_mut().filter(|c| c.0 == group) {
            c.1 -= 1;
            c.2 = c.2.max(event);
            if c.1 == 0 {
                g.settle();
                return true;
            }
            return false;
        }
        Self::retire_later(g, group, event);
        true
    }

    /// [`AsyncState::retire_lane`] of an operation not in the oldest committed group: a later
    /// committed group's, or one not committed yet.
    #[inline(never)]
    fn retire_later(g: &mut Groups, group: u64, event: u32) {
        // Committed groups have consecutive numbers from the front's.
        let at = g
            .committed
            .front()
            .and_then(|c| group.checked_sub(c.0))
            .map(|i| i as usize)
            .filter(|&i| i < g.committed.len());
        if let Some(c) = at.map(|i| &mut g.committed[i]) {
            c.1 -= 1;
            c.2 = c.2.max(event);
            g.settle();
        } else {
            g.open -= 1;
            g.open_event = g.open_event.max(event);
        }
    }

    /// Whether a `wait_group n` of thread `t` may return (`wait_all`: `cp.async.wait_all`,
    /// which also waits for operations not committed).
    pub(crate) fn wait_satisfied(&self, t: u32, n: u32, bulk: bool, wait_all: bool) -> bool {
        let g = self.groups(t, bulk);
        AsyncState::groups_done(g, n) && (!wait_all || g.open == 0)
    }

    /// The latest agent event of thread `t`'s completed operations, which its wait acquires
    /// (see [`Groups`]).
    #[inline]
    pub(crate) fn completed_event(&self, t: u32, bulk: bool) -> u32 {
        let g = self.groups(t, bulk);
        let committed = g.committed.iter().filter(|c| c.1 == 0).map(|c| c.2);
        committed.fold(g.done_event.max(g.open_event), u32::max)
    }
}
