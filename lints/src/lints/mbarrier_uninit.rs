// This lint's documentation is `lints/explain/mbarrier_uninit.md`: the one text that rustdoc shows here,
// `phasegate lint --explain mbarrier_uninit` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/mbarrier_uninit.md")]

use super::{Context, LintInfo, Sink};
use crate::barriers::{BarKind, ClusterKind, cluster_barrier, cta_barrier};
use crate::diagnostic::Level;
use crate::mbar::{MbarKind, MbarOp};
use crate::protocol::{forward, same_threads};
use phasegate_ptx::StmtId;

/// This lint's entry in [`crate::LINTS`]: `mbarrier_uninit`, denied by default.
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_uninit",
    default: Level::Deny,
    summary: "an mbarrier used before init or after inval, initialized twice, or used by other threads without a barrier after init",
    explanation: include_str!("../../explain/mbarrier_uninit.md"),
};

const UNINIT: u8 = 1;
const LOCAL: u8 = 2;
const SYNCED: u8 = 4;
const INVALID: u8 = 8;
/// Invalidated by some threads of the CTA (under divergent control), not yet published.
const INVAL_LOCAL: u8 = 16;

#[derive(Clone, PartialEq)]
struct State {
    bits: Vec<u8>,
    /// The init or inval that set LOCAL / INVALID, for messages.
    init: Vec<Option<StmtId>>,
    inval: Vec<Option<StmtId>>,
}

fn is_publish(cx: &Context, stmt: StmtId) -> bool {
    let fa = cx.fa;
    let Some(inst) = fa.inst(stmt) else {
        return false;
    };
    if let Some((ClusterKind::Wait, _)) = cluster_barrier(inst) {
        return true;
    }
    matches!(cta_barrier(fa, stmt, inst), Some(b) if b.kind != BarKind::Arrive)
}

/// Reports to `sink` the mbarrier objects used before init or after inval, initialized twice, or
/// used by other threads with no barrier after init, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let ops: Vec<&MbarOp> = cx.mbar_ops().iter().collect();
    if ops.is_empty() {
        return;
    }
    // An init or inval of an object the analysis cannot name could be of any object.
    if ops.iter().any(|o| {
        matches!(o.kind, MbarKind::Init { .. } | MbarKind::Inval)
            && o.obj.instances().is_empty()
            && o.obj != crate::mbar::Obj::Remote
    }) {
        return;
    }
    // Symbols some operation reaches at an offset the analysis cannot name: not tracked.
    let wild: Vec<String> = ops
        .iter()
        .filter(|o| o.obj.instances().is_empty())
        .filter_map(|o| match &o.addr {
            crate::consts::Val::Expr(e) => e.base.clone(),
            _ => None,
        })
        .collect();
    // The universe of objects: every concrete (symbol, offset) named by an operation.
    let mut objs: Vec<(String, i64)> = Vec::new();
    for op in &ops {
        for i in op.obj.instances() {
            if !objs.contains(&i) && !wild.contains(&i.0) {
                objs.push(i);
            }
        }
    }
    if objs.is_empty() || objs.len() > 256 {
        return;
    }
    let index_of = |op: &MbarOp| -> Vec<usize> {
        op.obj
            .instances()
            .iter()
            .filter_map(|i| objs.iter().position(|o| o == i))
            .collect()
    };
    let op_at: Vec<Option<usize>> = {
        let mut v = vec![None; fa.body.len()];
        for (k, op) in ops.iter().enumerate() {
            v[op.stmt.index()] = Some(k);
        }
        v
    };
    let publishes: Vec<bool> = (0..fa.body.len())
        .map(|i| is_publish(cx, StmtId(i as u32)))
        .collect();
    let entry = State {
        bits: vec![UNINIT; objs.len()],
        init: vec![None; objs.len()],
        inval: vec![None; objs.len()],
    };
    // One pass of a block; `report` is set on the last pass.
    let step =
        |b: usize, s: &State, mut report: Option<&mut Vec<(StmtId, usize, Problem)>>| -> State {
            let mut st = s.clone();
            for stmt in fa.cfg.blocks[b].stmts() {
                if publishes[stmt.index()] {
                    for i in 0..objs.len() {
                        if st.bits[i] & INVAL_LOCAL != 0 {
                            // One thread's inval is everyone's after the barrier.
                            st.bits[i] = INVALID;
                        } else if st.bits[i] & LOCAL != 0 {
                            st.bits[i] = (st.bits[i] & !(LOCAL | UNINIT)) | SYNCED;
                        }
                    }
                    continue;
                }
                let Some(k) = op_at[stmt.index()] else {
                    continue;
                };
                let op = ops[k];
                let idx = index_of(op);
                match op.kind {
                    MbarKind::Init { .. } => {
                        for &i in &idx {
                            if let Some(r) = report.as_deref_mut()
                                && st.bits[i] != 0
                                && st.bits[i] & (UNINIT | INVALID) == 0
                                && idx.len() == 1
                            {
                                r.push((stmt, i, Problem::DoubleInit(st.init[i])));
                            }
                            // A guarded init leaves the other threads where they were.
                            let guarded = fa.inst(stmt).is_some_and(|x| x.guard.is_some());
                            st.bits[i] = if idx.len() == 1 && !guarded {
                                LOCAL
                            } else {
                                (st.bits[i] & !(INVALID | INVAL_LOCAL)) | LOCAL
                            };
                            st.init[i] = Some(stmt);
                        }
                    }
                    MbarKind::Inval => {
                        for &i in &idx {
                            if let Some(r) = report.as_deref_mut() {
                                check_use(&st, i, stmt, r);
                            }
                            let by_some = fa.uni.control(b).0 > crate::uniformity::Level::Cta
                                || fa.inst(stmt).is_some_and(|x| {
                                    fa.uni.guard_level(stmt, x, &fa.vars).0
                                        > crate::uniformity::Level::Cta
                                });
                            let flag = if by_some { INVAL_LOCAL } else { 0 };
                            st.bits[i] = if idx.len() == 1 {
                                INVALID | flag
                            } else {
                                st.bits[i] | INVALID | flag
                            };
                            st.inval[i] = Some(stmt);
                        }
                    }
                    _ => {
                        if let Some(r) = report.as_deref_mut() {
                            for &i in &idx {
                                check_use(&st, i, stmt, r);
                            }
                        }
                    }
                }
            }
            st
        };
    let ins = forward(
        fa,
        entry,
        |b, s| step(b, s, None),
        |_, _, _, s| s.clone(),
        |cur, new| {
            let mut changed = false;
            for i in 0..cur.bits.len() {
                let merged = cur.bits[i] | new.bits[i];
                if merged != cur.bits[i] {
                    cur.bits[i] = merged;
                    changed = true;
                }
                if cur.init[i].is_none() && new.init[i].is_some() {
                    cur.init[i] = new.init[i];
                }
                if cur.inval[i].is_none() && new.inval[i].is_some() {
                    cur.inval[i] = new.inval[i];
                }
            }
            changed
        },
    );
    let mut problems = Vec::new();
    for (b, state) in ins.iter().enumerate() {
        if let Some(s) = state {
            step(b, s, Some(&mut problems));
        }
    }
    // One finding per object and kind of problem.
    let mut done: Vec<(usize, u8)> = Vec::new();
    for (stmt, i, problem) in problems {
        let k = op_at[stmt.index()].unwrap_or(0);
        let op = ops[k];
        let what = fa.inst(stmt).map(|x| x.full_name()).unwrap_or_default();
        let obj = format!(
            "`{}{}`",
            objs[i].0,
            if objs[i].1 != 0 {
                format!("+{}", objs[i].1)
            } else {
                String::new()
            }
        );
        let tag = problem.tag();
        if done.contains(&(i, tag)) {
            continue;
        }
        match problem {
            Problem::NotInit => {
                // An init of this object elsewhere that does not come after this use (another
                // role's init published by a barrier this path does not see): say nothing.
                let parallel_init = ops.iter().any(|o| {
                    matches!(o.kind, MbarKind::Init { .. })
                        && index_of(o).contains(&i)
                        && !fa.reaches(stmt, o.stmt)
                });
                if parallel_init {
                    continue;
                }
                done.push((i, tag));
                let later = ops
                    .iter()
                    .find(|o| matches!(o.kind, MbarKind::Init { .. }) && index_of(o).contains(&i))
                    .map(|o| o.stmt);
                let related = later
                    .map(|s| vec![(s, "the object is initialized only here, later".to_string())])
                    .unwrap_or_default();
                sink.report(cx, &LINT, stmt, format!("`{what}` on {obj} before any `mbarrier.init` of it"), related, vec![
                    "PTX ISA §9.7.13.15: any mbarrier operation except mbarrier.init on an uninitialized object is undefined".into(),
                    "initialize the object (one thread), then `bar.sync` before other threads use it".into(),
                ]);
            }
            Problem::NoBarrier(init) => {
                let Some(init) = init else { continue };
                if same_threads(fa, init, stmt) {
                    continue;
                }
                done.push((i, tag));
                sink.report(cx, &LINT, stmt, format!("`{what}` on {obj} may run in threads other than the one that initialized it at line {}, with no barrier in between", fa.line(init)), vec![(init, "initialized here".into())], vec![
                    "PTX ISA §9.7.13.15: other threads may only use the object once its initialization is visible to them".into(),
                    "put `bar.sync 0` (and `fence.mbarrier_init.release.cluster` for other CTAs) between the init and the first use by other threads".into(),
                ]);
            }
            Problem::AfterInval(inval) => {
                done.push((i, tag));
                let related = inval
                    .map(|s| vec![(s, "invalidated here".to_string())])
                    .unwrap_or_default();
                sink.report(cx, &LINT, stmt, format!("`{what}` on {obj} after `mbarrier.inval`"), related, vec![
                    "PTX ISA §9.7.13.15.10: any mbarrier operation except mbarrier.init on an invalidated object is undefined".into(),
                    "invalidate only when every thread is done with the object (after a barrier), or initialize it again first".into(),
                ]);
            }
            Problem::DoubleInit(prev) => {
                if matches!(
                    op.obj,
                    crate::mbar::Obj::Local {
                        offset: crate::mbar::Offset::Stage { .. },
                        ..
                    }
                ) {
                    continue;
                }
                done.push((i, tag));
                let related = prev
                    .map(|s| vec![(s, "first initialized here".to_string())])
                    .unwrap_or_default();
                sink.report(cx, &LINT, stmt, format!("`mbarrier.init` of {obj}, which is already initialized"), related, vec![
                    "PTX ISA §9.7.13.15.9: mbarrier.init on a location that holds a valid mbarrier object is undefined".into(),
                    "invalidate it with `mbarrier.inval` first, or initialize it once".into(),
                ]);
            }
        }
    }
}

enum Problem {
    NotInit,
    NoBarrier(Option<StmtId>),
    AfterInval(Option<StmtId>),
    DoubleInit(Option<StmtId>),
}

impl Problem {
    fn tag(&self) -> u8 {
        match self {
            Problem::NotInit => 0,
            Problem::NoBarrier(_) => 1,
            Problem::AfterInval(_) => 2,
            Problem::DoubleInit(_) => 3,
        }
    }
}

fn check_use(st: &State, i: usize, stmt: StmtId, out: &mut Vec<(StmtId, usize, Problem)>) {
    let b = st.bits[i];
    if b == UNINIT {
        out.push((stmt, i, Problem::NotInit));
    } else if b & INVALID != 0 && b & (LOCAL | SYNCED) == 0 {
        out.push((stmt, i, Problem::AfterInval(st.inval[i])));
    } else if b & LOCAL != 0 && b & UNINIT != 0 {
        out.push((stmt, i, Problem::NoBarrier(st.init[i])));
    }
}
