//! Findings: what a kernel did wrong, where (threads, PTX line, instruction), the state of the
//! barriers involved, and the rule of the PTX ISA it broke.

use crate::error::SimError;
use crate::sched::Schedule;
use std::fmt;

/// The kind of a kernel fault. Each names one rule of the spec (see [`FindingKind::code`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FindingKind {
    /// Every live thread is blocked and no asynchronous operation is left to complete.
    Deadlock,
    /// An aligned barrier or warp collective reached by only part of a warp.
    DivergentAlignedBarrier,
    /// A warning: threads that exit without an aligned barrier that the rest of their warp
    /// executes (the run goes on; see [`super::Stats::warnings`]).
    DivergentExitBeforeBarrier,
    /// `bar.red` mixed with `bar.sync`/`bar.arrive` (or another reduction) on an active barrier.
    BarrierRedMixed,
    /// A thread count that is not a positive multiple of 32, differs between arrivals of one
    /// phase, or is exceeded.
    BarrierThreadCount,
    /// A barrier id outside 0..15.
    BarrierId,
    /// Warps executing one barrier instruction for the same time meeting in different
    /// instances (phases) of the barrier: some warp's arrivals counted in a phase they were
    /// not meant for.
    BarrierInstanceSplit,
    /// An arrive-on in phase k+1 without a successful wait on phase k that happens before it.
    MbarrierMissingWait,
    /// A wait on a phase that is neither the current nor the immediately preceding one.
    MbarrierInvalidPhase,
    /// A pending, expected or tx-count outside its valid range.
    MbarrierCountRange,
    /// An operation on an uninitialised or invalidated mbarrier.
    MbarrierUninitialized,
    /// `mbarrier.init` on a valid mbarrier.
    MbarrierReinit,
    /// An arrive with `.noComplete` that completes the phase.
    MbarrierNoComplete,
    /// A non-mbarrier access to the memory of a valid mbarrier object.
    MbarrierMemoryAccess,
    /// An mbarrier address that is misaligned or outside shared memory.
    MbarrierAddress,
    /// `barrier.cluster.arrive` twice without a wait in between.
    ClusterArriveTwice,
    /// `barrier.cluster.wait` by a thread that has not arrived.
    ClusterWaitWithoutArrive,
    /// Two shared-memory accesses, at least one a write, not ordered by happens-before.
    SharedRace,
    /// A read of shared memory that a bulk copy writes, not ordered after the wait that covers it.
    AsyncReadBeforeWait,
    /// An async-proxy read of shared memory written by the generic proxy without
    /// `fence.proxy.async` in between (or a tensor copy reading a tensor map modified without
    /// `fence.proxy.tensormap::generic`).
    ProxyFenceMissing,
    /// A tensor copy the GPU rejects: a tensor map that is not a valid tile-mode map, a rank
    /// other than the instruction's, a negative coordinate of a store, a reduction the map's
    /// type does not have.
    TensorCopy,
    /// `setmaxnreg` with a count outside 24..=256 or not a multiple of 8, or executed
    /// differently by the warps of one warpgroup.
    Setmaxnreg,
    /// An access outside every allocation of its state space (PTX ISA §5.1): past a buffer,
    /// the CTA's shared memory, the parameters or a thread's local memory.
    OutOfBounds,
    /// An address not aligned as its instruction needs: an access to a multiple of its size
    /// (PTX ISA §6.4.1), a bulk copy or its size to 16 bytes, a tensor map to 64.
    Misaligned,
    /// An access to the shared memory of a CTA of the cluster that has exited.
    ExitedCtaAccess,
    /// A warp collective whose member mask names exited threads or that reads an absent lane;
    /// a tensor-core instruction executed by part of a warp (or of a warpgroup), or with an
    /// operand that differs between the threads that must agree on it.
    WarpCollective,
    /// A register that a `wgmma.mma_async` in flight reads or writes (its accumulator or A
    /// fragment) accessed before a `wgmma.wait_group` covering it.
    WgmmaRegisterInFlight,
    /// A `wgmma.mma_async` whose registers were accessed after the last `wgmma.fence`, or with
    /// no `wgmma.fence` before it.
    WgmmaFenceMissing,
    /// `trap`.
    Trap,
    /// The run exceeded its step budget (a livelock, or a budget too small).
    StepLimit,
}

impl FindingKind {
    /// Whether this kind is a warning, which the run goes on past ([`super::Stats::warnings`]).
    pub fn is_warning(self) -> bool {
        matches!(self, FindingKind::DivergentExitBeforeBarrier)
    }

    /// A short stable name, as in `error[deadlock]`.
    pub fn code(self) -> &'static str {
        match self {
            FindingKind::Deadlock => "deadlock",
            FindingKind::DivergentAlignedBarrier => "divergent_aligned_barrier",
            FindingKind::DivergentExitBeforeBarrier => "divergent_exit_before_barrier",
            FindingKind::BarrierRedMixed => "barrier_red_mixed",
            FindingKind::BarrierThreadCount => "barrier_thread_count",
            FindingKind::BarrierId => "barrier_id",
            FindingKind::BarrierInstanceSplit => "barrier_instance_split",
            FindingKind::MbarrierMissingWait => "mbarrier_missing_wait",
            FindingKind::MbarrierInvalidPhase => "mbarrier_invalid_phase",
            FindingKind::MbarrierCountRange => "mbarrier_count_range",
            FindingKind::MbarrierUninitialized => "mbarrier_uninitialized",
            FindingKind::MbarrierReinit => "mbarrier_reinit",
            FindingKind::MbarrierNoComplete => "mbarrier_nocomplete",
            FindingKind::MbarrierMemoryAccess => "mbarrier_memory_access",
            FindingKind::MbarrierAddress => "mbarrier_address",
            FindingKind::ClusterArriveTwice => "cluster_arrive_twice",
            FindingKind::ClusterWaitWithoutArrive => "cluster_wait_without_arrive",
            FindingKind::SharedRace => "shared_race",
            FindingKind::AsyncReadBeforeWait => "async_read_before_wait",
            FindingKind::ProxyFenceMissing => "proxy_fence_missing",
            FindingKind::TensorCopy => "tensor_copy",
            FindingKind::Setmaxnreg => "setmaxnreg",
            FindingKind::OutOfBounds => "out_of_bounds",
            FindingKind::Misaligned => "misaligned",
            FindingKind::ExitedCtaAccess => "exited_cta_access",
            FindingKind::WarpCollective => "warp_collective",
            FindingKind::WgmmaRegisterInFlight => "wgmma_register_in_flight",
            FindingKind::WgmmaFenceMissing => "wgmma_fence_missing",
            FindingKind::Trap => "trap",
            FindingKind::StepLimit => "step_limit",
        }
    }
}

/// A barrier object a finding or a logged event is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Object {
    /// Named barrier `id` of the CTA of rank `cta` in the cluster.
    Named {
        /// The CTA's rank in its cluster.
        cta: u32,
        /// The barrier id, 0..15.
        id: u32,
    },
    /// The mbarrier at shared offset `offset` of the CTA of rank `cta`.
    Mbarrier {
        /// The CTA's rank in its cluster.
        cta: u32,
        /// Its offset in the CTA's shared memory.
        offset: u32,
    },
    /// The cluster barrier.
    Cluster,
}

/// Threads of one warp at one instruction, and what they do there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// `%ctaid` of the CTA.
    pub cta: (u32, u32, u32),
    /// The CTA's rank in its cluster (`%cluster_ctarank`).
    pub cta_rank: u32,
    /// Warp index within the CTA.
    pub warp: u32,
    /// The lanes of the warp this site is about.
    pub lanes: u32,
    /// `%tid` of the lowest of those lanes.
    pub tid: (u32, u32, u32),
    /// PTX line of the instruction (0 when the module was not read from text).
    pub line: u32,
    /// The instruction's statement in its function's body (`None` for the return at the end
    /// of a body that falls off it), for a caller that maps statements to its own spans.
    pub stmt: Option<phasegate_ptx::StmtId>,
    /// The function (entry or `.func`) the instruction is in.
    pub function: String,
    /// The instruction as the PTX writes it.
    pub instruction: String,
    /// What the threads do there, lowercase: `waits for barrier 1 (phase 3)`.
    pub what: String,
}

/// A finding: the run stopped because the kernel broke a rule of the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The rule broken.
    pub kind: FindingKind,
    /// One line, lowercase, without a trailing period.
    pub message: String,
    /// The spec section whose rule is broken, e.g. `§9.7.13.15.4`.
    pub spec: String,
    /// Where the threads involved are (for a deadlock: every blocked warp).
    pub sites: Vec<Site>,
    /// The barriers involved, one line each (`barrier 1 of cta (0,0,0): phase 2, 32 of 64 arrived`).
    pub state: Vec<String>,
    /// Explanations and the usual fix, one line each.
    pub notes: Vec<String>,
    /// The schedule that found it; replaying it reproduces the report.
    pub schedule: Schedule,
    /// Thread-instructions executed before the finding.
    pub thread_instructions: u64,
    /// The barrier object whose rule was broken, when the rule is one object's.
    pub object: Option<Object>,
}

impl Report {
    pub(crate) fn new(kind: FindingKind, spec: &str, message: impl Into<String>) -> Report {
        Report {
            kind,
            message: message.into(),
            spec: spec.to_string(),
            sites: Vec::new(),
            state: Vec::new(),
            notes: Vec::new(),
            schedule: Schedule::default(),
            thread_instructions: 0,
            object: None,
        }
    }
    pub(crate) fn site(mut self, site: Site) -> Report {
        self.sites.push(site);
        self
    }
    pub(crate) fn state(mut self, line: impl Into<String>) -> Report {
        self.state.push(line.into());
        self
    }
    pub(crate) fn note(mut self, line: impl Into<String>) -> Report {
        self.notes.push(line.into());
        self
    }
}

/// `0-31`, `0,4,7-9`: a lane mask for people.
pub(crate) fn lane_ranges(mask: u32) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < 32 {
        if mask >> i & 1 == 1 {
            let start = i;
            while i + 1 < 32 && mask >> (i + 1) & 1 == 1 {
                i += 1;
            }
            out.push(if start == i {
                format!("{start}")
            } else {
                format!("{start}-{i}")
            });
        }
        i += 1;
    }
    out.join(",")
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.lanes.count_ones();
        let who = if n == 1 {
            format!(
                "thread {:?} of cta {:?} (warp {}, lane {})",
                self.tid,
                self.cta,
                self.warp,
                self.lanes.trailing_zeros()
            )
        } else {
            format!(
                "{n} threads of cta {:?} from {:?} (warp {}, lanes {})",
                self.cta,
                self.tid,
                self.warp,
                lane_ranges(self.lanes)
            )
        };
        let line = if self.line > 0 {
            format!("line {}", self.line)
        } else {
            "no line".to_string()
        };
        write!(
            f,
            "{who} {} at {line} in `{}`: {}",
            self.what, self.function, self.instruction
        )
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}[{}]: {} ({})",
            if self.kind.is_warning() {
                "warning"
            } else {
                "error"
            },
            self.kind.code(),
            self.message,
            self.spec
        )?;
        for site in &self.sites {
            writeln!(f, "  --> {site}")?;
        }
        for s in &self.state {
            writeln!(f, "  = state: {s}")?;
        }
        for n in &self.notes {
            writeln!(f, "  = note: {n}")?;
        }
        write!(
            f,
            "  = schedule: {} (after {} thread-instructions)",
            self.schedule, self.thread_instructions
        )
    }
}

/// Why a run stopped early: the kernel's fault or the simulator's limit.
#[derive(Debug)]
pub(crate) enum Stop {
    Finding(Box<Report>),
    Error(SimError),
    /// A speculative run of a cluster gave up: it polls global memory that a cluster it does
    /// not see may write (see `parallel`). The cluster runs again, in order.
    Abandon,
}

impl From<Report> for Stop {
    fn from(r: Report) -> Stop {
        Stop::Finding(Box::new(r))
    }
}

impl From<SimError> for Stop {
    fn from(e: SimError) -> Stop {
        Stop::Error(e)
    }
}
