// This lint's documentation is `lints/explain/mbarrier_deadlock.md`: the one text that rustdoc shows here,
// `phasegate lint --explain mbarrier_deadlock` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/mbarrier_deadlock.md")]

use super::LintInfo;
use crate::diagnostic::Level;

/// `mbarrier_deadlock`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it. Only witnesses report it (no static candidate).
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_deadlock",
    default: Level::Deny,
    summary: "threads wait on an mbarrier phase whose arrivals never come",
    explanation: include_str!("../../explain/mbarrier_deadlock.md"),
};
