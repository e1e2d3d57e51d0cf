// This lint's documentation is `lints/explain/missing_proxy_fence.md`: the one text that rustdoc shows here,
// `phasegate lint --explain missing_proxy_fence` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/missing_proxy_fence.md")]

use super::{Context, LintInfo, Sink};
use crate::consts::Val;
use crate::diagnostic::Level;
use crate::protocol::forward;
use phasegate_ptx::{Instruction, Opcode, Operand, StmtId};
use std::collections::BTreeMap;

/// This lint's entry in [`crate::LINTS`]: `missing_proxy_fence`, denied by default.
pub const LINT: LintInfo = LintInfo {
    name: "missing_proxy_fence",
    default: Level::Deny,
    summary: "generic-proxy shared stores read by a bulk copy without fence.proxy.async",
    explanation: include_str!("../../explain/missing_proxy_fence.md"),
};

/// What a statement does for this lint.
#[derive(Clone, Debug, PartialEq)]
enum Effect {
    /// A generic-proxy write to shared memory, of the symbol when known.
    Store(Option<String>),
    Fence,
    /// A bulk copy reading shared memory of the symbol when known.
    CopyFrom(Option<String>),
}

fn shared_sym(v: &Val) -> Option<String> {
    match v {
        Val::Expr(e) => e.base.clone(),
        _ => None,
    }
}

fn effect(cx: &Context, stmt: StmtId, inst: &Instruction) -> Option<Effect> {
    let fa = cx.fa;
    let shared = |inst: &Instruction| {
        inst.modifiers
            .iter()
            .any(|m| m == "shared" || m == "shared::cta" || m == "shared::cluster")
    };
    let addr_sym = |i: usize| {
        inst.operands
            .get(i)
            .map(|o| fa.consts.operand(stmt, o, &fa.vars))
            .as_ref()
            .and_then(shared_sym)
    };
    match &inst.opcode {
        Opcode::St if shared(inst) && !inst.has("async") => Some(Effect::Store(addr_sym(0))),
        Opcode::Red if shared(inst) && !inst.has("async") => Some(Effect::Store(addr_sym(0))),
        Opcode::Atom if shared(inst) => Some(Effect::Store(addr_sym(1))),
        Opcode::Other(n) if n == "stmatrix" => Some(Effect::Store(addr_sym(0))),
        Opcode::Fence if inst.has("proxy") && inst.has("async") && !inst.has("global") => {
            Some(Effect::Fence)
        }
        Opcode::Cp | Opcode::Other(_) if is_bulk_from_shared(inst) => {
            // The source operand: the second, `[srcMem]`.
            let src = inst
                .operands
                .iter()
                .enumerate()
                .filter(|(_, o)| matches!(o, Operand::Address(_)))
                .nth(1)
                .map(|(i, _)| i)
                .unwrap_or(1);
            Some(Effect::CopyFrom(addr_sym(src)))
        }
        _ => None,
    }
}

/// `cp{.reduce}.async.bulk{.tensor.Nd}.DST.SRC...` with a shared source.
fn is_bulk_from_shared(inst: &Instruction) -> bool {
    let is_cp =
        matches!(&inst.opcode, Opcode::Cp) || matches!(&inst.opcode, Opcode::Other(n) if n == "cp");
    if !is_cp
        || !inst.has("async")
        || !inst.has("bulk")
        || inst.has("prefetch")
        || inst.has("commit_group")
        || inst.has("wait_group")
    {
        return false;
    }
    let spaces: Vec<&str> = inst
        .modifiers
        .iter()
        .map(String::as_str)
        .filter(|m| *m == "global" || m.starts_with("shared"))
        .collect();
    spaces.len() >= 2 && spaces[1].starts_with("shared")
}

/// Reports to `sink` the generic-proxy shared-memory stores that a bulk copy reads with no
/// `fence.proxy.async` in between, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let effects: Vec<Option<Effect>> = fa
        .body
        .iter()
        .map(|(id, _)| fa.inst(id).and_then(|i| effect(cx, id, i)))
        .collect();
    if !effects
        .iter()
        .any(|e| matches!(e, Some(Effect::CopyFrom(_))))
    {
        return;
    }
    // State: per shared symbol (`None`: an address the analysis cannot name), the first store
    // that may not be fenced yet. One store per symbol is all a report names, and it keeps the
    // state small however many stores a kernel has.
    type Unfenced = BTreeMap<Option<String>, StmtId>;
    let step = |b: usize, s: &Unfenced, mut out: Option<&mut Vec<(StmtId, StmtId)>>| {
        let mut st = s.clone();
        for stmt in fa.cfg.blocks[b].stmts() {
            match &effects[stmt.index()] {
                Some(Effect::Store(dst)) => {
                    st.entry(dst.clone()).or_insert(stmt);
                }
                Some(Effect::Fence) => {
                    let guarded = fa.inst(stmt).is_some_and(|i| i.guard.is_some());
                    if !guarded {
                        st.clear();
                    }
                }
                Some(Effect::CopyFrom(src)) => {
                    // Stores of another known symbol do not overlap the copy's source.
                    let store = st
                        .iter()
                        .filter(|(dst, _)| match (dst, src) {
                            (Some(a), Some(b)) => a == b,
                            _ => true,
                        })
                        .map(|(_, &store)| store)
                        .min();
                    if let (Some(o), Some(store)) = (out.as_deref_mut(), store) {
                        o.push((store, stmt));
                    }
                }
                None => {}
            }
        }
        st
    };
    let ins = forward(
        fa,
        Unfenced::new(),
        |b, s| step(b, s, None),
        |_, _, _, s| s.clone(),
        |cur, new| {
            let mut changed = false;
            for (sym, &store) in new {
                match cur.get_mut(sym) {
                    None => {
                        cur.insert(sym.clone(), store);
                        changed = true;
                    }
                    Some(slot) if store < *slot => {
                        *slot = store;
                        changed = true;
                    }
                    Some(_) => {}
                }
            }
            changed
        },
    );
    let mut pairs = Vec::new();
    for (b, state) in ins.iter().enumerate() {
        if let Some(s) = state {
            step(b, s, Some(&mut pairs));
        }
    }
    let mut done: Vec<StmtId> = Vec::new();
    for (store, copy) in pairs {
        if done.contains(&copy) {
            continue;
        }
        done.push(copy);
        let what = fa.inst(copy).map(|i| i.full_name()).unwrap_or_default();
        let sym = match &effects[copy.index()] {
            Some(Effect::CopyFrom(Some(s))) => format!(" `{s}`"),
            _ => String::new(),
        };
        sink.report(
            cx,
            &LINT,
            copy,
            format!("`{what}` reads shared memory{sym} that the generic-proxy store at line {} wrote, with no `fence.proxy.async` in between", fa.line(store)),
            vec![(store, "the store (generic proxy)".into())],
            vec![
                "the bulk copy runs in the async proxy, which sees generic-proxy writes only after a proxy fence (PTX ISA memory consistency model: proxies)".into(),
                "the threads that store execute `fence.proxy.async.shared::cta` after their stores and before the barrier that precedes the copy".into(),
            ],
        );
    }
}
