//! ### What it does
//! Finds aligned barriers executed under control that is not uniform enough for their form:
//! - `bar.sync a`, `bar.red`, `barrier.sync.aligned a` without a thread count: every thread of
//!   the CTA must execute the same instruction, so the control must be CTA-uniform;
//! - the same with a thread count, and `bar.arrive`: each participating warp executes it
//!   convergently, so the control must be warp-uniform (`if warp < 2 { bar.sync 1, 64 }` is
//!   fine);
//! - `barrier.cluster.*.aligned`: warp-uniform; and `barrier.cluster.arrive` (aligned or not)
//!   must be reached by every thread of the cluster, so a branch on `%ctaid` or
//!   `%cluster_ctarank` around it is a bug although it is CTA-uniform.
//!
//! Loops count: a barrier in a loop whose trip count differs between threads is under
//! divergent control. A guard (`@%p bar.sync 0`) counts like a branch.
//!
//! ### Why is this bad
//! PTX ISA §9.7.13.1: "an aligned `barrier{.cta}` instruction should only be used if it is
//! known that all threads in CTA evaluate the condition identically, otherwise behavior is
//! undefined." §9.7.13.3 says the same of the warp for `barrier.cluster`, and the cluster
//! barrier completes only when every non-exited thread of the cluster has arrived. In practice
//! the kernel hangs or the barrier completes early and a race follows.
//!
//! ### What its witness shows
//! A run in which the threads of one aligned barrier cannot all meet: lanes of a warp gather at
//! it while the others have exited or wait elsewhere, or (without a count) warps of the CTA never
//! come; the steps are the barrier's arrivals up to the divergence.
//!
//! ### What it cannot decide
//! Divergence that comes from loaded values (the runs' memory is uniform, so such a static
//! candidate stays an unproven warning), and inputs the runs do not choose (a trip count or flag
//! from a parameter, data in global memory: the runs make every integer parameter 1, 128, 2048 or
//! 65536 and memory all 0 or all 0xff), schedules they do not try (round-robin, PCT of depth 2
//! and 3, random; up to 36 runs), and launches the PTX does not declare (the block is guessed
//! when there is no `.reqntid`/`.maxntid`, and a guess is no proof for a kernel that reads
//! `%tid.y`/`%tid.z`).
//!
//! ### Example
//! ```ptx
//! mov.u32 %r1, %tid.x;
//! setp.lt.u32 %p1, %r1, 16;
//! @%p1 bra SKIP;
//! bar.sync 0;
//! SKIP:
//! ```
//!
//! ### Use instead
//! Hoist the barrier out of the branch, give it a thread count and make the condition
//! warp-uniform (`tid.x / 32 < k`), or use the non-aligned `barrier.sync`.

use super::control::{Requirement, Rule, divergence, report};
use super::{Context, LintInfo, Sink};
use crate::barriers::{BarKind, ClusterKind, cluster_barrier, cta_barrier};
use crate::diagnostic::Level;
use crate::uniformity::Level as U;
use phasegate_ptx::StmtId;

/// `aligned_barrier_divergence`: its name, default level (deny) and summary, as [`crate::LINTS`]
/// lists it.
pub const LINT: LintInfo = LintInfo {
    name: "aligned_barrier_divergence",
    default: Level::Deny,
    summary: "an aligned barrier under control that is not uniform enough for its form",
};

/// The requirement of a barrier instruction, if it has one.
pub(crate) fn requirement(cx: &Context, stmt: StmtId) -> Option<Requirement> {
    let fa = cx.fa;
    let inst = fa.inst(stmt)?;
    if let Some(b) = cta_barrier(fa, stmt, inst) {
        if !b.aligned {
            return None;
        }
        let id = b
            .id_const()
            .map(|i| i.to_string())
            .unwrap_or_else(|| "?".into());
        return Some(match (&b.count, b.kind) {
            (None, _) => Requirement {
                allowed: U::Cta,
                what: format!("`{} {id}` without a thread count", b.name),
                who: "every thread of the CTA",
            },
            (Some(_), BarKind::Arrive | BarKind::Sync | BarKind::Red) => Requirement {
                allowed: U::Warp,
                what: format!("`{}` on barrier {id} with a thread count", b.name),
                who: "every thread of each participating warp",
            },
        });
    }
    match cluster_barrier(inst)? {
        (ClusterKind::Arrive, aligned) => Some(Requirement {
            allowed: U::Cluster,
            what: format!(
                "`barrier.cluster.arrive{}`",
                if aligned { ".aligned" } else { "" }
            ),
            who: "every thread of the cluster",
        }),
        (ClusterKind::Wait, true) => Some(Requirement {
            allowed: U::Warp,
            what: "`barrier.cluster.wait.aligned`".into(),
            who: "every thread of the warp",
        }),
        (ClusterKind::Wait, false) => None,
    }
}

/// Reports to `sink` the aligned barriers under control that is not uniform enough for their form,
/// in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    for (stmt, inst) in fa.instructions() {
        let Some(req) = requirement(cx, stmt) else {
            continue;
        };
        let spec = if req.allowed == U::Cluster || inst.has("cluster") {
            "PTX ISA §9.7.13.3"
        } else {
            "PTX ISA §9.7.13.1"
        };
        if let Some(why) = divergence(cx, stmt, inst, &req) {
            let rule = Rule {
                spec,
                noun: "barrier instruction",
                advice: advice(req.allowed),
            };
            report(cx, sink, &LINT, (stmt, inst), &req, &rule, why);
        }
    }
}

fn advice(level: U) -> String {
    match level {
        U::Cluster => "move the arrive out of the branch so that every thread of every CTA of the cluster arrives once".into(),
        U::Cta => "move the barrier out of the branch, or give it a thread count (a multiple of 32) and a warp-uniform condition, or use the non-aligned `barrier.sync`".into(),
        _ => "make the condition warp-uniform (e.g. on `%tid.x / 32`), or use the non-aligned `barrier.sync`".into(),
    }
}
