//! What the per-thread protocol analyses share: what a branch edge says about a loop
//! counter (`k < 4` on one side, `k >= 4` on the other), the conditions under which a statement
//! runs, and a forward dataflow driver over the CFG.

use crate::analysis::FunctionAnalysis;
use crate::cfg::BlockId;
use crate::consts::{Cmp, Val};
use crate::regs::{Src, VarId};
use phasegate_ptx::{Imm, Instruction, Opcode, Operand, Statement, StmtId};
use std::collections::HashMap;

/// A fact about a variable on one edge: `var cmp value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EdgeFact {
    /// The variable, a loop counter.
    pub var: VarId,
    /// How it compares with `value` on the edge.
    pub cmp: Cmp,
    /// The constant it is compared with.
    pub value: i64,
}

impl EdgeFact {
    /// Whether the fact can hold when `var >= lo` (the iteration is at least `lo`).
    pub fn possible_when_at_least(&self, lo: i64) -> bool {
        match self.cmp {
            Cmp::Lt => self.value > lo,
            Cmp::Le => self.value >= lo,
            Cmp::Eq => self.value >= lo,
            _ => true,
        }
    }
    /// Whether the fact can hold when `var < hi`.
    pub fn possible_when_below(&self, hi: i64) -> bool {
        match self.cmp {
            Cmp::Ge => self.value < hi,
            Cmp::Gt => self.value + 1 < hi,
            Cmp::Eq => self.value < hi,
            _ => true,
        }
    }
}

/// What taking successor `i` of block `b` says about a variable, when the branch compares a
/// variable with a constant (`setp.lt.u32 %p, %r9, 4; @%p bra L`).
pub fn edge_fact(fa: &FunctionAnalysis, b: BlockId, i: usize) -> Option<EdgeFact> {
    let (stmt, guard) = fa.cfg.branch_guard(b)?;
    let pred = match fa.vars.resolve(stmt, &guard.pred)? {
        Src::Var(v) => v,
        Src::Special(_) => return None,
    };
    let (cmp, a, c) = fa.consts.compare(fa.body, &fa.vars, pred)?;
    let plain = |v: &Val| match v {
        Val::Expr(e) if e.base.is_none() && e.add == 0 => {
            e.term.filter(|t| t.is_plain()).map(|t| t.var)
        }
        _ => None,
    };
    let (var, cmp, value) = match (plain(&a), c.as_const(), plain(&c), a.as_const()) {
        (Some(v), Some(k), _, _) => (v, cmp, k),
        (_, _, Some(v), Some(k)) => (v, cmp.swap(), k),
        _ => return None,
    };
    // Successor 0 is taken when the guard holds.
    let holds = (i == 0) != guard.negated;
    Some(EdgeFact {
        var,
        cmp: if holds { cmp } else { cmp.negate() },
        value,
    })
}

/// A predicate, named by what computes it, so that two registers holding the same comparison
/// compare equal: `(setp key, polarity)`.
pub fn pred_key(
    fa: &FunctionAnalysis,
    stmt: StmtId,
    pred: &str,
    negated: bool,
) -> Option<(String, bool)> {
    let var = match fa.vars.resolve(stmt, pred)? {
        Src::Var(v) => v,
        Src::Special(_) => return None,
    };
    let sites = fa.vars.def_sites(var);
    if sites.len() != 1 {
        return Some((format!("var{var}"), !negated));
    }
    let def = sites[0];
    let Statement::Instruction(inst) = fa.body.get(def) else {
        return None;
    };
    if inst.opcode != phasegate_ptx::Opcode::Setp
        || inst.operands.len() != 3
        || inst.guard.is_some()
    {
        return Some((format!("var{var}"), !negated));
    }
    let Some(cmp) = Cmp::from_modifiers(inst) else {
        return Some((format!("var{var}"), !negated));
    };
    let name = |op: &Operand| -> String {
        match op {
            Operand::Reg(r) => match fa.vars.resolve(def, r) {
                Some(Src::Var(v)) if fa.vars.def_sites(v).len() == 1 => format!("v{v}"),
                Some(Src::Var(v)) => format!("m{v}@{}", def.0),
                Some(Src::Special(s)) => s.to_string(),
                None => r.clone(),
            },
            Operand::Imm(i) => format!("{i:?}"),
            other => format!("{other:?}"),
        }
    };
    let ty = inst.scalar_type().map(|t| t.name()).unwrap_or("");
    // Canonical form: eq/lt/le with the polarity flipped for ne/ge/gt.
    let (cmp, flip) = match cmp {
        Cmp::Ne => (Cmp::Eq, true),
        Cmp::Ge => (Cmp::Lt, true),
        Cmp::Gt => (Cmp::Le, true),
        c => (c, false),
    };
    Some((
        format!(
            "{cmp:?}.{ty} {} {}",
            name(&inst.operands[1]),
            name(&inst.operands[2])
        ),
        negated == flip,
    ))
}

/// The conditions under which a statement runs: its guard and the branch sides it depends on
/// (transitively), each as a predicate key and the polarity it must have.
pub fn run_condition(fa: &FunctionAnalysis, stmt: StmtId) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    if let Some(inst) = fa.inst(stmt)
        && let Some(g) = &inst.guard
        && let Some(k) = pred_key(fa, stmt, &g.pred, g.negated)
    {
        out.push(k);
    }
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut stack = vec![fa.block(stmt)];
    while let Some(b) = stack.pop() {
        let cd = fa.uni.control_deps(b);
        for &(a, i) in cd.deps.iter().chain(cd.exits.iter()) {
            if let Some((bstmt, guard)) = fa.cfg.branch_guard(a) {
                // Successor 0 is taken when the guard holds.
                let holds = (i == 0) != guard.negated;
                if let Some((key, pol)) = pred_key(fa, bstmt, &guard.pred, false) {
                    let k = (key, if holds { pol } else { !pol });
                    if !out.contains(&k) {
                        out.push(k);
                    }
                }
            }
            if a < n && !seen[a] {
                seen[a] = true;
                stack.push(a);
            }
        }
    }
    out
}

/// Whether every thread that runs `later` also ran `earlier` (as far as their conditions
/// show).
pub fn same_threads(fa: &FunctionAnalysis, earlier: StmtId, later: StmtId) -> bool {
    let a = run_condition(fa, earlier);
    let b = run_condition(fa, later);
    a.iter().all(|c| b.contains(c))
}

/// A forward dataflow over the blocks of a function: `transfer` maps a block's in-state to
/// its out-state; `edge` adjusts the state on an edge (`from`, successor index, `to`); `join`
/// merges into the first state and says whether it changed. Returns the in-state of every
/// block (`None` for blocks not reached).
pub fn forward<S: Clone>(
    fa: &FunctionAnalysis,
    entry: S,
    mut transfer: impl FnMut(BlockId, &S) -> S,
    mut edge: impl FnMut(BlockId, usize, BlockId, &S) -> S,
    mut join: impl FnMut(&mut S, &S) -> bool,
) -> Vec<Option<S>> {
    let n = fa.cfg.len();
    let mut ins: Vec<Option<S>> = vec![None; n];
    if n == 0 {
        return ins;
    }
    ins[0] = Some(entry);
    let order: Vec<BlockId> = fa.cfg.rpo.clone();
    let mut pos = vec![usize::MAX; n];
    for (i, &b) in order.iter().enumerate() {
        pos[b] = i;
    }
    let mut dirty = vec![false; n];
    dirty[0] = true;
    let mut rounds = 0usize;
    loop {
        let mut any = false;
        for &b in &order {
            if !dirty[b] {
                continue;
            }
            dirty[b] = false;
            let Some(inb) = ins[b].clone() else { continue };
            let out = transfer(b, &inb);
            for (i, &s) in fa.cfg.succs(b).iter().enumerate() {
                if s >= n {
                    continue;
                }
                let e = edge(b, i, s, &out);
                let changed = match &mut ins[s] {
                    None => {
                        ins[s] = Some(e);
                        true
                    }
                    Some(cur) => join(cur, &e),
                };
                if changed {
                    dirty[s] = true;
                    any = true;
                }
            }
        }
        rounds += 1;
        if !any || rounds > 200 {
            break;
        }
    }
    ins
}

/// The value of an operand from the known values of registers (`env`), if known.
pub fn eval(
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

/// Runs one instruction on the known values: its definitions get their value where every
/// operand is known (and the guard holds), and lose it otherwise.
pub fn exec(
    fa: &FunctionAnalysis,
    env: &mut HashMap<VarId, i64>,
    stmt: StmtId,
    inst: &Instruction,
) {
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
