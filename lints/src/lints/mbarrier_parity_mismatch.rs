// This lint's documentation is `lints/explain/mbarrier_parity_mismatch.md`: the one text that rustdoc shows here,
// `phasegate lint --explain mbarrier_parity_mismatch` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/mbarrier_parity_mismatch.md")]

use super::mbarrier_missing_wait::{Cycle, cycle_of, same_shape};
use super::{Context, LintInfo, Sink};
use crate::analysis::FunctionAnalysis;
use crate::cfg::BlockId;
use crate::diagnostic::Level;
use crate::mbar::{MbarKind, MbarOp, Obj, Parity, parity_of};
use crate::protocol::edge_fact;
use phasegate_ptx::{Opcode, Operand, StmtId};
use std::collections::HashMap;

/// `mbarrier_parity_mismatch`: its name, default level (deny) and summary, as [`crate::LINTS`]
/// lists it.
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_parity_mismatch",
    default: Level::Deny,
    summary: "an mbarrier wait for the parity of a phase that has not started, or of the wrong round",
    explanation: include_str!("../../explain/mbarrier_parity_mismatch.md"),
};

/// Whether `a` comes before `b` in one iteration of loop `lp` (a path inside the body that does
/// not go around through the header).
fn precedes_in_iteration(fa: &FunctionAnalysis, a: StmtId, b: StmtId, lp: usize) -> bool {
    let (ba, bb) = (fa.block(a), fa.block(b));
    if ba == bb {
        return a < b;
    }
    let l = &fa.loops.loops[lp];
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![ba];
    while let Some(x) = stack.pop() {
        for &s in fa.cfg.succs(x) {
            if s >= n || seen[s] || !l.contains(s) || s == l.header {
                continue;
            }
            if s == bb {
                return true;
            }
            seen[s] = true;
            stack.push(s);
        }
    }
    false
}

/// The innermost loop of a block that is not a one-block spin loop (`W: try_wait; @!p bra W`).
fn work_loop(fa: &FunctionAnalysis, b: BlockId) -> Option<usize> {
    fa.loops
        .nest(b)
        .into_iter()
        .find(|&l| fa.loops.loops[l].body.len() > 1)
}

/// Whether `w` runs in the first round (counter below `period`).
fn runs_in_first_round(
    fa: &FunctionAnalysis,
    w: StmtId,
    lp: usize,
    counter: crate::regs::VarId,
    period: i64,
) -> bool {
    let l = &fa.loops.loops[lp];
    let target = fa.block(w);
    if target == l.header {
        return true;
    }
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![l.header];
    while let Some(x) = stack.pop() {
        for (i, &s) in fa.cfg.succs(x).iter().enumerate() {
            if s >= n || seen[s] || !l.contains(s) || s == l.header {
                continue;
            }
            if let Some(f) = edge_fact(fa, x, i)
                && f.var == counter
                && !f.possible_when_below(period)
            {
                continue;
            }
            if s == target {
                return true;
            }
            seen[s] = true;
            stack.push(s);
        }
    }
    false
}

/// The parity a wait uses in the first iteration of the loop around it when the parity is a
/// phase bit carried in a register (CUTLASS's `PipelineState`: `if (++index == STAGES) {
/// index = 0; phase ^= 1; }`): every definition that reaches the loop from outside moves the
/// same constant into it, and every definition inside flips it (`xor r, r, 1`) after the wait.
fn first_iteration_parity(fa: &FunctionAnalysis, w: &MbarOp) -> Option<i64> {
    let inst = fa.inst(w.stmt)?;
    let var = fa.vars.var_of(w.stmt, inst.operands.get(2)?)?;
    let lp = &fa.loops.loops[work_loop(fa, fa.block(w.stmt))?];
    let entry = fa.cfg.blocks[lp.header].stmts().next()?;
    let mut init = None;
    for &d in fa.vars.def_sites(var) {
        let def = fa.inst(d)?;
        if lp.contains(fa.block(d)) {
            let flips = def.opcode == Opcode::Xor
                && def.guard.is_none()
                && def.operands.get(1).and_then(|o| fa.vars.var_of(d, o)) == Some(var)
                && def.operands.get(2).and_then(Operand::as_int) == Some(1)
                && fa.stmt_dominates(w.stmt, d);
            if !flips {
                return None;
            }
        } else if fa.reaches(d, entry) {
            let c = match (&def.opcode, def.operands.as_slice(), &def.guard) {
                (Opcode::Mov, [_, v], None) => v.as_int()?,
                _ => return None,
            };
            if init.is_some_and(|i| i != c) {
                return None;
            }
            init = Some(c);
        }
    }
    init
}

/// Whether data arrives on objects shaped like `obj` through the transaction count.
fn has_tx(ops: &[MbarOp], obj: &Obj) -> bool {
    ops.iter().any(|o| same_shape(&o.obj, obj) && carries_tx(o))
}

/// Whether the operation moves the transaction count: data arrives behind its object.
fn carries_tx(o: &MbarOp) -> bool {
    matches!(
        o.kind,
        MbarKind::Arrive { tx: Some(_), .. }
            | MbarKind::ExpectTx { .. }
            | MbarKind::Copy { .. }
            | MbarKind::CompleteTx { .. }
    )
}

/// The shared array an operation's object lies in: its symbol, also where the index into it
/// is not one the analysis follows.
fn array_of(o: &MbarOp) -> Option<&str> {
    o.obj.sym().or(match &o.addr {
        crate::consts::Val::Expr(x) => x.base.as_deref(),
        _ => None,
    })
}

/// A wait in a counted loop, read as "the phase of round `k >> shift`, minus `flip`".
struct RoundWait<'a> {
    op: &'a MbarOp,
    lp: usize,
    counter: crate::regs::VarId,
    period: i64,
    flip: bool,
}

fn round_wait<'a>(
    fa: &FunctionAnalysis,
    op: &'a MbarOp,
) -> Option<Result<RoundWait<'a>, (u32, u32)>> {
    let MbarKind::Wait {
        parity: Some(v), ..
    } = &op.kind
    else {
        return None;
    };
    let Parity::Counter { var, shift, flip } = parity_of(v)? else {
        return None;
    };
    let b = fa.block(op.stmt);
    let (lp, ind) = fa.induction_of(var, b)?;
    if ind.init != 0 || ind.step != 1 {
        return None;
    }
    let (expected, period) = match cycle_of(fa, &op.obj, b)? {
        Cycle::Fixed => (0u32, 1i64),
        Cycle::Ring {
            var: rv, period, ..
        } if rv == var => (period.trailing_zeros(), period),
        _ => return None,
    };
    if shift != expected {
        return Some(Err((shift, expected)));
    }
    Some(Ok(RoundWait {
        op,
        lp,
        counter: var,
        period,
        flip,
    }))
}

/// Reports to `sink` the `test_wait.parity`/`try_wait.parity` operands that name the wrong phase,
/// in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let ops = cx.mbar_ops();
    let spec = "PTX ISA §9.7.13.15.16: test_wait/try_wait.parity is valid only for the current or the immediately preceding phase".to_string();
    let mut reported: Vec<StmtId> = Vec::new();
    // The operations on each shared symbol: only objects of one symbol may alias, so a wait
    // looks at its symbol's operations alone (kernels with thousands of objects stay linear).
    let mut by_sym: HashMap<&str, Vec<&MbarOp>> = HashMap::new();
    for o in ops.iter() {
        if let Some(sym) = array_of(o) {
            by_sym.entry(sym).or_default().push(o);
        }
    }
    let all_ops: &[MbarOp] = ops;
    for w in ops.iter().filter(|o| o.is_wait()) {
        let MbarKind::Wait {
            parity: Some(pv), ..
        } = &w.kind
        else {
            continue;
        };
        let Some(sym) = array_of(w) else {
            continue;
        };
        let local = matches!(w.obj, Obj::Local { .. });
        // An object the analysis cannot name (an index it does not follow) is checked only
        // for the first iteration of a carried phase bit, against the operations on its slot.
        if !local && first_iteration_parity(fa, w).is_none() {
            continue;
        }
        let ops = by_sym.get(sym).map(Vec::as_slice).unwrap_or(&[]);
        let obj = if local {
            w.obj.describe(fa)
        } else {
            format!("an object of `{sym}`")
        };
        match round_wait(fa, w) {
            Some(Err((shift, expected))) => {
                sink.report(cx, &LINT, w.stmt, format!("the parity of this wait on {obj} changes every {} iterations, but the object completes a phase every {} iterations", 1u64 << shift, 1u64 << expected), Vec::new(), vec![
                    spec.clone(),
                    "use `(k / STAGES) & 1` for a ring of STAGES objects indexed by `k % STAGES`, `k & 1` for one object".into(),
                ]);
                continue;
            }
            Some(Ok(rw)) => {
                check_round_wait(cx, sink, &rw, &mut reported, &spec);
                continue;
            }
            None => {}
        }
        // A constant parity.
        // A constant parity, or the first iteration's value of a phase bit carried around the
        // loop (then only the first-wait rule below applies).
        let (c, carried) = match parity_of(pv) {
            Some(Parity::Const(c)) => (c, false),
            _ => match first_iteration_parity(fa, w) {
                Some(c) => (c, true),
                None => continue,
            },
        };
        let b = fa.block(w.stmt);
        // In a loop that arrives on the object each iteration (and does not initialise it again).
        let advancing_loop = fa
            .loops
            .nest(b)
            .into_iter()
            .filter(|_| !carried)
            .find(|&l| {
                let lp = &fa.loops.loops[l];
                let spin = lp.body.len() == 1 && lp.header == b;
                !spin
                    && ops
                        .iter()
                        .any(|o| o.is_arrive() && o.obj == w.obj && lp.contains(fa.block(o.stmt)))
                    && !ops.iter().any(|o| {
                        matches!(o.kind, MbarKind::Init { .. })
                            && o.obj.may_alias(&w.obj)
                            && lp.contains(fa.block(o.stmt))
                    })
            });
        if let Some(l) = advancing_loop {
            let header = fa.cfg.blocks[fa.loops.loops[l].header]
                .stmts()
                .next()
                .unwrap_or(w.stmt);
            sink.report(cx, &LINT, w.stmt, format!("the wait on {obj} uses the constant parity {c} in a loop that completes a phase of the object every iteration"), vec![(header, "the loop starts here".into())], vec![
                spec.clone(),
                "alternate the parity with the iteration: `k & 1`".into(),
            ]);
            continue;
        }
        // The first wait of a thread on an object is for phase 0.
        let earlier = ops.iter().any(|o| {
            o.is_wait() && o.stmt != w.stmt && o.obj.may_alias(&w.obj) && fa.reaches(o.stmt, w.stmt)
        });
        let inits_in_loop = ops.iter().any(|o| {
            matches!(o.kind, MbarKind::Init { .. })
                && o.obj.may_alias(&w.obj)
                && fa.loops.innermost(fa.block(o.stmt)).is_some()
        });
        // Arrives of this thread in a loop before the wait: how many phases passed is not known.
        let looped_arrives = ops.iter().any(|o| {
            o.is_arrive()
                && o.obj.may_alias(&w.obj)
                && fa.reaches(o.stmt, w.stmt)
                && work_loop(fa, fa.block(o.stmt)).is_some_and(|l| !fa.loops.loops[l].contains(b))
        });
        // Before the first wait, each arrive of this thread on the object (in a row, on every
        // path) completes one phase when it is the last arrival: the wait is for the last one.
        let before: Vec<&MbarOp> = ops
            .iter()
            .filter(|o| o.is_arrive() && o.obj.may_alias(&w.obj) && fa.reaches(o.stmt, w.stmt))
            .copied()
            .collect();
        let all_dominate = before
            .iter()
            .all(|o| o.obj == w.obj && fa.stmt_dominates(o.stmt, w.stmt));
        let expected = if before.is_empty() {
            0
        } else {
            (before.len() as i64 - 1) & 1
        };
        // With no arrive of its own before it, a wait for parity 1 returns at once. That is a
        // bug where data arrives behind the object (bulk copies complete on it: the thread
        // would read a stage before it is filled), and the intent where nothing does: CUTLASS's
        // producer starts on the empty barriers with the flipped phase because every stage
        // starts out empty. What the wait protects decides.
        let data_behind = if local {
            has_tx(all_ops, &w.obj)
        } else {
            // The same slot: an address of the same shape (base, index term and offset), which
            // tells `full[i]` from `empty[i]` in one array (CUTLASS keeps all its barriers in
            // one `smem` array); a slot indexed through another register is not matched.
            ops.iter().any(|o| {
                carries_tx(o) && matches!(&o.addr, crate::consts::Val::Expr(_)) && o.addr == w.addr
            })
        };
        let producer_start = before.is_empty() && !data_behind;
        if !earlier
            && !inits_in_loop
            && !looped_arrives
            && all_dominate
            && !producer_start
            && c & 1 != expected
        {
            let message = if before.is_empty() {
                format!(
                    "the first wait on {obj} is for parity {c}, but the object starts in phase 0 (parity 0): the wait returns at once"
                )
            } else if expected == 0 {
                format!(
                    "the first wait on {obj} is for parity {c}, but this thread arrived in phase 0 (parity 0): the wait returns at once while phase 0 is incomplete, and waits for phase 1, which never comes, once it is complete"
                )
            } else {
                format!(
                    "the first wait on {obj} is for parity {c}, but this thread's {} arrives complete phase {} (parity 1)",
                    before.len(),
                    before.len() - 1
                )
            };
            sink.report(cx, &LINT, w.stmt, message, Vec::new(), vec![spec.clone(), "the first phase after mbarrier.init has parity 0; each completed phase flips it".into()]);
        }
        // After a wait for parity p and an arrive, the next wait is for p ^ 1.
        if earlier && !carried {
            let prev = ops
                .iter()
                .filter(|o| {
                    o.is_wait()
                        && o.stmt != w.stmt
                        && o.obj == w.obj
                        && fa.stmt_dominates(o.stmt, w.stmt)
                })
                .max_by_key(|o| o.stmt)
                .copied();
            if let Some(p) = prev
                && let MbarKind::Wait {
                    parity: Some(ppv), ..
                } = &p.kind
                && let Some(Parity::Const(pc)) = parity_of(ppv)
                && work_loop(fa, fa.block(p.stmt)) == work_loop(fa, b)
            {
                let arrived = ops.iter().any(|o| {
                    o.is_arrive()
                        && o.obj == w.obj
                        && fa.stmt_dominates(p.stmt, o.stmt)
                        && fa.stmt_dominates(o.stmt, w.stmt)
                });
                if arrived && (pc & 1) == (c & 1) {
                    sink.report(cx, &LINT, w.stmt, format!("this wait on {obj} is for parity {c} again, but the thread arrived on the next phase since its wait at line {}", fa.line(p.stmt)), vec![(p.stmt, format!("the previous wait, for parity {pc}"))], vec![
                        spec.clone(),
                        format!("wait for parity {}", (c & 1) ^ 1),
                    ]);
                }
            }
        }
    }
}

fn check_round_wait(
    cx: &Context,
    sink: &mut Sink,
    rw: &RoundWait,
    reported: &mut Vec<StmtId>,
    spec: &str,
) {
    let fa = cx.fa;
    let ops = cx.mbar_ops();
    let w = rw.op;
    let obj = w.obj.describe(fa);
    let lp = &fa.loops.loops[rw.lp];
    // The thread arrives on the object in the same iteration before waiting: it waits for the
    // phase it arrived in.
    let selfsync = ops.iter().any(|a| {
        a.is_arrive()
            && a.obj == w.obj
            && lp.contains(fa.block(a.stmt))
            && precedes_in_iteration(fa, a.stmt, w.stmt, rw.lp)
    });
    if selfsync {
        if rw.flip {
            sink.report(cx, &LINT, w.stmt, format!("this thread arrives on {obj} and then waits with the parity of the previous phase (flipped): the wait returns at once"), Vec::new(), vec![
                spec.to_string(),
                "wait for the parity of the phase arrived in: drop the `^ 1`".into(),
            ]);
        }
        return;
    }
    let first_round = runs_in_first_round(fa, w.stmt, rw.lp, rw.counter, rw.period);
    // The other side: arrivers of this object that wait, before arriving, on an object this
    // loop arrives on.
    let mut partner: Option<RoundWait> = None;
    for a in ops
        .iter()
        .filter(|a| a.is_arrive() && same_shape(&a.obj, &w.obj) && !lp.contains(fa.block(a.stmt)))
    {
        let Some(alp) = fa.loops.innermost(fa.block(a.stmt)) else {
            continue;
        };
        for w2 in ops.iter().filter(|x| {
            x.is_wait()
                && fa.loops.loops[alp].contains(fa.block(x.stmt))
                && precedes_in_iteration(fa, x.stmt, a.stmt, alp)
        }) {
            let mine = ops.iter().any(|m| {
                m.is_arrive() && same_shape(&m.obj, &w2.obj) && lp.contains(fa.block(m.stmt))
            });
            if !mine {
                continue;
            }
            if let Some(Ok(r2)) = round_wait(fa, w2) {
                partner = Some(r2);
                break;
            }
        }
        if partner.is_some() {
            break;
        }
    }
    let my_tx = has_tx(ops, &w.obj);
    match partner {
        Some(p) => {
            let other = p.op.obj.describe(fa);
            let their_tx = has_tx(ops, &p.op.obj);
            let sum = u8::from(rw.flip) + u8::from(p.flip);
            let pick_no_tx = || {
                if my_tx && !their_tx {
                    p.op.stmt
                } else {
                    w.stmt
                }
            };
            let pick_tx = || {
                if their_tx && !my_tx {
                    p.op.stmt
                } else {
                    w.stmt
                }
            };
            let (site, message, advice) = match sum {
                0 => (
                    pick_no_tx(),
                    "wait for the phase of the same round, each before arriving on what the other waits for: neither phase can complete (or, by parity, the wait returns on an older phase)",
                    "the side that frees slots (the producer waiting on `empty`) waits for the previous round: `((k / STAGES) & 1) ^ 1`",
                ),
                2 => (
                    pick_tx(),
                    "both wait for the previous round's phase (parity flipped): neither waits for the other's arrivals of this round",
                    "the side that waits for data waits for this round's phase: `(k / STAGES) & 1`",
                ),
                _ if my_tx && rw.flip && first_round => (
                    w.stmt,
                    "wait for data one round behind: in the first round the wait on the data object returns at once, before the data arrived",
                    "wait on the object that carries the data with this round's parity, `(k / STAGES) & 1`, and flip the other side",
                ),
                _ => return,
            };
            if site != w.stmt || reported.contains(&w.stmt) {
                return;
            }
            reported.push(w.stmt);
            reported.push(p.op.stmt);
            sink.report(
                cx,
                &LINT,
                w.stmt,
                format!(
                    "this wait on {obj} and the wait on {other} at line {} {message}",
                    fa.line(p.op.stmt)
                ),
                vec![(p.op.stmt, format!("the other side waits on {other} here"))],
                vec![spec.to_string(), advice.to_string()],
            );
        }
        None => {
            // No back pressure: the arrivers do not wait on anything first. A wait for the
            // previous round's phase returns at once in the first round.
            let arrivers_wait = ops
                .iter()
                .filter(|a| {
                    a.is_arrive() && same_shape(&a.obj, &w.obj) && !lp.contains(fa.block(a.stmt))
                })
                .any(|a| {
                    let ab: BlockId = fa.block(a.stmt);
                    ops.iter().any(|x| {
                        x.is_wait()
                            && fa.reaches(x.stmt, a.stmt)
                            && fa
                                .loops
                                .innermost(fa.block(x.stmt))
                                .is_some_and(|l| fa.loops.loops[l].contains(ab))
                    })
                });
            if rw.flip && first_round && (my_tx || !arrivers_wait) {
                sink.report(cx, &LINT, w.stmt, format!("in the first round this wait on {obj} is for parity 1 while the object is in phase 0: it returns at once"), Vec::new(), vec![
                    spec.to_string(),
                    "wait for this round's phase: `(k / STAGES) & 1` (without `^ 1`)".into(),
                ]);
            }
        }
    }
}
