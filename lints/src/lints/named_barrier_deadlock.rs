// This lint's documentation is `lints/explain/named_barrier_deadlock.md`: the one text that rustdoc shows here,
// `phasegate lint --explain named_barrier_deadlock` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/named_barrier_deadlock.md")]

use super::{Context, LintInfo, Sink};
use crate::analysis::FunctionAnalysis;
use crate::barriers::{BarKind, cta_barrier};
use crate::cfg::{BlockId, Terminator};
use crate::consts::Cmp;
use crate::diagnostic::Level;
use crate::protocol::{eval, exec};
use crate::regs::{Src, VarId};
use crate::uniformity::Level as U;
use phasegate_ptx::{Imm, Instruction, Opcode, Operand, StmtId};
use std::collections::HashMap;

/// `named_barrier_deadlock`: its name, default level (deny) and summary, as [`crate::LINTS`] lists
/// it.
pub const LINT: LintInfo = LintInfo {
    name: "named_barrier_deadlock",
    default: Level::Deny,
    summary: "warp roles that wait on each other's named barriers in an order that can never complete",
    explanation: include_str!("../../explain/named_barrier_deadlock.md"),
};

const MAX_OPS: usize = 64;
const MAX_STEPS: usize = 20_000;
const MAX_ROLES: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq)]
struct BarOp {
    stmt: StmtId,
    id: i64,
    waits: bool,
    /// The constant thread count, if the instruction gives one.
    count: Option<i64>,
}

#[derive(Clone, Debug)]
struct Role {
    ops: Vec<BarOp>,
    /// The role ran to an exit (false: its walk was cut).
    finished: bool,
    /// The warp-uniform branch decisions that make the role: (branch, taken).
    path: Vec<(StmtId, bool)>,
    /// How many threads have the role, when the block shape is exact (`.reqntid`) and every
    /// decision is on the thread index; set by [`feasible`].
    threads: Option<u64>,
}

#[derive(Clone)]
struct Walker {
    block: BlockId,
    env: HashMap<VarId, i64>,
    ops: Vec<BarOp>,
    path: Vec<(StmtId, bool)>,
    steps: usize,
}

/// Whether a block range (the blocks reachable from `from` before `stop`) holds a barrier.
fn region_has_barrier(
    fa: &FunctionAnalysis,
    from: BlockId,
    stop: Option<BlockId>,
    is_bar: &[bool],
) -> (bool, Vec<BlockId>) {
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![from];
    let mut blocks = Vec::new();
    let mut has = false;
    while let Some(b) = stack.pop() {
        if b >= n || seen[b] || Some(b) == stop {
            continue;
        }
        seen[b] = true;
        blocks.push(b);
        has |= fa.cfg.blocks[b].stmts().any(|s| is_bar[s.index()]);
        stack.extend(fa.cfg.succs(b).iter().copied());
    }
    (has, blocks)
}

fn walk_roles(fa: &FunctionAnalysis, is_bar: &[bool]) -> Option<Vec<Role>> {
    // Within a role, a branch forks only when its condition differs between warps by data.
    let data = crate::uniformity::Uniformity::data_only(
        fa.function,
        fa.body,
        &fa.cfg,
        &fa.pdom,
        &fa.vars,
        &fa.consts,
    );
    let mut roles = Vec::new();
    let mut work = vec![Walker {
        block: 0,
        env: HashMap::new(),
        ops: Vec::new(),
        path: Vec::new(),
        steps: 0,
    }];
    while let Some(mut w) = work.pop() {
        if roles.len() + work.len() >= MAX_ROLES {
            return None;
        }
        loop {
            if w.steps > MAX_STEPS || w.ops.len() >= MAX_OPS {
                roles.push(Role {
                    ops: w.ops,
                    finished: false,
                    path: w.path,
                    threads: None,
                });
                break;
            }
            let b = w.block;
            let blk = &fa.cfg.blocks[b];
            for stmt in blk.stmts() {
                w.steps += 1;
                let Some(inst) = fa.inst(stmt) else { continue };
                if let Some(bar) = cta_barrier(fa, stmt, inst) {
                    let id = bar.id_const()?;
                    let runs = match &inst.guard {
                        None => Some(true),
                        Some(g) => eval(fa, &w.env, stmt, &Operand::Reg(g.pred.clone()))
                            .map(|v| (v != 0) != g.negated),
                    };
                    match runs {
                        Some(true) => w.ops.push(BarOp {
                            stmt,
                            id,
                            waits: bar.kind != BarKind::Arrive,
                            count: bar.count_const(),
                        }),
                        Some(false) => {}
                        None => return None,
                    }
                }
                exec(fa, &mut w.env, stmt, inst);
            }
            let next = match &blk.term {
                Terminator::Exit { .. } | Terminator::End => None,
                Terminator::Indirect { .. } => return None,
                Terminator::Jump { .. } | Terminator::Fallthrough => {
                    fa.cfg.succs(b).first().copied()
                }
                Terminator::Branch { stmt, guard } | Terminator::GuardedExit { stmt, guard } => {
                    let succs = fa.cfg.succs(b).to_vec();
                    let exit_branch = matches!(blk.term, Terminator::GuardedExit { .. });
                    let known = eval(fa, &w.env, *stmt, &Operand::Reg(guard.pred.clone()))
                        .map(|v| (v != 0) != guard.negated);
                    match known {
                        Some(taken) => Some(if taken {
                            succs[0]
                        } else {
                            succs.get(1).copied().unwrap_or(succs[0])
                        }),
                        None if exit_branch => succs.get(1).copied(),
                        None => {
                            let level = data.branch(b).map(|x| x.0).unwrap_or(U::Thread);
                            let lp = fa.loops.innermost(b);
                            let inside: Vec<bool> = succs
                                .iter()
                                .map(|&s| lp.is_some_and(|l| fa.loops.loops[l].contains(s)))
                                .collect();
                            let stop = fa.pdom.idom(b);
                            let loop_has_barrier = lp.is_some_and(|l| {
                                fa.loops.loops[l]
                                    .body
                                    .iter()
                                    .any(|&bb| fa.cfg.blocks[bb].stmts().any(|s| is_bar[s.index()]))
                            });
                            if inside.len() == 2 && inside[0] != inside[1] {
                                // A loop exit: stay in a loop that has barriers (long runs),
                                // leave one that has none.
                                let stay = if inside[0] { succs[0] } else { succs[1] };
                                let leave = if inside[0] { succs[1] } else { succs[0] };
                                if loop_has_barrier {
                                    Some(stay)
                                } else {
                                    // Forget what the loop assigned: its trip count is unknown.
                                    for &bb in &fa.loops.loops[lp.unwrap_or(0)].body {
                                        for s in fa.cfg.blocks[bb].stmts() {
                                            for d in fa.vars.defs(s) {
                                                w.env.remove(d);
                                            }
                                        }
                                    }
                                    Some(leave)
                                }
                            } else if level == U::Warp && succs.len() == 2 {
                                let mut other = w.clone();
                                other.block = succs[0];
                                other.path.push((*stmt, true));
                                work.push(other);
                                w.path.push((*stmt, false));
                                Some(succs[1])
                            } else {
                                let sides: Vec<(bool, Vec<BlockId>)> = succs
                                    .iter()
                                    .map(|&s| region_has_barrier(fa, s, stop, is_bar))
                                    .collect();
                                let with: Vec<usize> =
                                    (0..sides.len()).filter(|&i| sides[i].0).collect();
                                if with.is_empty() {
                                    // Skip to the join, forgetting what the sides assign.
                                    for (_, blocks) in &sides {
                                        for &bb in blocks {
                                            for s in fa.cfg.blocks[bb].stmts() {
                                                for d in fa.vars.defs(s) {
                                                    w.env.remove(d);
                                                }
                                            }
                                        }
                                    }
                                    match stop {
                                        Some(j) if j < fa.cfg.len() => Some(j),
                                        _ => None,
                                    }
                                } else if level <= U::Cta {
                                    Some(succs[*with.last().unwrap_or(&0)])
                                } else {
                                    return None;
                                }
                            }
                        }
                    }
                }
            };
            match next {
                Some(nb) if nb < fa.cfg.len() => w.block = nb,
                _ => {
                    roles.push(Role {
                        ops: w.ops,
                        finished: true,
                        path: w.path,
                        threads: None,
                    });
                    break;
                }
            }
        }
    }
    Some(roles)
}

/// How the run of the roles ends when it hangs.
struct Hang {
    /// The blocked roles: (role, op index).
    stuck: Vec<(usize, usize)>,
    /// The threads arrived at the first stuck role's barrier when the run stopped (known when
    /// the roles' sizes are).
    arrived: u64,
}

/// Runs the roles against each other; `Some` when they hang: two or more roles wait on each
/// other, or (when every role's size is known) one waits at a counted barrier that the others,
/// all finished, left short of its count.
fn simulate(roles: &[Role]) -> Option<Hang> {
    let n = roles.len();
    let sized = roles.iter().all(|r| r.threads.is_some());
    let mut counts: HashMap<i64, Option<i64>> = HashMap::new();
    let mut pc = vec![0usize; n];
    let mut blocked: Vec<Option<i64>> = vec![None; n];
    let mut arrived: HashMap<i64, Vec<usize>> = HashMap::new();
    let remaining_uses =
        |r: usize, pc: &[usize], id: i64| roles[r].ops[pc[r]..].iter().any(|o| o.id == id);
    let mut guard = 0usize;
    loop {
        guard += 1;
        if guard > 100_000 {
            return None;
        }
        let mut progress = false;
        for r in 0..n {
            if blocked[r].is_some() || pc[r] >= roles[r].ops.len() {
                continue;
            }
            let op = roles[r].ops[pc[r]];
            let list = arrived.entry(op.id).or_default();
            if list.contains(&r) {
                // Arrived twice before the barrier reset: wait for the reset.
                blocked[r] = Some(op.id);
                continue;
            }
            list.push(r);
            counts.insert(op.id, op.count);
            if op.waits {
                blocked[r] = Some(op.id);
            } else {
                pc[r] += 1;
            }
            progress = true;
        }
        // Complete every barrier whose participants have all arrived.
        let ids: Vec<i64> = arrived.keys().copied().collect();
        for id in ids {
            let here = arrived.get(&id).cloned().unwrap_or_default();
            if here.is_empty() {
                continue;
            }
            // A counted barrier in a kernel whose roles' sizes are all known completes when its
            // count of threads has arrived; otherwise, when every role that still uses it has.
            let count = counts.get(&id).copied().flatten().filter(|_| sized);
            let all = match count {
                Some(c) => {
                    here.iter()
                        .map(|&r| roles[r].threads.unwrap_or(0))
                        .sum::<u64>()
                        >= c.max(0) as u64
                }
                None => (0..n)
                    .filter(|&r| {
                        here.contains(&r)
                            || (pc[r] < roles[r].ops.len() && remaining_uses(r, &pc, id))
                    })
                    .all(|r| here.contains(&r)),
            };
            if all {
                arrived.insert(id, Vec::new());
                for r in 0..n {
                    if blocked[r] == Some(id) {
                        blocked[r] = None;
                        if roles[r]
                            .ops
                            .get(pc[r])
                            .is_some_and(|o| o.id == id && o.waits)
                        {
                            pc[r] += 1;
                        }
                    }
                }
                progress = true;
            }
        }
        if !progress {
            break;
        }
    }
    let stuck: Vec<(usize, usize)> = (0..n)
        .filter(|&r| blocked[r].is_some())
        .map(|r| (r, pc[r]))
        .collect();
    let inconclusive = (0..n).any(|r| blocked[r].is_none() && !roles[r].finished);
    let short = stuck.len() == 1 && sized && roles[stuck[0].0].ops[stuck[0].1].count.is_some();
    if inconclusive || !(stuck.len() >= 2 || short) {
        return None;
    }
    let (r0, i0) = stuck[0];
    let id = roles[r0].ops[i0].id;
    let arrived = arrived.get(&id).map_or(0, |here| {
        here.iter().map(|&r| roles[r].threads.unwrap_or(0)).sum()
    });
    Some(Hang { stuck, arrived })
}

/// Whether some thread can take the role's branch decisions. The walk forks at every
/// warp-uniform branch, so it also makes roles no warp has: inside a 3-warp subset but outside
/// a 5-warp one that contains it. Such a role would "wait" for barriers nobody runs. Decisions
/// on a thread index (`tid_condition`: `%tid.x` or the linear index, shifted or divided, against
/// a constant) are checked together over every index a block can have (bounded by
/// `.reqntid`/`.maxntid`); if no index satisfies those of one base, no thread has the role.
/// Any other decision is taken as possible.
fn feasible(fa: &FunctionAnalysis, linear: &[VarId], role: &mut Role) -> bool {
    let dims = launch_dims(fa);
    let exact = exact_dims(fa);
    let (conds, all_on_tid) = role_conditions(fa, linear, role);
    let possible = [TidBase::X, TidBase::Linear].into_iter().all(|base| {
        let of_base: Vec<&TidCond> = conds.iter().filter(|c| c.base == base).collect();
        of_base.is_empty()
            || (0..index_universe(base, dims) as u32).any(|t| of_base.iter().all(|c| c.holds(t)))
    });
    // The role's size: with an exact shape, decisions all on one index (`%tid.x` is the linear
    // index in a one-dimensional block).
    if let (Some([x, y, z]), true, true) = (exact, possible, all_on_tid) {
        let one_dim = y == 1 && z == 1;
        let bases: Vec<TidBase> = conds
            .iter()
            .map(|c| if one_dim { TidBase::Linear } else { c.base })
            .collect();
        if bases.windows(2).all(|w| w[0] == w[1]) {
            let base = bases.first().copied().unwrap_or(TidBase::Linear);
            let (n, rows) = match base {
                TidBase::X => (x, y * z),
                TidBase::Linear => (x * y * z, 1),
            };
            let count = (0..n.min(1024) as u32)
                .filter(|&t| conds.iter().all(|c| c.holds(t)))
                .count() as u64;
            role.threads = Some(count * rows);
        }
    }
    possible
}

/// The role's branch decisions as conditions on a thread index, and whether every decision is
/// one (`tid_condition`).
fn role_conditions(fa: &FunctionAnalysis, linear: &[VarId], role: &Role) -> (Vec<TidCond>, bool) {
    let mut conds: Vec<TidCond> = Vec::new();
    let mut all_on_tid = true;
    for &(stmt, taken) in &role.path {
        let Some((bstmt, guard)) = fa.cfg.branch_guard(fa.block(stmt)) else {
            all_on_tid = false;
            continue;
        };
        let Some(mut c) = tid_condition(fa, linear, bstmt, &guard.pred) else {
            all_on_tid = false;
            continue;
        };
        // Successor 0 (`taken`) is the side where the guard holds.
        if taken == guard.negated {
            c.cmp = c.cmp.negate();
        }
        conds.push(c);
    }
    (conds, all_on_tid)
}

/// The role's threads as index ranges ("the threads with `%tid.x` in [0, 32)"), when its
/// decisions are all on one thread index; `None` otherwise.
fn describe_threads(fa: &FunctionAnalysis, linear: &[VarId], role: &Role) -> Option<String> {
    let (conds, all_on_tid) = role_conditions(fa, linear, role);
    let base = conds.first()?.base;
    if !all_on_tid || conds.iter().any(|c| c.base != base) {
        return None;
    }
    let dims = launch_dims(fa);
    let universe = index_universe(base, dims) as u32;
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for t in 0..universe {
        if conds.iter().all(|c| c.holds(t)) {
            match ranges.last_mut() {
                Some((_, hi)) if *hi == t => *hi = t + 1,
                _ => ranges.push((t, t + 1)),
            }
        }
    }
    if ranges.is_empty() || ranges.len() > 3 {
        return None;
    }
    let index = match base {
        TidBase::X => "`%tid.x`",
        TidBase::Linear => "the linear thread index",
    };
    let text: Vec<String> = ranges
        .iter()
        .map(|&(lo, hi)| {
            if hi == universe && dims.is_none() {
                format!("at least {lo}")
            } else {
                format!("in [{lo}, {hi})")
            }
        })
        .collect();
    Some(format!("the threads with {index} {}", text.join(" or ")))
}

fn describe_role(fa: &FunctionAnalysis, linear: &[VarId], role: &Role) -> String {
    if role.path.is_empty() {
        return "the threads".to_string();
    }
    if let Some(threads) = describe_threads(fa, linear, role) {
        return threads;
    }
    let parts: Vec<String> = role
        .path
        .iter()
        .map(|(s, taken)| {
            format!(
                "{} the branch at line {}",
                if *taken { "take" } else { "do not take" },
                fa.line(*s)
            )
        })
        .collect();
    format!("the warps that {}", parts.join(" and "))
}

/// Reports to `sink` the warp roles that wait on each other's named barriers in an order that can
/// never complete, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let is_bar: Vec<bool> = fa
        .body
        .iter()
        .map(|(id, _)| {
            fa.inst(id)
                .is_some_and(|i| cta_barrier(fa, id, i).is_some())
        })
        .collect();
    if !is_bar.iter().any(|&b| b) {
        return;
    }
    check_over_participation(cx, sink);
    // Roles can only wait on each other through named barriers: two ids, or a thread count.
    let bars: Vec<_> = crate::barriers::cta_barriers(fa);
    let mut ids: Vec<i64> = bars.iter().filter_map(|b| b.id_const()).collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() < 2 && bars.iter().all(|b| b.count.is_none()) {
        return;
    }
    // Only kernels with warp roles: some barrier under warp-uniform (not CTA-uniform) control.
    let roles_exist = (0..fa.cfg.len()).any(|b| fa.uni.branch(b).is_some_and(|x| x.0 == U::Warp));
    if !roles_exist {
        return;
    }
    let Some(mut roles) = walk_roles(fa, &is_bar) else {
        return;
    };
    let linear = crate::uniformity::linear_tid_vars(fa.body, &fa.vars);
    roles.retain_mut(|role| feasible(fa, &linear, role));
    if roles.len() < 2 {
        return;
    }
    let Some(Hang { stuck, arrived }) = simulate(&roles) else {
        return;
    };
    let (r0, i0) = stuck[0];
    let op0 = roles[r0].ops[i0];
    if let ([_], Some(count)) = (stuck.as_slice(), op0.count) {
        sink.report(
            cx,
            &LINT,
            op0.stmt,
            format!(
                "deadlock: {} wait here on barrier {} with thread count {count}, but only {arrived} threads ever arrive on it",
                describe_role(fa, &linear, &roles[r0]),
                op0.id
            ),
            Vec::new(),
            vec![
                "PTX ISA §9.7.13.1: bar.sync waits until the barrier's thread count has arrived; the other threads of the block (an exact shape, .reqntid) have finished without arriving".into(),
                format!("make the count the {arrived} threads that reach the barrier, or let the missing threads arrive (bar.arrive {}, {count})", op0.id),
            ],
        );
        return;
    }
    let mut related = Vec::new();
    let mut waits_for = Vec::new();
    for &(r, i) in &stuck[1..] {
        let op = roles[r].ops[i];
        related.push((
            op.stmt,
            format!(
                "{} wait here on barrier {}",
                describe_role(fa, &linear, &roles[r]),
                op.id
            ),
        ));
        waits_for.push(format!("barrier {} (line {})", op.id, fa.line(op.stmt)));
    }
    sink.report(
        cx,
        &LINT,
        op0.stmt,
        format!(
            "deadlock: {} wait here on barrier {} while the other roles wait on {}, each before arriving where the other waits",
            describe_role(fa, &linear, &roles[r0]),
            op0.id,
            waits_for.join(", ")
        ),
        related,
        vec![
            "PTX ISA §9.7.13.1: bar.sync waits until all the barrier's threads have arrived; roles that wait on each other's barriers before arriving never complete".into(),
            "let one role arrive (bar.arrive) on the barrier the other waits on before it waits itself".into(),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// More participants than the count: a counted barrier that more threads reach in one pass.

/// What a thread-index expression is built on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TidBase {
    /// `%tid.x`.
    X,
    /// The linear thread index `%tid.x + %ntid.x * (%tid.y + %ntid.y * %tid.z)`.
    Linear,
}

/// One step applied to the thread index, in 32-bit arithmetic.
#[derive(Clone, Copy, Debug)]
enum Step {
    Add(i64),
    Shr { by: u32, signed: bool },
    Div { by: i64, signed: bool },
}

/// A condition `(steps applied to base) <cmp> k` on the thread index.
#[derive(Clone, Debug)]
struct TidCond {
    base: TidBase,
    steps: Vec<Step>,
    cmp: Cmp,
    k: i64,
    signed: bool,
}

impl TidCond {
    fn holds(&self, t: u32) -> bool {
        let mut x = t;
        for s in &self.steps {
            x = match *s {
                Step::Add(c) => x.wrapping_add(c as u32),
                Step::Shr { by, signed: false } => x.checked_shr(by).unwrap_or(0),
                Step::Shr { by, signed: true } => ((x as i32) >> by.min(31)) as u32,
                Step::Div { by, signed: false } => x / (by as u32),
                Step::Div { by, signed: true } => (x as i32).wrapping_div(by as i32) as u32,
            };
        }
        let (a, b) = if self.signed {
            (x as i32 as i64, self.k as i32 as i64)
        } else {
            (x as i64, self.k as u32 as i64)
        };
        match self.cmp {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// The single unguarded instruction that defines `var`.
fn single_def<'a>(fa: &FunctionAnalysis<'a>, var: VarId) -> Option<(StmtId, &'a Instruction)> {
    match fa.vars.def_sites(var) {
        [site] => {
            let inst = fa.inst(*site)?;
            (inst.guard.is_none() && fa.vars.defs(*site).len() == 1).then_some((*site, inst))
        }
        _ => None,
    }
}

fn const_operand(fa: &FunctionAnalysis, stmt: StmtId, op: &Operand) -> Option<i64> {
    match op {
        Operand::Imm(Imm::Int(v)) => Some(*v),
        Operand::Reg(_) => fa.consts.operand(stmt, op, &fa.vars).as_const(),
        _ => None,
    }
}

/// `op` at `stmt` as a thread index with steps applied (innermost first).
fn trace_tid(
    fa: &FunctionAnalysis,
    linear: &[VarId],
    stmt: StmtId,
    op: &Operand,
    depth: usize,
) -> Option<(TidBase, Vec<Step>)> {
    if depth > 16 {
        return None;
    }
    let Operand::Reg(name) = op else { return None };
    let var = match fa.vars.resolve(stmt, name)? {
        Src::Special(s) => return (&*s == "%tid.x").then(|| (TidBase::X, Vec::new())),
        Src::Var(v) => v,
    };
    if linear.contains(&var) {
        return Some((TidBase::Linear, Vec::new()));
    }
    let (site, inst) = single_def(fa, var)?;
    let ops = &inst.operands;
    let size4 = inst.scalar_type().is_some_and(|t| t.size() == 4);
    let signed = inst.scalar_type().is_some_and(|t| t.is_signed());
    match inst.opcode {
        Opcode::Mov if ops.len() == 2 => trace_tid(fa, linear, site, &ops[1], depth + 1),
        Opcode::Cvt if ops.len() == 2 && size4 => trace_tid(fa, linear, site, &ops[1], depth + 1),
        Opcode::Add | Opcode::Sub if ops.len() == 3 && size4 => {
            let sub = inst.opcode == Opcode::Sub;
            let (inner, c) = if let Some(c) = const_operand(fa, site, &ops[2]) {
                (&ops[1], if sub { c.wrapping_neg() } else { c })
            } else if !sub && let Some(c) = const_operand(fa, site, &ops[1]) {
                (&ops[2], c)
            } else {
                return None;
            };
            let (base, mut steps) = trace_tid(fa, linear, site, inner, depth + 1)?;
            steps.push(Step::Add(c));
            Some((base, steps))
        }
        Opcode::Shr if ops.len() == 3 && size4 => {
            let by = const_operand(fa, site, &ops[2])?;
            if !(0..32).contains(&by) {
                return None;
            }
            let (base, mut steps) = trace_tid(fa, linear, site, &ops[1], depth + 1)?;
            steps.push(Step::Shr {
                by: by as u32,
                signed,
            });
            Some((base, steps))
        }
        Opcode::Div if ops.len() == 3 && size4 => {
            let by = const_operand(fa, site, &ops[2])?;
            if by <= 0 || by > i32::MAX as i64 || (by & (by - 1)) != 0 {
                return None;
            }
            let (base, mut steps) = trace_tid(fa, linear, site, &ops[1], depth + 1)?;
            steps.push(Step::Div { by, signed });
            Some((base, steps))
        }
        _ => None,
    }
}

/// The condition that predicate register `pred` (read at `stmt`) holds, when it is
/// `setp.<cmp>.u32/s32 p, X, K` (or `K, X`) on a thread index `X`.
fn tid_condition(
    fa: &FunctionAnalysis,
    linear: &[VarId],
    stmt: StmtId,
    pred: &str,
) -> Option<TidCond> {
    let Src::Var(p) = fa.vars.resolve(stmt, pred)? else {
        return None;
    };
    let (site, inst) = single_def(fa, p)?;
    if inst.opcode != Opcode::Setp
        || inst.operands.len() != 3
        || inst.has("and")
        || inst.has("or")
        || inst.has("xor")
        || !(inst.has("u32") || inst.has("s32"))
    {
        return None;
    }
    let signed = inst.has("s32");
    let cmp = Cmp::from_modifiers(inst)?;
    let ops = &inst.operands;
    let (x, cmp, k) = if let Some(k) = const_operand(fa, site, &ops[2]) {
        (&ops[1], cmp, k)
    } else if let Some(k) = const_operand(fa, site, &ops[1]) {
        (&ops[2], cmp.swap(), k)
    } else {
        return None;
    };
    let (base, steps) = trace_tid(fa, linear, site, x, 0)?;
    Some(TidCond {
        base,
        steps,
        cmp,
        k,
        signed,
    })
}

/// The `.reqntid`/`.maxntid` dimensions of the function (positive ones).
fn launch_dims(fa: &FunctionAnalysis) -> Option<[u64; 3]> {
    let f = fa.function;
    let (x, y, z) = f
        .directive_dims("reqntid")
        .or_else(|| f.directive_dims("maxntid"))?;
    (x > 0 && y > 0 && z > 0).then_some([x as u64, y as u64, z as u64])
}

/// How many values thread index `base` takes: the block's x extent (`%tid.x`) or its size (the
/// linear index) from the launch bounds, at most 1024; 1024 without bounds.
fn index_universe(base: TidBase, dims: Option<[u64; 3]>) -> u64 {
    match (base, dims) {
        (TidBase::X, Some([x, _, _])) => x.min(1024),
        (TidBase::Linear, Some([x, y, z])) => (x * y * z).min(1024),
        (_, None) => 1024,
    }
}

/// The `.reqntid` dimensions: the exact block shape, when the kernel declares it.
fn exact_dims(fa: &FunctionAnalysis) -> Option<[u64; 3]> {
    launch_dims(fa).filter(|_| fa.function.directive_dims("reqntid").is_some())
}

/// Whether every path from the entry to `to` takes the edge `from -> succs[idx]`: its target
/// dominates `to`, and the target is entered by no other edge except from blocks it dominates
/// (the back edges of a loop it heads) or that the entry never reaches. O(1) per predecessor
/// with the dominator intervals.
fn edge_dominates(fa: &FunctionAnalysis, from: BlockId, idx: usize, to: BlockId) -> bool {
    let Some(&target) = fa.cfg.succs(from).get(idx) else {
        return false;
    };
    fa.dom.dominates(target, to)
        && fa
            .cfg
            .preds(target)
            .iter()
            .all(|&p| p == from || !fa.dom.is_reached(p) || fa.dom.dominates(target, p))
}

/// The conditions on the thread index under which the barrier at `stmt` runs, `None` when some
/// condition is not of that form (the threads that reach it are then not known).
fn reach_conditions(
    fa: &FunctionAnalysis,
    linear: &[VarId],
    cd: &[Vec<(BlockId, usize)>],
    stmt: StmtId,
    inst: &Instruction,
) -> Option<Vec<TidCond>> {
    let mut conds = Vec::new();
    if let Some(g) = &inst.guard {
        let mut c = tid_condition(fa, linear, stmt, &g.pred)?;
        if g.negated {
            c.cmp = c.cmp.negate();
        }
        conds.push(c);
    }
    let b = fa.block(stmt);
    // Transitive control dependence, with the edge each branch must take.
    let mut edges: Vec<(BlockId, usize)> = Vec::new();
    let mut work = vec![b];
    // At most 33 blocks are visited (each adds an edge, and the walk stops past 32).
    let mut visited: Vec<BlockId> = Vec::new();
    while let Some(x) = work.pop() {
        if x >= fa.cfg.len() || visited.contains(&x) {
            continue;
        }
        visited.push(x);
        for &(a, i) in cd.get(x)? {
            if !edges.contains(&(a, i)) {
                edges.push((a, i));
            }
            work.push(a);
        }
        if edges.len() > 32 {
            return None;
        }
    }
    for &(a, i) in &edges {
        // Reached through either side: not a condition.
        if edges.contains(&(a, 1 - i.min(1))) && i <= 1 {
            return None;
        }
        let succs = fa.cfg.succs(a);
        if succs.len() != 2 || succs[0] == succs[1] || i > 1 {
            return None;
        }
        let (bstmt, guard) = fa.cfg.branch_guard(a)?;
        // Every way to the barrier takes this edge.
        if !edge_dominates(fa, a, i, b) {
            return None;
        }
        let mut c = tid_condition(fa, linear, bstmt, &guard.pred)?;
        // Successor 0 is taken when the guard holds.
        let pred_true = (i == 0) != guard.negated;
        if !pred_true {
            c.cmp = c.cmp.negate();
        }
        conds.push(c);
    }
    Some(conds)
}

fn check_over_participation(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let bars = crate::barriers::cta_barriers(fa);
    if !bars.iter().any(|b| b.count_const().is_some()) {
        return;
    }
    let linear = crate::uniformity::linear_tid_vars(fa.body, &fa.vars);
    let cd = crate::dom::control_dependence(&fa.cfg, &fa.pdom);
    let dims = launch_dims(fa);
    for bar in &bars {
        let (Some(id), Some(count)) = (bar.id_const(), bar.count_const()) else {
            continue;
        };
        // A count that is not a positive multiple of the warp size is `barrier_count`'s finding
        // (undefined behavior, so no count of participants is meaningful).
        if count <= 0 || count % 32 != 0 {
            continue;
        }
        let Some(inst) = fa.inst(bar.stmt) else {
            continue;
        };
        let Some(conds) = reach_conditions(fa, &linear, &cd, bar.stmt, inst) else {
            continue;
        };
        if conds.is_empty() {
            continue;
        }
        let base = conds[0].base;
        if conds.iter().any(|c| c.base != base) {
            continue;
        }
        // The threads of the index range, and how many threads share one index value.
        let universe = index_universe(base, dims);
        let rows = match (base, dims) {
            (TidBase::X, Some([_, y, z])) => y * z,
            _ => 1,
        };
        let mut lo: Option<u32> = None;
        let mut hi = 0u32;
        let mut n = 0u64;
        for t in 0..universe as u32 {
            if conds.iter().all(|c| c.holds(t)) {
                lo.get_or_insert(t);
                hi = t + 1;
                n += 1;
            }
        }
        let Some(lo) = lo else { continue };
        // Unbounded (up to the largest possible index without launch bounds), or not one range.
        if (dims.is_none() && hi >= universe as u32) || n != u64::from(hi - lo) {
            continue;
        }
        let n = n * rows;
        let count = count as u64;
        if n <= count {
            continue;
        }
        let what = match base {
            TidBase::X => "`%tid.x`",
            TidBase::Linear => "the linear thread index",
        };
        sink.report(
            cx,
            &LINT,
            bar.stmt,
            format!(
                "barrier {id} with thread count {count} is reached by {n} threads ({what} in [{lo}, {hi})): the first {count} complete it and the other {} wait for an instance that never completes",
                n - count
            ),
            Vec::new(),
            vec![
                "PTX ISA §9.7.13.1: the thread count is the number of threads participating in the barrier; once that many have arrived the barrier completes, and the threads that arrive later start a new instance".into(),
                format!("make the count equal to the threads that reach the barrier, or guard it so that exactly {count} threads reach it"),
            ],
        );
    }
}
