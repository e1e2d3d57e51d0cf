//! How a run ended ([`Outcome`]), its counts ([`Stats`]), and the `?`-friendly form of the
//! result, where a finding is an error ([`RunError`]).

use crate::error::SimError;
use crate::report::Report;
use std::fmt;

/// Counts of a run, and what it found below the level that stops a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions issued, counted once per thread of the issuing group.
    pub thread_instructions: u64,
    /// Instructions issued, counted once per warp group.
    pub warp_instructions: u64,
    /// Clusters run.
    pub clusters: u64,
    /// CTAs run.
    pub ctas: u64,
    /// Phases completed by named barriers (`bar`/`barrier`, reductions included).
    pub barrier_phases: u64,
    /// Phases completed by mbarrier objects.
    pub mbarrier_phases: u64,
    /// Phases completed by cluster barriers (`barrier.cluster`).
    pub cluster_phases: u64,
    /// Asynchronous operations issued: `cp.async`, bulk and tensor copies,
    /// `cp.async.mbarrier.arrive`.
    pub async_ops: u64,
    /// Scheduling decisions.
    pub decisions: u64,
    /// Warnings: behaviour the spec allows but that is almost always a bug, and that the run
    /// went on past (threads that exit without an aligned barrier the rest of their warp
    /// executes), each once per instruction.
    pub warnings: Vec<Report>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every thread exited and nothing was found.
    Completed(Stats),
    /// The kernel broke a rule of the spec; the run stopped there.
    Finding(Box<Report>),
}

impl Outcome {
    /// Whether every thread exited with nothing found.
    pub fn is_completed(&self) -> bool {
        matches!(self, Outcome::Completed(_))
    }
    /// The report of a finding (`None` for a completed run).
    pub fn report(&self) -> Option<&Report> {
        match self {
            Outcome::Finding(r) => Some(r),
            Outcome::Completed(_) => None,
        }
    }
    /// The stats of a completed run; panics with the report otherwise (for tests).
    #[track_caller]
    pub fn expect_completed(self) -> Stats {
        match self {
            Outcome::Completed(s) => s,
            Outcome::Finding(r) => panic!("expected the run to complete, but:\n{r}"),
        }
    }
    /// The report of a finding; panics otherwise (for tests).
    #[track_caller]
    pub fn expect_finding(self) -> Report {
        match self {
            Outcome::Finding(r) => *r,
            Outcome::Completed(s) => panic!(
                "expected a finding, but the run completed ({} thread-instructions)",
                s.thread_instructions
            ),
        }
    }
}

/// Why a run did not complete cleanly: the kernel broke a rule (a deadlock, undefined
/// behaviour, an out-of-bounds access, a trap) or the simulator could not run it.
#[derive(Clone, Debug)]
pub enum RunError {
    /// The kernel broke a rule of the spec; the report says which, where and how.
    Finding(Box<Report>),
    /// The simulator could not run the kernel (not the kernel's fault).
    Simulator(SimError),
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Finding(report) => write!(f, "{report}"),
            RunError::Simulator(e) => write!(f, "the simulator could not run the kernel: {e}"),
        }
    }
}

impl std::error::Error for RunError {}
