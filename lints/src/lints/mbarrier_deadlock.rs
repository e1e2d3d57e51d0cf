//! ### What it does
//! Finds threads that wait on an mbarrier phase that never completes because arrivals it counts
//! never come: the expected count is larger than the number of threads that arrive, or the
//! arriving threads themselves wait for something only the waiters would release. Only a
//! witness reports it: a run in which every live thread is blocked, some on the mbarrier. A
//! deadlock that a wrong parity or a transaction count explains is reported by
//! `mbarrier_parity_mismatch` or `mbarrier_tx_mismatch` instead.
//!
//! ### Why is this bad
//! PTX ISA §9.7.13.15.6: a phase completes when the pending arrival count reaches zero and no
//! transaction is pending. A phase whose count is never reached keeps its waiters waiting
//! forever: the kernel hangs.
//!
//! ### What its witness shows
//! A run in which every live thread is blocked and some wait on an mbarrier phase whose arrivals
//! or bytes never come (not a parity or a byte count: an arrival that no thread makes).
//!
//! ### What it cannot decide
//! A deadlock that needs more iterations or other parameters than the runs choose; a run that
//! exhausts its step budget is no deadlock; and inputs the runs do not choose (a trip count or
//! flag from a parameter, data in global memory: the runs make every integer parameter 1, 128,
//! 2048 or 65536 and memory all 0 or all 0xff), schedules they do not try (round-robin, PCT of
//! depth 2 and 3, random; up to 36 runs), and launches the PTX does not declare (the block is
//! guessed when there is no `.reqntid`/`.maxntid`, and a guess is no proof for a kernel that
//! reads `%tid.y`/`%tid.z`).
//!
//! ### Example
//! ```ptx
//! mbarrier.init.shared::cta.b64 [bar], 160;   // 128 threads arrive
//! ```
//!
//! ### Use instead
//! Initialise the mbarrier with the number of arrivals its phase receives (the number of
//! threads that arrive, or 1 per elected thread).

use super::LintInfo;
use crate::diagnostic::Level;

/// `mbarrier_deadlock`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it. Only witnesses report it (no static candidate).
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_deadlock",
    default: Level::Deny,
    summary: "threads wait on an mbarrier phase whose arrivals never come",
};
