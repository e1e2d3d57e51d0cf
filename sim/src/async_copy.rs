//! The asynchronous proxy: `cp.async.bulk` (global ↔ shared, shared → peer shared) and
//! Ampere's `cp.async` with `cp.async.mbarrier.arrive{.noinc}` (§9.7.13.15.15).
//!
//! An operation is checked and recorded when issued; it completes later, when the scheduler
//! chooses: only then it reads its source, writes its destination and signals its mbarrier
//! (complete-tx of its bytes, or an arrive-on). Bulk stores are tracked in bulk groups
//! (`commit_group`, `wait_group{.read}`), `cp.async` in its own groups.

use crate::decode::{AtomOp, MemTy};
use crate::memory::GlobalLoc;
use crate::race::{Clock, join_into};
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
    Tensor(Box<TensorCopy>),
    /// A tensor copy whose tensor map the run does not know (the analyzer's runs make their
    /// inputs up): it moves no data, and a load completes an unknown number of bytes on its
    /// mbarrier (`MBarrier::unknown_completed`).
    Unknown {
        /// A load's mbarrier (CTA, offset); `None` for a store.
        mbar: Option<(u32, u32)>,
    },
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
    /// Whether it may complete. A copy of unknown size completes only when nothing else can
    /// happen ([`AsyncState::release_all`]): its mbarrier can then count every copy issued for
    /// the phase (the A and B tiles of a stage, a peer's multicast) before it decides whether
    /// their bytes can be what the phase expects. Copies may be that slow on a GPU, so this is
    /// one legal order; completing one copy early would make its unknown size be the whole
    /// phase's, which the other copies then contradict.
    pub ready: bool,
}

/// Groups of one thread: uncommitted operations and committed groups still pending.
#[derive(Clone, Debug, Default)]
pub(crate) struct Groups {
    pub next_group: u64,
    /// Committed groups in commit order from the oldest with operations pending: (group,
    /// pending count, joined clock). Completed groups leave the front into `done_vc`.
    pub committed: std::collections::VecDeque<(u64, u32, Clock)>,
    /// The joined clocks of the completed groups that left `committed`.
    pub done_vc: Clock,
    pub open: u32,
    pub open_vc: Clock,
}

impl Groups {
    /// Moves the completed groups at the front of `committed` into `done_vc`.
    fn settle(&mut self) {
        while self.committed.front().is_some_and(|c| c.1 == 0) {
            let (_, _, vc) = self.committed.pop_front().expect("a front");
            if vc.len() > self.done_vc.len() {
                self.done_vc.resize(vc.len(), 0);
            }
            join_into(&mut self.done_vc, &vc);
        }
    }
}

/// How many completable operations a scheduling decision chooses among.
const OFFERED: usize = 64;

#[derive(Default)]
pub(crate) struct AsyncState {
    /// By id (issue order): completions take any of them, thousands may be in flight.
    pub pending: std::collections::BTreeMap<u64, AsyncOp>,
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
            pending: std::collections::BTreeMap::new(),
            next_id: 0,
            bulk: vec![Groups::default(); threads],
            cp: vec![Groups::default(); threads],
            cp_pending: vec![Vec::new(); threads],
        }
    }

    /// Ids of the operations that may complete now, into `out` (cleared first): the run loop
    /// asks at every decision, with thousands of copies pending in some kernels, so it is
    /// offered the oldest [`OFFERED`] of them. Every order it picks among those is a legal one;
    /// an operation waits at most until the ones issued before it leave the window.
    pub(crate) fn completable_into(&self, out: &mut Vec<u64>) {
        out.clear();
        let pending = |id: u64| self.pending.contains_key(&id);
        out.extend(
            self.pending
                .values()
                .filter(|op| match &op.kind {
                    AsyncKind::MbarArrive { after, .. } => after.iter().all(|&a| !pending(a)),
                    _ => op.ready,
                })
                .map(|op| op.id)
                .take(OFFERED),
        );
    }

    /// Whether thread `t` waits for nothing more than `n` pending committed groups: every
    /// group but the newest `n` is complete. `committed` starts at the oldest pending group,
    /// so that holds when it has at most `n` groups.
    pub(crate) fn groups_done(groups: &Groups, n: u32) -> bool {
        groups.committed.len() <= n as usize
    }

    /// Records operation `kind` issued by lane `lane` of warp `warp` (thread `t`) at `pc`,
    /// with the thread's async clock `vc`; `bulk` names its group kind, if it joins one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn issue(
        &mut self,
        t: u32,
        warp: u32,
        lane: u32,
        pc: u32,
        kind: AsyncKind,
        bulk: Option<bool>,
        vc: Clock,
        issued_at: u64,
    ) {
        let id = self.next_id;
        self.next_id += 1;
        let mut group = u64::MAX;
        if let Some(is_bulk) = bulk {
            let g = self.groups_mut(t, is_bulk);
            g.open += 1;
            group = g.next_group;
        }
        if matches!(kind, AsyncKind::CpAsync { .. }) {
            self.cp_pending[t as usize].push(id);
        }
        let ready = !matches!(kind, AsyncKind::Unknown { .. });
        self.pending.insert(
            id,
            AsyncOp {
                ready,
                id,
                warp,
                lane,
                pc,
                kind,
                vc,
                issued_at,
                group,
            },
        );
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
        let vc = std::mem::take(&mut g.open_vc);
        g.committed.push_back((id, g.open, vc));
        g.open = 0;
        g.settle();
    }

    /// The other `cp.async` pending from the same warp instruction as `id` (other lanes, same
    /// op, same group), when `id` is one; they may complete with it.
    pub(crate) fn same_instruction(&self, id: u64) -> Vec<u64> {
        let Some(op) = self.pending.get(&id) else {
            return Vec::new();
        };
        if !matches!(op.kind, AsyncKind::CpAsync { .. }) {
            return Vec::new();
        }
        self.pending
            .values()
            .filter(|p| {
                p.id != id
                    && p.warp == op.warp
                    && p.pc == op.pc
                    && p.issued_at == op.issued_at
                    && p.group == op.group
                    && matches!(p.kind, AsyncKind::CpAsync { .. })
            })
            .map(|p| p.id)
            .collect()
    }

    /// Whether copies of unknown size wait to complete (see [`AsyncOp::ready`]).
    pub(crate) fn any_held(&self) -> bool {
        self.pending.values().any(|op| !op.ready)
    }

    /// Every copy may complete: nothing else can happen.
    pub(crate) fn release_all(&mut self) {
        for op in self.pending.values_mut() {
            op.ready = true;
        }
    }

    /// Takes pending operation `id` out of the queue to complete it.
    pub(crate) fn take(&mut self, id: u64) -> AsyncOp {
        self.pending.remove(&id).expect("pending op")
    }

    /// Group bookkeeping of a completed operation: the issuing thread's waits acquire its clock.
    pub(crate) fn retire(&mut self, op: &AsyncOp, is_bulk: bool) {
        if op.group == u64::MAX {
            return;
        }
        let g = self.groups_mut(op.warp * 32 + op.lane, is_bulk);
        if let Some(c) = g.committed.iter_mut().find(|c| c.0 == op.group) {
            c.1 -= 1;
            if op.vc.len() > c.2.len() {
                c.2.resize(op.vc.len(), 0);
            }
            join_into(&mut c.2, &op.vc);
            g.settle();
        } else {
            g.open -= 1;
            if op.vc.len() > g.open_vc.len() {
                g.open_vc.resize(op.vc.len(), 0);
            }
            join_into(&mut g.open_vc, &op.vc);
        }
    }

    /// Whether a `wait_group n` of thread `t` may return (`wait_all`: `cp.async.wait_all`,
    /// which also waits for operations not committed).
    pub(crate) fn wait_satisfied(&self, t: u32, n: u32, bulk: bool, wait_all: bool) -> bool {
        let g = self.groups(t, bulk);
        AsyncState::groups_done(g, n) && (!wait_all || g.open == 0)
    }

    /// The joined clocks of thread `t`'s completed groups, which its wait acquires.
    pub(crate) fn completed_clock(&self, t: u32, bulk: bool) -> Clock {
        let g = self.groups(t, bulk);
        let mut vc = g.done_vc.clone();
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
        vc
    }
}
