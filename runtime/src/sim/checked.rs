//! The `?`-friendly form of a simulated run: a finding is an error.

use super::{KernelArgs, Launch, Outcome, Report, SimError, Stats, simulate};
use std::fmt;

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

/// [`simulate`], with a finding as `Err`: what a `#[kernel]`'s generated `simulate` calls.
pub fn run<A: KernelArgs>(
    spec: &crate::KernelSpec,
    launch: &Launch,
    args: A,
) -> Result<Stats, RunError> {
    match simulate(spec, launch, args) {
        Ok(Outcome::Completed(stats)) => Ok(stats),
        Ok(Outcome::Finding(report)) => Err(RunError::Finding(report)),
        Err(e) => Err(RunError::Simulator(e)),
    }
}
