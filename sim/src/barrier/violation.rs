//! What the three barrier families share: the sites of an operation ([`At`]: lanes of a warp
//! at an instruction; [`Actor`]: a thread or an async operation acting on an mbarrier) and the
//! rule an operation broke ([`Violation`]), which the machine turns into a report.

use crate::report::{FindingKind, Report};

/// Lanes of one warp at one instruction: where a barrier operation happens.
#[derive(Clone, Copy, Debug)]
pub(crate) struct At {
    /// Flat warp index in the cluster.
    pub warp: u32,
    pub lanes: u32,
    pub pc: u32,
}

/// Who performs an arrive-on or complete-tx: a thread, or an async operation issued by one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Actor {
    pub warp: u32,
    pub lane: u32,
    pub pc: u32,
    /// Whether the actor is the async proxy (an operation the thread issued).
    pub async_op: bool,
    /// Simulated time of the operation.
    pub time: u64,
}

/// A rule a barrier operation broke: the report with its message, state and notes, and the
/// sites the machine turns into [`Site`](crate::report::Site)s, in order.
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
    Actor(Actor),
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
    pub(crate) fn actor(mut self, actor: Actor, what: impl Into<String>) -> Violation {
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
