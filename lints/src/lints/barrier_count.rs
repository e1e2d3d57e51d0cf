// This lint's documentation is `lints/explain/barrier_count.md`: the one text that rustdoc shows here,
// `phasegate lint --explain barrier_count` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/barrier_count.md")]

use super::{Context, LintInfo, Sink};
use crate::barriers::{BarKind, cta_barriers};
use crate::diagnostic::Level;
use phasegate_ptx::Function;

/// This lint's entry in [`crate::LINTS`]: `barrier_count`, denied by default.
pub const LINT: LintInfo = LintInfo {
    name: "barrier_count",
    default: Level::Deny,
    summary: "a barrier id out of 0..15, a thread count not a multiple of 32, an arrive without count, or different counts for one id",
    explanation: include_str!("../../explain/barrier_count.md"),
};

/// The number of threads of the CTA: exact from `.reqntid`, an upper bound from `.maxntid`.
pub(crate) fn cta_threads(function: &Function) -> (Option<u64>, Option<u64>) {
    let product = |name: &str| {
        function
            .directive_dims(name)
            .map(|(x, y, z)| x as u64 * y as u64 * z as u64)
    };
    (product("reqntid"), product("maxntid"))
}

/// Reports to `sink` the barrier ids out of `0..15`, bad thread counts, arrives without a count and
/// one id used with different counts, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let (exact, bound) = cta_threads(fa.function);
    let spec = "PTX ISA §9.7.13.1";
    let bars = cta_barriers(fa);
    for b in &bars {
        if let Some(id) = b.id_const()
            && !(0..=15).contains(&id)
        {
            sink.report(
                cx,
                &LINT,
                b.stmt,
                format!("barrier id {id} of `{}` is out of range", b.name),
                Vec::new(),
                vec![format!(
                    "{spec}: each CTA has sixteen barriers numbered 0..15"
                )],
            );
        }
        match (&b.count, b.kind) {
            (None, BarKind::Arrive) => {
                sink.report(cx, &LINT, b.stmt, format!("`{}` needs a thread count", b.name), Vec::new(), vec![
                    format!("{spec}: a non-zero thread count is required for barrier.arrive"),
                    "give the number of threads that take part (arrivers and waiters), a multiple of 32".into(),
                ]);
            }
            (Some(c), _) => {
                if let Some(c) = c.as_const() {
                    if c <= 0 || c % 32 != 0 {
                        sink.report(cx, &LINT, b.stmt, format!("thread count {c} of `{}` is not a positive multiple of 32", b.name), Vec::new(), vec![
                            format!("{spec}: when specifying a thread count, the value must be a multiple of the warp size"),
                        ]);
                    } else if let Some(limit) = exact.or(bound)
                        && c as u64 > limit
                    {
                        sink.report(cx, &LINT, b.stmt, format!("thread count {c} of `{}` is more than the {limit} threads of the CTA", b.name), Vec::new(), vec![
                            "the barrier can never complete: not enough threads can arrive".into(),
                        ]);
                    }
                }
            }
            (None, _) => {}
        }
    }
    // One id, one count, among the uses that can be pending at once. A CTA-wide use (no count,
    // or the whole CTA's) that comes before the other use on every path (dominance), and that
    // no loop repeats with it, has completed for every thread before any thread reaches the
    // other: Triton's warp-specialised kernels use `bar.sync 0` for all threads before the
    // partitions split and `bar.sync 0, 128` in one partition after. A CTA-wide use after a
    // counted one is not apart from it: threads that are done with the counted phases (or never
    // had them) can arrive there while a counted phase is still pending.
    let cta_wide = |count: Option<i64>, counted: bool| !counted || count == exact.map(|e| e as i64);
    // `all` is the CTA-wide use, `counted` the other.
    let apart = |all: phasegate_ptx::StmtId, counted: phasegate_ptx::StmtId| {
        fa.stmt_dominates(all, counted)
            && !fa
                .loops
                .nest(fa.block(all))
                .iter()
                .any(|&l| fa.loops.loops[l].contains(fa.block(counted)))
    };
    let mut seen: Vec<(i64, Option<i64>, bool, phasegate_ptx::StmtId)> = Vec::new();
    for b in &bars {
        let Some(id) = b.id_const() else { continue };
        let count = match &b.count {
            None => exact.map(|e| e as i64),
            Some(c) => match c.as_const() {
                Some(v) => Some(v),
                None => continue,
            },
        };
        let count_key = if b.count.is_none() && exact.is_none() {
            None
        } else {
            count
        };
        let counted = b.count.is_some();
        let conflict = seen.iter().find(|&&(i, c0, counted0, s0)| {
            i == id
                && c0 != count_key
                && !(cta_wide(c0, counted0) && apart(s0, b.stmt)
                    || cta_wide(count_key, counted) && apart(b.stmt, s0))
        });
        if let Some(&(_, c0, _, s0)) = conflict {
            let show = |c: Option<i64>| {
                c.map(|v| format!("thread count {v}"))
                    .unwrap_or_else(|| "no thread count (all threads)".into())
            };
            sink.report(
                cx,
                &LINT,
                b.stmt,
                format!("barrier {id} is used with {} here and with {} at line {}", show(count_key), show(c0), fa.line(s0)),
                vec![(s0, format!("barrier {id} with {}", show(c0)))],
                vec![format!("{spec}: the warps that use one barrier must agree on the thread count; use another barrier id for the other group")],
            );
        }
        seen.push((id, count_key, counted, b.stmt));
    }
}
