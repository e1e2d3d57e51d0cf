// This lint's documentation is `lints/explain/mbarrier_tx_mismatch.md`: the one text that rustdoc shows here,
// `phasegate lint --explain mbarrier_tx_mismatch` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/mbarrier_tx_mismatch.md")]

use super::{Context, LintInfo, Sink};
use crate::consts::{Term, Val};
use crate::diagnostic::Level;
use crate::mbar::{MbarKind, MbarOp, Obj};
use phasegate_ptx::StmtId;

/// `mbarrier_tx_mismatch`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it.
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_tx_mismatch",
    default: Level::Deny,
    summary: "the expect_tx total differs from the bytes the phase's bulk copies complete",
    explanation: include_str!("../../explain/mbarrier_tx_mismatch.md"),
};

/// A sum of byte counts: a constant plus symbolic terms.
#[derive(Clone, Debug, Default, PartialEq)]
struct Sum {
    constant: i64,
    terms: Vec<Term>,
}

impl Sum {
    fn add(&mut self, v: &Val) -> bool {
        match v {
            Val::Const(c) => {
                self.constant += c;
                true
            }
            Val::Expr(e) if e.base.is_none() => {
                self.constant += e.add;
                if let Some(t) = e.term {
                    self.terms.push(t);
                }
                true
            }
            _ => false,
        }
    }
    fn normal(mut self) -> Sum {
        self.terms
            .sort_by_key(|t| (t.var, t.shift, t.mask, t.xor, t.lshift));
        self
    }
    fn show(&self, cx: &Context) -> String {
        let mut parts: Vec<String> = self
            .terms
            .iter()
            .map(|t| {
                if t.is_plain() {
                    format!("`{}`", cx.fa.vars.name(t.var))
                } else {
                    format!("an expression of `{}`", cx.fa.vars.name(t.var))
                }
            })
            .collect();
        if self.constant != 0 || parts.is_empty() {
            parts.push(self.constant.to_string());
        }
        parts.join(" + ")
    }
}

/// Reports to `sink` the expect_tx totals that differ from the bytes the phase's copies complete,
/// in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let ops = cx.mbar_ops();
    let expects: Vec<&MbarOp> = ops
        .iter()
        .filter(|o| {
            // An expectation of zero bytes changes nothing and needs no copy.
            let tx = match &o.kind {
                MbarKind::Arrive { tx: Some(tx), .. } | MbarKind::ExpectTx { tx } => Some(tx),
                _ => None,
            };
            tx.is_some_and(|tx| tx.as_const() != Some(0)) && matches!(o.obj, Obj::Local { .. })
        })
        .collect();
    let mut done: Vec<StmtId> = Vec::new();
    for e in &expects {
        if done.contains(&e.stmt) {
            continue;
        }
        let region = fa.loops.innermost(fa.block(e.stmt));
        let same_region =
            |o: &MbarOp| fa.loops.innermost(fa.block(o.stmt)) == region && o.obj == e.obj;
        let group_expects: Vec<&MbarOp> =
            expects.iter().copied().filter(|o| same_region(o)).collect();
        let completes: Vec<&MbarOp> = ops
            .iter()
            .filter(|o| {
                matches!(o.kind, MbarKind::Copy { .. } | MbarKind::CompleteTx { .. })
                    && same_region(o)
            })
            .collect();
        done.extend(group_expects.iter().map(|o| o.stmt));
        if completes.is_empty() {
            // Nothing completes on this object anywhere (any region, any offset of the symbol)?
            let anywhere = ops.iter().any(|o| {
                matches!(o.kind, MbarKind::Copy { .. } | MbarKind::CompleteTx { .. })
                    && (o.obj.may_alias(&e.obj) || matches!(o.obj, Obj::Unknown | Obj::Remote))
            });
            if !anywhere {
                sink.report(cx, &LINT, e.stmt, format!("expect_tx on {} but no bulk copy or complete_tx ever completes transactions on it: the phase cannot complete", e.obj.describe(fa)), Vec::new(), vec![
                    "PTX ISA §9.7.13.15.6: a phase completes when the pending arrivals and the tx-count reach zero".into(),
                    "pass this mbarrier to the bulk copy (`.mbarrier::complete_tx::bytes [..], [..], size, [bar]`), or drop the expect_tx".into(),
                ]);
            }
            continue;
        }
        if completes.iter().any(|c| {
            matches!(
                c.kind,
                MbarKind::Copy { bytes: None, .. }
                    | MbarKind::Copy {
                        multicast: true,
                        ..
                    }
            )
        }) {
            continue;
        }
        let mut expected = Sum::default();
        let mut known = true;
        for x in &group_expects {
            let v = match &x.kind {
                MbarKind::Arrive { tx: Some(v), .. } | MbarKind::ExpectTx { tx: v } => v,
                _ => continue,
            };
            known &= expected.add(v);
        }
        let mut moved = Sum::default();
        for c in &completes {
            let v = match &c.kind {
                MbarKind::Copy { bytes: Some(v), .. } | MbarKind::CompleteTx { tx: v } => v,
                _ => continue,
            };
            known &= moved.add(v);
        }
        if !known {
            continue;
        }
        let (expected, moved) = (expected.normal(), moved.normal());
        let comparable =
            expected.terms.is_empty() && moved.terms.is_empty() || expected.terms == moved.terms;
        if !comparable || expected == moved {
            continue;
        }
        let related: Vec<(StmtId, String)> = completes
            .iter()
            .map(|c| (c.stmt, "completes transactions on the object".to_string()))
            .collect();
        sink.report(
            cx,
            &LINT,
            e.stmt,
            format!("expect_tx announces {} bytes on {} but the copies of the phase complete {} bytes", expected.show(cx), e.obj.describe(fa), moved.show(cx)),
            related,
            vec![
                "PTX ISA §9.7.13.15.5: the tx-count must be set to the total of the asynchronous transactions the phase tracks; too many never complete (hang), too few complete the phase before the data".into(),
                "expect exactly the bytes the copies of this phase move".into(),
            ],
        );
    }
}
