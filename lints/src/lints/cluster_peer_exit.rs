// This lint's documentation is `lints/explain/cluster_peer_exit.md`: the one text that rustdoc shows here,
// `phasegate lint --explain cluster_peer_exit` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/cluster_peer_exit.md")]

use super::LintInfo;
use crate::diagnostic::Level;

/// `cluster_peer_exit`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it. Only witnesses report it (no static candidate).
pub const LINT: LintInfo = LintInfo {
    name: "cluster_peer_exit",
    default: Level::Deny,
    summary: "a CTA of a cluster exits while a peer CTA still accesses its shared memory",
    explanation: include_str!("../../explain/cluster_peer_exit.md"),
};
