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
