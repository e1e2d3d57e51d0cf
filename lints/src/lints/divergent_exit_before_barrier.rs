//! ### What it does
//! Finds threads that leave the kernel (`ret`/`exit`, or a jump to one) under a condition that
//! is not uniform enough for an aligned barrier that the remaining threads execute later, as
//! in `if (i >= n) return; __syncthreads();`.
//!
//! ### Why is this bad
//! The barrier counts only non-exited threads (PTX ISA §9.7.13.1: "wait for all non-exited
//! threads"), so this often works; but the spec's rule for aligned barriers is that all
//! threads evaluate the condition identically, the pattern breaks as soon as the exit is
//! replaced by code that continues, and a warp whose threads are split by the exit executes
//! the aligned barrier divergently. It is a warning: correct code may do this knowingly.
//!
//! ### What its witness shows
//! Nothing: it is a warning, and a warning needs no witness; the threads that exit are not
//! counted by later barriers (§9.7.13.1 waits for the non-exited threads), so the code may be
//! correct.
//!
//! ### What it cannot decide
//! Whether the exit is intended.
//!
//! ### Example
//! ```ptx
//! setp.ge.u32 %p1, %r1, %r2;   // %r1 = global thread index
//! @%p1 bra DONE;
//! bar.sync 0;
//! DONE:
//! ret;
//! ```
//!
//! ### Use instead
//! Keep every thread alive to the last barrier and guard only the work:
//! `if (i < n) { ... } __syncthreads();`.

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
