//! ### What it does
//! Finds warp roles that wait on each other's named barriers in an order that can never
//! complete, as Weft does: the kernel is walked once per role (a role is a side of a
//! warp-uniform branch, such as `if (warp == 0)`), with the values a first pass through the
//! code gives (a loop counter is 0 in the first iteration, so `if (k > 0) bar.sync` is skipped
//! then), collecting each role's sequence of `bar.sync`/`bar.arrive`/`bar.red` with their ids;
//! then the roles are run against each other: an arrive registers and goes on, a sync waits
//! until every role that still has that id ahead has arrived. If every role that has not
//! finished waits, the kernel deadlocks, and the finding names each role's barrier.
//!
//! Unknown loop exits are taken as "stay in the loop" (long runs), unknown CTA-uniform
//! branches as the side with barriers, and a divergent branch with barriers on a side ends the
//! analysis (that is `aligned_barrier_divergence`'s business). A role that runs out of its
//! walk budget makes the run inconclusive: nothing is reported then.
//!
//! ### Why is this bad
//! PTX ISA §9.7.13.1: `bar.sync` waits until the barrier's thread count has arrived; a role
//! that syncs on barrier 0 before arriving on 1, while the other role syncs on 1 before
//! arriving on 0, waits forever. The GPU hangs without an error.
//!
//! ### Example
//! ```ptx
//! // warp 0                      // warp 1
//! bar.sync 0, 64;                bar.sync 1, 64;
//! bar.arrive 1, 64;              bar.arrive 0, 64;
//! ```
//!
//! ### Use instead
//! One role arrives first: warp 0 `bar.arrive 0, 64; bar.sync 1, 64;`, warp 1
//! `bar.sync 0, 64; bar.arrive 1, 64;`.

use super::{Context, LintInfo, Sink};
use crate::analysis::FunctionAnalysis;
use crate::barriers::{BarKind, cta_barrier};
use crate::cfg::{BlockId, Terminator};
use crate::consts::Cmp;
use crate::diagnostic::Level;
use crate::regs::{Src, VarId};
use crate::uniformity::Level as U;
use phasegate_ptx::{Imm, Instruction, Opcode, Operand, StmtId};
use std::collections::HashMap;

pub const LINT: LintInfo = LintInfo {
    name: "named_barrier_deadlock",
    default: Level::Deny,
    summary: "warp roles that wait on each other's named barriers in an order that can never complete",
};

const MAX_OPS: usize = 64;
const MAX_STEPS: usize = 20_000;
const MAX_ROLES: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq)]
struct BarOp {
    stmt: StmtId,
    id: i64,
    waits: bool,
}

#[derive(Clone, Debug)]
struct Role {
    ops: Vec<BarOp>,
    /// The role ran to an exit (false: its walk was cut).
    finished: bool,
    /// The warp-uniform branch decisions that make the role: (branch, taken).
    path: Vec<(StmtId, bool)>,
}

#[derive(Clone)]
struct Walker {
    block: BlockId,
    env: HashMap<VarId, i64>,
    ops: Vec<BarOp>,
    path: Vec<(StmtId, bool)>,
    steps: usize,
}

fn eval(
    fa: &FunctionAnalysis,
    env: &HashMap<VarId, i64>,
    stmt: StmtId,
    op: &Operand,
) -> Option<i64> {
    match op {
        Operand::Imm(Imm::Int(v)) => Some(*v),
        Operand::Reg(r) => match fa.vars.resolve(stmt, r)? {
            Src::Var(v) => env.get(&v).copied(),
            Src::Special(_) => None,
        },
        Operand::Not(inner) => eval(fa, env, stmt, inner).map(|v| i64::from(v == 0)),
        _ => None,
    }
}

/// Runs one instruction on the known values.
fn exec(fa: &FunctionAnalysis, env: &mut HashMap<VarId, i64>, stmt: StmtId, inst: &Instruction) {
    let defs = fa.vars.defs(stmt);
    let guard_ok = match &inst.guard {
        None => Some(true),
        Some(g) => {
            eval(fa, env, stmt, &Operand::Reg(g.pred.clone())).map(|v| (v != 0) != g.negated)
        }
    };
    let value = if guard_ok == Some(true) && defs.len() == 1 {
        let a = |i: usize| inst.operands.get(i).and_then(|o| eval(fa, env, stmt, o));
        let wm: u64 = match inst.scalar_type().map(|t| t.size()) {
            Some(4) => 0xffff_ffff,
            Some(2) => 0xffff,
            _ => u64::MAX,
        };
        let signed = inst.scalar_type().is_some_and(|t| t.is_signed());
        let compute = || -> Option<i64> {
            match &inst.opcode {
                Opcode::Mov | Opcode::Cvt | Opcode::Cvta if inst.operands.len() == 2 => a(1),
                Opcode::Add => Some(a(1)?.wrapping_add(a(2)?)),
                Opcode::Sub => Some(a(1)?.wrapping_sub(a(2)?)),
                Opcode::Mul => Some(a(1)?.wrapping_mul(a(2)?)),
                Opcode::Shl => Some(a(1)?.wrapping_shl(a(2)? as u32)),
                Opcode::Shr => Some(((a(1)? as u64 & wm) >> (a(2)? as u32).min(63)) as i64),
                Opcode::And => Some(a(1)? & a(2)?),
                Opcode::Or => Some(a(1)? | a(2)?),
                Opcode::Xor => Some(a(1)? ^ a(2)?),
                Opcode::Not if inst.has("pred") => Some(i64::from(a(1)? == 0)),
                Opcode::Not => Some(!a(1)?),
                Opcode::Min => Some(a(1)?.min(a(2)?)),
                Opcode::Max => Some(a(1)?.max(a(2)?)),
                Opcode::Selp => Some(if a(3)? != 0 { a(1)? } else { a(2)? }),
                Opcode::Setp
                    if inst.operands.len() == 3 && matches!(inst.operands[0], Operand::Reg(_)) =>
                {
                    let (x, y) = (a(1)?, a(2)?);
                    let (x, y) = if signed {
                        (x, y)
                    } else {
                        ((x as u64 & wm) as i64, (y as u64 & wm) as i64)
                    };
                    let c = Cmp::from_modifiers(inst)?;
                    let (x, y) = (x as i128, y as i128);
                    let (x, y) = if signed {
                        (x, y)
                    } else {
                        (x & 0xffff_ffff_ffff_ffff, y & 0xffff_ffff_ffff_ffff)
                    };
                    Some(i64::from(match c {
                        Cmp::Eq => x == y,
                        Cmp::Ne => x != y,
                        Cmp::Lt => x < y,
                        Cmp::Le => x <= y,
                        Cmp::Gt => x > y,
                        Cmp::Ge => x >= y,
                    }))
                }
                _ => None,
            }
        };
        let r = compute();
        r.map(|v| {
            if inst.has("pred") {
                i64::from(v != 0)
            } else {
                ((v as u64) & wm) as i64
            }
        })
    } else {
        None
    };
    for &d in defs {
        match value {
            Some(v) => {
                env.insert(d, v);
            }
            None if guard_ok == Some(false) => {}
            None => {
                env.remove(&d);
            }
        }
    }
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
                    });
                    break;
                }
            }
        }
    }
    Some(roles)
}

/// Runs the roles against each other; `Some(blocked)` (role, op index) when they deadlock.
fn simulate(roles: &[Role]) -> Option<Vec<(usize, usize)>> {
    let n = roles.len();
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
            let all = (0..n)
                .filter(|&r| {
                    here.contains(&r) || (pc[r] < roles[r].ops.len() && remaining_uses(r, &pc, id))
                })
                .all(|r| here.contains(&r));
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
    if stuck.len() >= 2 && !inconclusive {
        Some(stuck)
    } else {
        None
    }
}

fn describe_role(fa: &FunctionAnalysis, role: &Role) -> String {
    if role.path.is_empty() {
        return "the threads".to_string();
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
    let Some(roles) = walk_roles(fa, &is_bar) else {
        return;
    };
    if roles.len() < 2 {
        return;
    }
    let Some(stuck) = simulate(&roles) else {
        return;
    };
    let (r0, i0) = stuck[0];
    let op0 = roles[r0].ops[i0];
    let mut related = Vec::new();
    let mut waits_for = Vec::new();
    for &(r, i) in &stuck[1..] {
        let op = roles[r].ops[i];
        related.push((
            op.stmt,
            format!(
                "{} wait here on barrier {}",
                describe_role(fa, &roles[r]),
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
            describe_role(fa, &roles[r0]),
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
