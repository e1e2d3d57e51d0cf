// This lint's documentation is `lints/explain/mbarrier_missing_wait.md`: the one text that rustdoc shows here,
// `phasegate lint --explain mbarrier_missing_wait` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/mbarrier_missing_wait.md")]

use super::{Context, LintInfo, Sink};
use crate::analysis::FunctionAnalysis;
use crate::barriers::is_cta_wide_sync;
use crate::cfg::BlockId;
use crate::diagnostic::Level;
use crate::mbar::{MbarKind, MbarOp, Obj, Offset};
use crate::protocol::{edge_fact, forward};
use crate::regs::VarId;
use phasegate_ptx::StmtId;
use std::cell::RefCell;
use std::collections::HashMap;

/// `mbarrier_missing_wait`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it.
pub const LINT: LintInfo = LintInfo {
    name: "mbarrier_missing_wait",
    default: Level::Deny,
    summary: "an arrive-on of the next phase not ordered after a successful wait of the current phase",
    explanation: include_str!("../../explain/mbarrier_missing_wait.md"),
};

/// How an object reference repeats along a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cycle {
    /// A constant object: the same at every age.
    Fixed,
    /// Stage `k % period` of a ring, `k` the induction variable of `loop`.
    Ring { var: VarId, period: i64, lp: usize },
    /// Indexed by a variable that is not a plain counter: the same only within one iteration.
    Opaque { var: VarId },
}

pub(crate) fn cycle_of(fa: &FunctionAnalysis, obj: &Obj, at: BlockId) -> Option<Cycle> {
    match obj {
        Obj::Local {
            offset: Offset::Const(_),
            ..
        } => Some(Cycle::Fixed),
        Obj::Local {
            offset: Offset::Stage { term, .. },
            ..
        } => {
            let bits = term.mask_bits()?;
            match fa.induction_of(term.var, at) {
                Some((lp, ind))
                    if ind.init == 0 && ind.step == 1 && term.shift == 0 && term.xor == 0 =>
                {
                    Some(Cycle::Ring {
                        var: term.var,
                        period: 1i64 << bits,
                        lp,
                    })
                }
                _ => Some(Cycle::Opaque { var: term.var }),
            }
        }
        _ => None,
    }
}

/// The same object reference, up to the name of its stage counter: `full[k % 4]` in the
/// producer's loop and in the consumers' loop.
pub(crate) fn same_shape(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (
            Obj::Local {
                sym: s1,
                offset: Offset::Const(o1),
            },
            Obj::Local {
                sym: s2,
                offset: Offset::Const(o2),
            },
        ) => s1 == s2 && o1 == o2,
        (
            Obj::Local {
                sym: s1,
                offset: Offset::Stage { term: t1, add: a1 },
            },
            Obj::Local {
                sym: s2,
                offset: Offset::Stage { term: t2, add: a2 },
            },
        ) => {
            s1 == s2
                && a1 == a2
                && t1.shift == t2.shift
                && t1.mask == t2.mask
                && t1.lshift == t2.lshift
                && t1.xor == t2.xor
        }
        _ => false,
    }
}

/// Two references in one iteration name the same stage of two rings (`full[k % 4]` and
/// `empty[k % 4]`), or two fixed objects.
fn same_stage(a: &Obj, b: &Obj) -> bool {
    match (a, b) {
        (
            Obj::Local {
                offset: Offset::Const(_),
                ..
            },
            Obj::Local {
                offset: Offset::Const(_),
                ..
            },
        ) => true,
        (
            Obj::Local {
                offset: Offset::Stage { term: t1, .. },
                ..
            },
            Obj::Local {
                offset: Offset::Stage { term: t2, .. },
                ..
            },
        ) => t1.var == t2.var && t1.shift == t2.shift && t1.mask == t2.mask && t1.xor == t2.xor,
        _ => false,
    }
}

/// Whether an operation arrives on its object (the arrivals that advance phases).
pub(crate) fn counts_as_arrive(op: &MbarOp) -> bool {
    matches!(op.kind, MbarKind::Arrive { .. }) && matches!(op.obj, Obj::Local { .. })
}

/// From which iteration on every arrive on objects shaped like `y` follows, in its thread and
/// iteration, a wait on the same stage of objects shaped like `x` (`Some(0)`: always).
pub(crate) fn orders(cx: &Context, y: &Obj, x: &Obj) -> Option<i64> {
    let fa = cx.fa;
    let ops = cx.mbar_ops();
    let mut threshold = 0i64;
    let mut any = false;
    for a in ops
        .iter()
        .filter(|o| counts_as_arrive(o) && same_shape(&o.obj, y))
    {
        any = true;
        let waits: Vec<&MbarOp> = ops
            .iter()
            .filter(|w| w.is_wait() && same_shape(&w.obj, x) && same_stage(&w.obj, &a.obj))
            .collect();
        if waits.is_empty() {
            return None;
        }
        let ab = fa.block(a.stmt);
        let lp = fa.loops.innermost(ab);
        let counter = a
            .obj
            .stage_var()
            .filter(|v| lp.is_some_and(|l| fa.inductions[l].iter().any(|i| i.var == *v)));
        let mut candidates = vec![0i64];
        if let Some(l) = lp {
            for &b in &fa.loops.loops[l].body {
                for i in 0..fa.cfg.succs(b).len() {
                    if let Some(f) = edge_fact(fa, b, i)
                        && Some(f.var) == counter
                    {
                        candidates.push(f.value);
                        candidates.push(f.value + 1);
                    }
                }
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        let found = candidates
            .into_iter()
            .filter(|c| *c >= 0)
            .find(|&c| !reachable_without(fa, a.stmt, &waits, lp, counter, c));
        match found {
            Some(c) => threshold = threshold.max(c),
            None => return None,
        }
    }
    any.then_some(threshold)
}

/// Whether `target` can be reached from the start of its iteration (its innermost loop's
/// header, or the entry) without passing one of `waits`, along edges possible when the
/// counter is at least `at_least`.
fn reachable_without(
    fa: &FunctionAnalysis,
    target: StmtId,
    waits: &[&MbarOp],
    lp: Option<usize>,
    counter: Option<VarId>,
    at_least: i64,
) -> bool {
    let tb = fa.block(target);
    let start = lp.map(|l| fa.loops.loops[l].header).unwrap_or(0);
    let blocked = |b: BlockId| {
        waits
            .iter()
            .any(|w| fa.block(w.stmt) == b && (b != tb || w.stmt < target))
    };
    if blocked(start) && start != tb {
        return false;
    }
    if start == tb {
        return !blocked(tb);
    }
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(b) = stack.pop() {
        for (i, &s) in fa.cfg.succs(b).iter().enumerate() {
            if s >= n || seen[s] {
                continue;
            }
            if lp.is_some_and(|l| !fa.loops.loops[l].contains(s) || s == fa.loops.loops[l].header) {
                continue;
            }
            if let Some(f) = edge_fact(fa, b, i)
                && Some(f.var) == counter
                && !f.possible_when_at_least(at_least)
            {
                continue;
            }
            if s == tb {
                return !blocked(tb);
            }
            if blocked(s) {
                continue;
            }
            seen[s] = true;
            stack.push(s);
        }
    }
    false
}

#[derive(Clone, Debug, PartialEq)]
struct Entry {
    arrive: StmtId,
    key: Obj,
    cycle: Cycle,
    /// Bit `a`: the arrive happened `a` iterations ago (bit 63: 63 or more).
    ages: u64,
}

fn same_object_ages(cycle: Cycle) -> u64 {
    match cycle {
        Cycle::Fixed => u64::MAX,
        Cycle::Ring { period, .. } => (0..64)
            .filter(|a| a % period == 0)
            .fold(0u64, |m, a| m | (1u64 << a)),
        Cycle::Opaque { .. } => 1,
    }
}

/// Reports to `sink` the arrive-ons of an mbarrier's next phase that no successful wait of the
/// current phase is ordered before, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let ops = cx.mbar_ops();
    if !ops.iter().any(counts_as_arrive) {
        return;
    }
    let op_at: HashMap<StmtId, &MbarOp> = ops.iter().map(|o| (o.stmt, o)).collect();
    let waited_syms: Vec<&str> = ops
        .iter()
        .filter(|o| o.is_wait())
        .filter_map(|o| o.obj.sym())
        .collect();
    let order_memo: RefCell<HashMap<(String, String), Option<i64>>> = RefCell::new(HashMap::new());
    let order = |y: &Obj, x: &Obj| -> Option<i64> {
        let key = (format!("{y:?}"), format!("{x:?}"));
        if let Some(v) = order_memo.borrow().get(&key) {
            return *v;
        }
        let v = orders(cx, y, x);
        order_memo.borrow_mut().insert(key, v);
        v
    };
    let step = |b: BlockId,
                st: &Vec<Entry>,
                mut report: Option<&mut Vec<(StmtId, StmtId)>>|
     -> Vec<Entry> {
        let mut st = st.clone();
        for stmt in fa.cfg.blocks[b].stmts() {
            let Some(inst) = fa.inst(stmt) else { continue };
            if is_cta_wide_sync(fa, stmt, inst) {
                st.retain(|e| !e.key.sym().is_some_and(|s| waited_syms.contains(&s)));
                continue;
            }
            let Some(op) = op_at.get(&stmt) else { continue };
            if counts_as_arrive(op) {
                let Some(cycle) = cycle_of(fa, &op.obj, b) else {
                    continue;
                };
                if let Some(r) = report.as_deref_mut() {
                    for e in &st {
                        if e.key == op.obj
                            && e.ages & same_object_ages(e.cycle) != 0
                            && !r.contains(&(e.arrive, stmt))
                        {
                            r.push((e.arrive, stmt));
                        }
                    }
                }
                for e in st.iter_mut() {
                    if e.key == op.obj {
                        e.ages &= !same_object_ages(e.cycle);
                    }
                }
                st.retain(|e| e.ages != 0);
                match st.iter_mut().find(|e| e.arrive == stmt && e.key == op.obj) {
                    Some(e) => e.ages |= 1,
                    None => st.push(Entry {
                        arrive: stmt,
                        key: op.obj.clone(),
                        cycle,
                        ages: 1,
                    }),
                }
            } else if op.is_wait() {
                // The barrier array the wait's address is in, also where the index is not a
                // stage expression the analysis follows.
                let wait_sym = match &op.addr {
                    crate::consts::Val::Expr(x) => x.base.as_deref(),
                    _ => None,
                };
                let local = matches!(op.obj, Obj::Local { .. });
                for e in st.iter_mut() {
                    let mut clear = 0u64;
                    if !local {
                        if wait_sym.is_some() && e.key.sym() == wait_sym {
                            // See below: an object of the same array, index not known.
                            clear = same_object_ages(e.cycle);
                        }
                    } else if e.key == op.obj {
                        clear = same_object_ages(e.cycle);
                    } else if same_stage(&e.key, &op.obj)
                        && let Some(c) = order(&op.obj, &e.key)
                    {
                        clear = same_object_ages(e.cycle) & !((1u64 << c.clamp(0, 63)) - 1);
                        if c > 0 && matches!(e.cycle, Cycle::Fixed) {
                            clear = 0;
                        }
                    } else if e.key.sym().is_some()
                        && e.key.sym() == op.obj.sym()
                        && !same_stage(&e.key, &op.obj)
                    {
                        // A wait on an object of the same barrier array whose index is computed
                        // from another value: which object it is, relative to the arrive's, is
                        // not known. In CUTLASS's OrderedSequenceBarrier (the ping-pong math
                        // warp groups) each group waits on its own slot and arrives on the
                        // other's, which the other group completes only after its own wait: the
                        // wait orders the arrives. Precision over recall: taken as ordering.
                        clear = same_object_ages(e.cycle);
                    }
                    e.ages &= !clear;
                }
                st.retain(|e| e.ages != 0);
            }
        }
        st
    };
    let ins = forward(
        fa,
        Vec::new(),
        |b, s| step(b, s, None),
        |from, i, to, s| {
            let mut s = s.clone();
            for l in 0..fa.loops.loops.len() {
                let lp = &fa.loops.loops[l];
                if lp.header != to {
                    continue;
                }
                let back = lp.contains(from);
                s.retain_mut(|e| match e.cycle {
                    Cycle::Ring { lp: el, .. } if el == l => {
                        if back {
                            e.ages = (e.ages << 1) | (e.ages & (1u64 << 63));
                            true
                        } else {
                            false
                        }
                    }
                    Cycle::Opaque { var } => {
                        !(back
                            && lp.body.iter().any(|&bb| {
                                fa.cfg.blocks[bb]
                                    .stmts()
                                    .any(|x| fa.vars.defs(x).contains(&var))
                            }))
                    }
                    _ => true,
                });
            }
            if let Some(f) = edge_fact(fa, from, i) {
                for e in s.iter_mut() {
                    if let Cycle::Ring { var, .. } = e.cycle
                        && var == f.var
                    {
                        for a in 0..64i64 {
                            if e.ages & (1u64 << a) != 0 && !f.possible_when_at_least(a) {
                                e.ages &= !(1u64 << a);
                            }
                        }
                    }
                }
                s.retain(|e| e.ages != 0);
            }
            s
        },
        |cur, new| {
            let mut changed = false;
            for e in new {
                match cur
                    .iter_mut()
                    .find(|c| c.arrive == e.arrive && c.key == e.key)
                {
                    Some(c) => {
                        let m = c.ages | e.ages;
                        if m != c.ages {
                            c.ages = m;
                            changed = true;
                        }
                    }
                    None => {
                        cur.push(e.clone());
                        changed = true;
                    }
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
    let mut reported: Vec<StmtId> = Vec::new();
    for (first, second) in pairs {
        if reported.contains(&second) || (first == second && runs_once_per_loop(fa, second)) {
            continue;
        }
        reported.push(second);
        let op = op_at[&second];
        let obj = op.obj.describe(fa);
        let what = fa.inst(second).map(|i| i.full_name()).unwrap_or_default();
        let same = first == second;
        let message = if same {
            format!(
                "`{what}` on {obj} arrives again in a later iteration without a successful wait on the phase it completed"
            )
        } else {
            format!(
                "`{what}` on {obj} arrives on the next phase without a successful wait on the phase of the arrive at line {}",
                fa.line(first)
            )
        };
        let related = if same {
            vec![(
                first,
                "the same arrive, one iteration (or round) earlier".to_string(),
            )]
        } else {
            vec![(
                first,
                "the previous arrive of this thread on the object".to_string(),
            )]
        };
        sink.report(cx, &LINT, second, message, related, vec![
            "PTX ISA §9.7.13.15.4: for each phase at least one test_wait/try_wait returning true must happen before any arrive-on of the next phase".into(),
            "wait on this object (mbarrier.try_wait.parity with the phase's parity) before arriving again, or on an object that the waiting threads arrive on after their wait".into(),
        ]);
    }
}

/// Whether `stmt` runs at most once each time the innermost loop around it runs: a branch it
/// depends on skips it while a flag holds the value `z`, every definition of the flag in the
/// loop sets `z`, and one of them stands in a block that post-dominates `stmt`'s, so the flag
/// is `z` in every later iteration. CUTLASS's mainloop producer does this for the load-order
/// barrier: `if (do_load_order_arrive) { load_order_barrier.arrive(); do_load_order_arrive =
/// false; }`.
fn runs_once_per_loop(fa: &FunctionAnalysis, stmt: StmtId) -> bool {
    let b = fa.block(stmt);
    let Some(l) = fa.loops.innermost(b) else {
        return false;
    };
    let lp = &fa.loops.loops[l];
    // Per variable defined in the loop: the one constant every definition there moves into
    // it (`None` once a definition is anything else), and whether one post-dominates `stmt`.
    let mut flags: HashMap<VarId, (Option<i64>, bool)> = HashMap::new();
    for &blk in &lp.body {
        for s in fa.cfg.blocks[blk].stmts() {
            let Some(inst) = fa.inst(s) else { continue };
            let z = match (&inst.opcode, inst.operands.as_slice(), &inst.guard) {
                (phasegate_ptx::Opcode::Mov, [_, v], None) => v.as_int(),
                _ => None,
            };
            let after = fa.pdom.dominates(blk, b) && blk != b;
            for &d in fa.vars.defs(s) {
                let e = flags.entry(d).or_insert((z, false));
                if e.0 != z {
                    e.0 = None;
                }
                e.1 |= after;
            }
        }
    }
    let deps = &fa.uni.control_deps(b).deps;
    flags.iter().any(|(&flag, &(z, reset_after))| {
        let Some(z) = z.filter(|_| reset_after) else {
            return false;
        };
        deps.iter().any(|&(a, edge)| {
            let Some((branch, guard)) = fa.cfg.branch_guard(a) else {
                return false;
            };
            if !lp.contains(a) {
                return false;
            }
            // The branch block's own computation, with the flag at `z`.
            let mut env = HashMap::from([(flag, z)]);
            for s in fa.cfg.blocks[a].stmts().take_while(|&s| s < branch) {
                if let Some(inst) = fa.inst(s) {
                    crate::protocol::exec(fa, &mut env, s, inst);
                }
            }
            let pred = phasegate_ptx::Operand::Reg(guard.pred.clone());
            let Some(holds) = crate::protocol::eval(fa, &env, branch, &pred) else {
                return false;
            };
            // Successor 0 is taken when the guard holds.
            let taken = usize::from((holds != 0) == guard.negated);
            taken != edge
        })
    })
}
