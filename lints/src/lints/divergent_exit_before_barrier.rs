// This lint's documentation is `lints/explain/divergent_exit_before_barrier.md`: the one text that rustdoc shows here,
// `phasegate lint --explain divergent_exit_before_barrier` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/divergent_exit_before_barrier.md")]

use super::aligned_barrier_divergence::requirement;
use super::control::{Leaving, report_exits};
use super::{Context, LintInfo, Sink};
use crate::diagnostic::Level;
use phasegate_ptx::StmtId;

/// `divergent_exit_before_barrier`: its name, default level (warn) and summary, as [`crate::LINTS`]
/// lists it.
pub const LINT: LintInfo = LintInfo {
    name: "divergent_exit_before_barrier",
    default: Level::Warn,
    summary: "threads exit under a divergent condition before an aligned barrier the others execute",
    explanation: include_str!("../../explain/divergent_exit_before_barrier.md"),
};

/// Reports to `sink` the threads that exit under a divergent condition before an aligned barrier
/// the others execute, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    // One finding per exit branch, at the first barrier after it.
    let mut reported: Vec<StmtId> = Vec::new();
    for (stmt, _) in fa.instructions() {
        let Some(req) = requirement(cx, stmt) else {
            continue;
        };
        report_exits(
            cx,
            sink,
            &LINT,
            (stmt, &req.what),
            req.allowed,
            Leaving {
                who: "threads",
                notes: [
                    "PTX ISA §9.7.13.1: aligned barriers assume all threads evaluate the conditions around them identically; exited threads are not waited for".into(),
                    "keep all threads to the barrier and guard the work instead of returning early".into(),
                ],
            },
            &mut reported,
        );
    }
}
