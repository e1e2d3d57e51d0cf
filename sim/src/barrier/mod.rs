//! The three barrier families of the PTX ISA: named CTA barriers (`bar`/`barrier`), mbarrier
//! objects in shared memory, and the cluster barrier.
//!
//! Each is a state machine with the spec's semantics and no knowledge of the machine: its
//! operations take thread ids, lane masks and counts and return what happened (threads to
//! wake, a completed phase) or the rule broken as a [`Violation`]. Reading operands,
//! blocking and waking warps and naming sites are the machine's (`exec::barrier`,
//! `exec::mbar`), so the dependency runs one way: machine → barrier.

use super::report::{FindingKind, Report};

pub(crate) mod cluster;
pub(crate) mod mbarrier;
pub(crate) mod named;

/// Lanes of one warp at one instruction: where a barrier operation happens.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// Flat warp index in the cluster.
    pub warp: u32,
    pub lanes: u32,
    pub pc: u32,
}

/// A rule a barrier operation broke: the report with its message, state and notes, and the
/// sites the machine turns into [`Site`](super::report::Site)s, in order.
#[derive(Debug)]
pub(crate) struct Violation {
    /// Boxed: a `Result` with a violation stays as small as the success it usually is.
    pub report: Box<Report>,
    pub sites: Vec<(Who, String)>,
}

/// Who a site of a [`Violation`] names.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Who {
    Lanes(At),
    Actor(mbarrier::Actor),
}

impl Violation {
    pub(crate) fn new(kind: FindingKind, spec: &str, message: impl Into<String>) -> Violation {
        Violation {
            report: Box::new(Report::new(kind, spec, message)),
            sites: Vec::new(),
        }
    }
    pub(crate) fn site(mut self, at: At, what: impl Into<String>) -> Violation {
        self.sites.push((Who::Lanes(at), what.into()));
        self
    }
    pub(crate) fn actor(mut self, actor: mbarrier::Actor, what: impl Into<String>) -> Violation {
        self.sites.push((Who::Actor(actor), what.into()));
        self
    }
    pub(crate) fn state(mut self, line: impl Into<String>) -> Violation {
        self.report.state.push(line.into());
        self
    }
    pub(crate) fn note(mut self, line: impl Into<String>) -> Violation {
        self.report.notes.push(line.into());
        self
    }
}
