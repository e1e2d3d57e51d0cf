//! The state of one cluster in flight: its CTAs, warps and threads.
//!
//! A launch means its clusters one after another (a GPU may do the same: clusters never
//! synchronise with each other); `parallel` runs them in parallel with that result.
//! Threads are numbered within the cluster as
//! `warp * 32 + lane`, where `warp` is the flat warp index over the cluster's CTAs; vector
//! clocks and reports use that number.

use super::barrier::cluster::ClusterBarrier;
use super::barrier::mbarrier::MBarrier;
use super::barrier::named::NamedBarrier;
use super::decode::Program;
use super::memory::{Global, SHARED_BASE};
/// Kept for `exec::tensor`, which names it from here.
pub(crate) use super::state::Res;
use super::state::{Block, lanes};
use phasegate_ptx::{Dim, SpecialReg};
use std::collections::BTreeMap;

pub(crate) type Dim3 = (u32, u32, u32);

pub(crate) fn dim(d: Dim3, which: Dim) -> u32 {
    match which {
        Dim::X => d.0,
        Dim::Y => d.1,
        Dim::Z => d.2,
    }
}

pub(crate) fn volume(d: Dim3) -> u64 {
    d.0 as u64 * d.1 as u64 * d.2 as u64
}

/// The coordinates of linear index `i` in a box of shape `d` (x fastest).
pub(crate) fn unflatten(i: u32, d: Dim3) -> Dim3 {
    (i % d.0, (i / d.0) % d.1, i / (d.0 * d.1))
}

/// The launch geometry every cluster shares.
#[derive(Clone, Debug)]
pub(crate) struct Shape {
    pub grid: Dim3,
    pub block: Dim3,
    pub cluster: Dim3,
    pub explicit_cluster: bool,
    pub threads_per_cta: u32,
    pub warps_per_cta: u32,
    pub ctas_per_cluster: u32,
    pub shared_bytes: u32,
    pub dynamic_shared_bytes: u32,
}

/// One CTA of the cluster in flight.
pub(crate) struct Cta {
    pub rank: u32,
    pub ctaid: Dim3,
    /// Shared memory from [`SHARED_BASE`].
    pub shared: Vec<u8>,
    pub named: Vec<NamedBarrier>,
    pub mbars: BTreeMap<u32, MBarrier>,
    /// One bit per 8-byte shared slot that holds a valid mbarrier object.
    pub mbar_slots: Vec<u64>,
    /// How many times `mbar_slots` changed: what a `wgmma` operand's places were found with
    /// ([`crate::tensor_state::OperandPlaces`]) holds while it is the same.
    pub mbar_epoch: u64,
    pub live: u32,
}

impl Cta {
    pub(crate) fn holds_mbarrier(&self, offset: u32, len: u32) -> Option<u32> {
        let first = offset.saturating_sub(SHARED_BASE) / 8;
        let last = (offset + len.max(1) - 1).saturating_sub(SHARED_BASE) / 8;
        // A word of slots at a time: bulk copies ask about tens of kilobytes.
        let last_word = (last as usize / 64).min(self.mbar_slots.len().checked_sub(1)?);
        for word in first as usize / 64..=last_word {
            let mut bits = self.mbar_slots[word];
            if word == first as usize / 64 {
                bits &= u64::MAX << (first % 64);
            }
            if word == last as usize / 64 && last % 64 != 63 {
                bits &= (1u64 << (last % 64 + 1)) - 1;
            }
            if bits != 0 {
                return Some(SHARED_BASE + (word as u32 * 64 + bits.trailing_zeros()) * 8);
            }
        }
        None
    }
    pub(crate) fn set_mbar_slot(&mut self, offset: u32, on: bool) {
        let s = ((offset - SHARED_BASE) / 8) as usize;
        self.mbar_epoch += 1;
        if s / 64 >= self.mbar_slots.len() {
            self.mbar_slots.resize(s / 64 + 1, 0);
        }
        if on {
            self.mbar_slots[s / 64] |= 1 << (s % 64);
        } else {
            self.mbar_slots[s / 64] &= !(1 << (s % 64));
        }
    }
}

/// A warp: up to 32 threads, each with its own program counter, executed lock-step while
/// their program counters agree.
pub(crate) struct Warp {
    pub cta: u32,
    /// Warp index within its CTA.
    pub index: u32,
    /// Lanes that exist (a CTA's last warp may be partial).
    pub lanes: u32,
    /// `nregs * 32` values, register-major, so that one instruction touches one row.
    pub regs: Vec<u64>,
    /// A bit per op of the program: the ops the warp executed (or tried to), whose register
    /// slots are the ones it may have written (`spare::give_back`).
    pub ran: Vec<u64>,
    pub pc: [u32; 32],
    pub ready: u32,
    pub exited: u32,
    pub blocked: u32,
    pub why: [Block; 32],
    /// Where each blocked lane waits (its op index), and since when.
    pub wait_pc: [u32; 32],
    pub wait_since: [u64; 32],
    /// Per lane: the call ops to return to.
    pub calls: Vec<Vec<u32>>,
    pub frames: Vec<u8>,
    pub locals: Vec<u8>,
    /// Lanes that arrived at the cluster barrier and have not waited yet, with the phase.
    pub cluster_arrived: u32,
    pub cluster_phase: [u64; 32],
    /// Counts side effects (stores, barrier operations, async issues) of the warp: a lane whose
    /// failed mbarrier poll repeats with no side effect in between parks until the mbarrier
    /// changes, because re-running its loop could not change anything.
    pub effects: u64,
    /// Per lane: the last failed poll: (cta, mbarrier offset, mbarrier version, effects).
    pub poll: [Option<(u32, u32, u64, u64)>; 32],
    /// Simulated time of the warp (issued instructions plus waits).
    pub clock: u64,
    /// Per lane: how many aligned barriers it has executed, and for an exited lane that count
    /// at its exit and where it exited. A lane that exited at the count the rest of its warp
    /// has when it executes an aligned barrier exited without that barrier, whichever of the
    /// divergent paths the scheduler ran first.
    pub aligned_seen: [u32; 32],
    pub exit_seen: [u32; 32],
    pub exit_pc: [u32; 32],
    /// The warp's last global poll in a speculative run: (pc, address, value, effects after
    /// it), and how many times in a row it read that (`Machine::poll_global`).
    pub spin: ((u32, u64, u64, u64), u32),
}

impl Warp {
    pub(crate) fn live(&self) -> u32 {
        self.lanes & !self.exited
    }
    /// Blocks `mask` at the op `at`; when woken they continue at `resume`.
    pub(crate) fn block(&mut self, mask: u32, why: Block, at: u32, resume: u32) {
        self.ready &= !mask;
        self.blocked |= mask;
        for lane in lanes(mask) {
            self.why[lane] = why;
            self.wait_pc[lane] = at;
            self.wait_since[lane] = self.clock;
            self.pc[lane] = resume;
        }
    }
    pub(crate) fn wake(&mut self, mask: u32) {
        let mask = mask & self.blocked;
        self.blocked &= !mask;
        self.ready |= mask;
        for lane in lanes(mask) {
            self.why[lane] = Block::None;
        }
    }
    #[inline]
    pub(crate) fn reg(&self, slot: u32, lane: usize) -> u64 {
        self.regs[slot as usize * 32 + lane]
    }
    #[inline]
    pub(crate) fn set_reg(&mut self, slot: u32, lane: usize, v: u64) {
        if slot != super::decode::SINK {
            self.regs[slot as usize * 32 + lane] = v;
        }
    }
}

/// Builds the CTAs and warps of cluster number `cluster` (linear over the grid's clusters).
pub(crate) fn build_cluster(prog: &Program, shape: &Shape, cluster: u32) -> (Vec<Cta>, Vec<Warp>) {
    let clusters_in_grid = (
        shape.grid.0 / shape.cluster.0,
        shape.grid.1 / shape.cluster.1,
        shape.grid.2 / shape.cluster.2,
    );
    let cid = unflatten(cluster, clusters_in_grid);
    let mut ctas = Vec::new();
    let mut warps = Vec::new();
    for rank in 0..shape.ctas_per_cluster {
        let local = unflatten(rank, shape.cluster);
        let ctaid = (
            cid.0 * shape.cluster.0 + local.0,
            cid.1 * shape.cluster.1 + local.1,
            cid.2 * shape.cluster.2 + local.2,
        );
        for w in 0..shape.warps_per_cta {
            let lanes_here = (shape.threads_per_cta - w * 32).min(32);
            let lane_mask = if lanes_here == 32 {
                u32::MAX
            } else {
                (1u32 << lanes_here) - 1
            };
            let mut warp = Warp {
                cta: rank,
                index: w,
                lanes: lane_mask,
                regs: crate::spare::regs(prog.nregs() * 32),
                ran: vec![0; prog.ops.len().div_ceil(64)],
                pc: [prog.entry_pc; 32],
                ready: lane_mask,
                exited: !lane_mask,
                blocked: 0,
                why: [Block::None; 32],
                wait_pc: [0; 32],
                wait_since: [0; 32],
                calls: vec![Vec::new(); 32],
                frames: vec![0; prog.frame_bytes as usize * 32],
                locals: vec![0; prog.local_bytes as usize * 32],
                cluster_arrived: 0,
                cluster_phase: [0; 32],
                aligned_seen: [0; 32],
                exit_seen: [0; 32],
                exit_pc: [0; 32],
                effects: 0,
                poll: [None; 32],
                clock: 0,
                spin: ((u32::MAX, 0, 0, 0), 0),
            };
            for lane in 0..lanes_here {
                let linear = w * 32 + lane;
                let tid = unflatten(linear, shape.block);
                for &(s, slot) in &prog.sregs {
                    let v = sreg_value(
                        s,
                        shape,
                        cid,
                        clusters_in_grid,
                        ctaid,
                        local,
                        rank,
                        tid,
                        w,
                        lane,
                    );
                    warp.regs[slot as usize * 32 + lane as usize] = v;
                }
            }
            warp.exited = !lane_mask;
            warps.push(warp);
        }
        ctas.push(Cta {
            rank,
            ctaid,
            shared: crate::spare::shared(shape.shared_bytes as usize),
            named: (0..16).map(|_| NamedBarrier::default()).collect(),
            mbars: BTreeMap::new(),
            mbar_slots: Vec::new(),
            mbar_epoch: 0,
            live: shape.threads_per_cta,
        });
    }
    (ctas, warps)
}

#[allow(clippy::too_many_arguments)]
fn sreg_value(
    s: SpecialReg,
    shape: &Shape,
    cid: Dim3,
    nclusters: Dim3,
    ctaid: Dim3,
    local: Dim3,
    rank: u32,
    tid: Dim3,
    warp: u32,
    lane: u32,
) -> u64 {
    let v: u32 = match s {
        SpecialReg::Tid(d) => dim(tid, d),
        SpecialReg::Ntid(d) => dim(shape.block, d),
        SpecialReg::Ctaid(d) => dim(ctaid, d),
        SpecialReg::Nctaid(d) => dim(shape.grid, d),
        SpecialReg::ClusterId(d) => dim(cid, d),
        SpecialReg::NClusterId(d) => dim(nclusters, d),
        SpecialReg::ClusterCtaid(d) => dim(local, d),
        SpecialReg::ClusterNctaid(d) => dim(shape.cluster, d),
        SpecialReg::ClusterCtaRank => rank,
        SpecialReg::ClusterNctaRank => shape.ctas_per_cluster,
        SpecialReg::IsExplicitCluster => shape.explicit_cluster as u32,
        SpecialReg::LaneId => lane,
        SpecialReg::WarpId => warp,
        SpecialReg::NWarpId => shape.warps_per_cta,
        SpecialReg::SmId => 0,
        SpecialReg::NSmId => 1,
        SpecialReg::GridId => 0,
        SpecialReg::LaneMaskEq => 1 << lane,
        SpecialReg::LaneMaskLt => (1u32 << lane) - 1,
        SpecialReg::LaneMaskLe => ((1u64 << (lane + 1)) - 1) as u32,
        SpecialReg::LaneMaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
        SpecialReg::LaneMaskGe => !((1u32 << lane) - 1),
        SpecialReg::DynamicSmemSize => shape.dynamic_shared_bytes,
        SpecialReg::TotalSmemSize => shape.shared_bytes,
        // Never given a slot: decoding turns timer reads into reads of the simulated time.
        SpecialReg::Clock
        | SpecialReg::Clock64
        | SpecialReg::GlobalTimer
        | SpecialReg::GlobalTimerLo
        | SpecialReg::GlobalTimerHi => 0,
    };
    v as u64
}

/// Memory and state that outlive one cluster.
pub(crate) struct LaunchMem {
    pub global: Global,
    pub kernel_params: Vec<u8>,
    /// Tensor maps modified and not fenced, as the clusters so far left them.
    pub unfenced: Vec<(u64, super::report::Site)>,
}

/// What one cluster's run touches outside its CTAs: global memory (the launch's own, or an
/// overlay when clusters run in parallel), the parameters, and tensor-map state.
pub(crate) struct ClusterMem<'a> {
    pub global: super::overlay::GlobalMem<'a>,
    pub kernel_params: &'a [u8],
    /// Tensor maps modified and not fenced, `setmaxnreg` per warpgroup.
    pub tma: super::tma_state::TmaState,
}

/// One cluster in flight and everything an instruction may touch. It owns its state (CTAs,
/// warps, barriers, the race detector, stats): clusters share only what [`ClusterMem`]
/// borrows, so that clusters can run in parallel (see `parallel`).
pub(crate) struct Machine<'a> {
    pub prog: &'a Program,
    pub shape: &'a Shape,
    pub mem: ClusterMem<'a>,
    pub ctas: Vec<Cta>,
    pub warps: Vec<Warp>,
    pub cluster: ClusterBarrier,
    pub race: super::race::Race,
    pub asyncs: super::async_copy::AsyncState,
    /// This cluster's counts; the launch adds them up in cluster order.
    pub stats: crate::outcome::Stats,
    pub trace: Option<&'a mut super::trace::Trace>,
    pub max_steps: u64,
    /// Thread-instructions of the clusters before this one: the step budget is the launch's.
    pub steps_before: u64,
    pub cluster_index: u32,
    /// Warps with lanes waiting for the rest of their warp at an aligned instruction.
    pub gathering: u32,
    /// Warpgroup MMAs in flight and the register accesses around them.
    pub tensor: super::tensor_state::TensorState,
    /// A probe run's (the analyzer's): inputs made up, barrier events logged
    /// ([`crate::probe`]).
    pub made: Option<crate::event_log::Made<'a>>,
}

impl Machine<'_> {
    /// Whether the run's inputs are made up ([`crate::probe`]): tensor maps unknown, tensor
    /// arithmetic skipped.
    #[inline]
    pub(crate) fn made_up(&self) -> bool {
        self.made.is_some()
    }

    /// Whether op `pc` has a byte count computed from made-up inputs ([`crate::probe`]).
    #[inline]
    pub(crate) fn unknown_bytes(&self, pc: u32) -> bool {
        self.made
            .as_ref()
            .is_some_and(|m| m.unknown_bytes.binary_search(&pc).is_ok())
    }

    /// Logs a barrier event of lanes `lanes` of warp `w` at `pc`, when the run logs; `text`
    /// runs only then.
    #[inline]
    #[expect(
        clippy::too_many_arguments,
        reason = "one event's fields, passed apart so that a run that does not log builds nothing"
    )]
    pub(crate) fn log_event(
        &mut self,
        w: usize,
        lanes: u32,
        pc: u32,
        object: Option<crate::report::Object>,
        kind: crate::event_log::LogKind,
        phase: Option<i64>,
        text: impl FnOnce() -> String,
    ) {
        if let Some(log) = self.made.as_mut().and_then(|m| m.log.as_deref_mut()) {
            log.push(crate::event_log::LogEvent {
                warp: w as u32,
                lanes,
                pc,
                object,
                kind,
                phase,
                text: text(),
            });
        }
    }
}
