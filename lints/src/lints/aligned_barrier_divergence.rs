// This lint's documentation is `lints/explain/aligned_barrier_divergence.md`: the one text that rustdoc shows here,
// `phasegate lint --explain aligned_barrier_divergence` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/aligned_barrier_divergence.md")]

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
    explanation: include_str!("../../explain/aligned_barrier_divergence.md"),
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
