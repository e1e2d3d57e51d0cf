//! The `?`-friendly form of a simulated run's result: a finding is an error.

use super::{Report, SimError};
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
