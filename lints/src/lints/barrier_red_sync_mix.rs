// This lint's documentation is `lints/explain/barrier_red_sync_mix.md`: the one text that rustdoc shows here,
// `phasegate lint --explain barrier_red_sync_mix` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/barrier_red_sync_mix.md")]

use super::{Context, LintInfo, Sink};
use crate::barriers::{BarKind, CtaBarrier, cta_barriers};
use crate::diagnostic::Level;
use crate::uniformity::Level as U;

/// `barrier_red_sync_mix`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it.
pub const LINT: LintInfo = LintInfo {
    name: "barrier_red_sync_mix",
    default: Level::Deny,
    summary: "one barrier id used by bar.red and by bar.sync/bar.arrive at the same time",
    explanation: include_str!("../../explain/barrier_red_sync_mix.md"),
};

/// Whether every thread of the CTA executes this barrier, in the same order as the others.
fn cta_wide(cx: &Context, b: &CtaBarrier) -> bool {
    let fa = cx.fa;
    let Some(inst) = fa.inst(b.stmt) else {
        return false;
    };
    b.count.is_none()
        && fa.uni.control(fa.block(b.stmt)).0 <= U::Cta
        && fa.uni.guard_level(b.stmt, inst, &fa.vars).0 <= U::Cta
}

/// Reports to `sink` the barrier ids used by `bar.red` and by `bar.sync`/`bar.arrive` where both
/// can be pending at once, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let bars = cta_barriers(fa);
    let mut reported: Vec<i64> = Vec::new();
    for r in bars.iter().filter(|b| b.kind == BarKind::Red) {
        let Some(id) = r.id_const() else { continue };
        if reported.contains(&id) {
            continue;
        }
        for s in bars
            .iter()
            .filter(|b| b.kind != BarKind::Red && b.id_const() == Some(id))
        {
            let both_wide = cta_wide(cx, r) && cta_wide(cx, s);
            let arrive_then_red = s.kind == BarKind::Arrive && fa.reaches(s.stmt, r.stmt);
            let conflict = if both_wide { arrive_then_red } else { true };
            if !conflict {
                continue;
            }
            reported.push(id);
            let why = if arrive_then_red {
                "the arrive does not wait, so the reduction can join its instance".to_string()
            } else {
                "they are executed by different groups of threads, so both can be pending on the barrier at once".to_string()
            };
            sink.report(
                cx,
                &LINT,
                r.stmt,
                format!("barrier {id} is used by `{}` here and by `{}` at line {}: {why}", r.name, s.name, fa.line(s.stmt)),
                vec![(s.stmt, format!("`{}` on barrier {id}", s.name))],
                vec![
                    "PTX ISA §9.7.13.1: barrier.red should not be intermixed with barrier.sync or barrier.arrive using the same active barrier; execution is unpredictable (an H100 traps)".into(),
                    "give the reduction a barrier id of its own".into(),
                ],
            );
            break;
        }
    }
}
