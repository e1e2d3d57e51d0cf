//! Witnesses: the runs that prove findings.
//!
//! A `deny` finding of a barrier protocol rule is a claim about an execution, so the analyzer
//! looks for one. It runs the kernel in the simulator (`phasegate_sim::probe`): the same
//! barrier state machines, happens-before clocks and scheduler that `phasegate sim` uses, with
//! the inputs the PTX does not hold made up (the parameter block, global memory, tensor maps).
//! It tries a few launches and many schedules ([`explore`]) and keeps every run that stops on
//! a broken rule: the rule names the lint ([`classify`]), the run's barrier events become the
//! witness's steps ([`steps`]). A finding the runs do not reproduce is not denied: the static
//! lints' candidates become warnings that say why they are unproven, or nothing when the runs
//! covered the code and found the rule kept.
//!
//! What a witness cannot show: a bug that needs inputs the runs did not choose (a trip count,
//! a flag), a schedule they did not try, more than one cluster of the grid, or the bytes of a
//! tensor copy (its box is in a tensor map the PTX does not hold; the runs assume the copies
//! deliver what their barriers expect). The witness names the launch and schedule it used;
//! `phasegate sim --witness` replays it.

pub mod classify;
mod explore;
pub mod launch;
pub mod params;
pub mod replay;
pub mod skeleton;
pub mod steps;

pub use explore::{Budget, prove};

use crate::diagnostic::Witness;
use crate::lints::LintInfo;
use phasegate_ptx::StmtId;
use std::collections::HashSet;

/// A finding a run proved: its lint, where the rule broke, and the run.
#[derive(Clone, Debug)]
pub struct Proven {
    /// The lint the broken rule belongs to.
    pub lint: &'static LintInfo,
    /// The function of the statement that broke the rule.
    pub function: String,
    /// The statement that broke the rule.
    pub stmt: StmtId,
    /// The thread-instructions the run took to break it (the shortest run is kept).
    pub cost: u64,
    /// The simulator's description of the broken rule, lowercase.
    pub message: String,
    /// The PTX ISA section of the rule.
    pub spec: String,
    /// The simulator's notes (the barriers' states, the rule quoted).
    pub notes: Vec<String>,
    /// The run.
    pub witness: Witness,
    /// Why the run may be one the kernel never makes (a block shape the PTX does not declare
    /// and the kernel's roles depend on): the finding is then unproven.
    pub unproven: Option<String>,
}

/// What the runs of one entry found and covered.
#[derive(Clone, Debug, Default)]
pub struct Proof {
    /// The findings the runs proved, one per lint and statement.
    pub findings: Vec<Proven>,
    /// Why the runs may have missed something: runs that stopped on what says nothing about
    /// the barriers under made-up inputs (an instruction the simulator does not run, a trap,
    /// an access outside memory), or no launch that fits the kernel.
    pub unproven: Vec<String>,
    /// The statements (function, statement) of the barrier operations some run executed.
    pub reached: HashSet<(String, StmtId)>,
    /// How many runs were made.
    pub runs: usize,
    /// The launch the runs used, described.
    pub launch: String,
    /// The barrier skeleton of the run that chose the launch ([`skeleton`]).
    pub skeleton: skeleton::Skeleton,
}

impl Proof {
    /// Whether the runs reached `stmt` of `function` (executed it as a barrier operation).
    pub fn reached(&self, function: &str, stmt: StmtId) -> bool {
        self.reached.contains(&(function.to_string(), stmt))
    }
}
