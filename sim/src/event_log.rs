//! What a probe run (`probe`) records and reports: its barrier events, the threads left blocked
//! and the mbarriers' states, as data the machine fills in. The machine and the cluster runner
//! write these; `probe` runs them and hands them to the analyzer.

use crate::report::Object;

/// What the machine of a probe run does differently (`probe`'s module docs): its inputs are
/// made up, and it logs its barrier events when `log` is given.
pub(crate) struct Made<'a> {
    pub log: Option<&'a mut Vec<LogEvent>>,
    /// Sorted ops whose byte counts are unknown (`Probe::unknown_bytes`).
    pub unknown_bytes: Vec<u32>,
}

/// What a logged event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogKind {
    /// `mbarrier.init`.
    Init,
    /// `mbarrier.inval`.
    Inval,
    /// An arrive-on (mbarrier), or an arrival at a named or cluster barrier.
    Arrive,
    /// A wait that returned true or completed (`try_wait`/`test_wait`, `bar.sync`'s wait,
    /// `barrier.cluster.wait`).
    WaitDone,
    /// A wait that returned false or blocked.
    WaitPending,
    /// An expect-tx.
    Expect,
    /// A copy that will complete transactions on an mbarrier was issued.
    Issue,
    /// An asynchronous operation completed (transactions, or an asynchronous arrive-on).
    Complete,
    /// A barrier phase completed.
    Phase,
    /// Threads exited.
    Exit,
}

/// One barrier event of a probe run, in the order of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogEvent {
    /// Flat warp index in the cluster (`cta rank * warps per CTA + warp`); for an
    /// asynchronous completion, the warp that issued the operation.
    pub warp: u32,
    /// The lanes of the warp.
    pub lanes: u32,
    /// The op index (`Kernel::location` names its function and statement).
    pub pc: u32,
    /// The barrier it is about, if any.
    pub object: Option<Object>,
    /// What happened.
    pub kind: LogKind,
    /// For mbarriers (and a named barrier's arrivals), the phase it is about: the phase an
    /// arrive counted in, the completed
    /// phase a successful wait observed (-1: the phase before the first, which a parity wait
    /// on a fresh object observes), the phase a failed wait waits for, the phase that
    /// completed.
    pub phase: Option<i64>,
    /// What happened, lowercase, with the barrier's state after it: ``arrive on `full+8`:
    /// phase 0, pending count 0 of expected 1, tx-count 4096``.
    pub text: String,
}

/// Threads of a warp still blocked when a probe run ended, and the barrier they wait on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// Flat warp index in the cluster.
    pub warp: u32,
    /// The blocked lanes.
    pub lanes: u32,
    /// The op they wait at.
    pub pc: u32,
    /// The barrier they wait on (`None`: the rest of their warp, or asynchronous copies).
    pub on: Option<Object>,
}

/// The state of an mbarrier object when a probe run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarrierState {
    /// The object.
    pub object: Object,
    /// Its current phase.
    pub phase: u32,
    /// Arrivals still pending in the phase, and expected per phase.
    pub pending: i64,
    /// Arrivals expected per phase.
    pub expected: i64,
    /// Transaction bytes expected and not completed (the known part).
    pub tx: i64,
    /// Tensor copies of unknown size completed in the phase.
    pub unknown_done: u32,
}
