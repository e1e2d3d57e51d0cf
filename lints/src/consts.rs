//! Constant propagation with symbolic addresses and stage indices.
//!
//! Each variable gets one abstract value for the whole body (nvcc's virtual registers are
//! almost all assigned once; loop counters, assigned twice, become unknown and are then named
//! symbolically). The values say what the barrier analyses need to know:
//! - barrier ids and thread counts: [`Val::Const`];
//! - mbarrier objects: a shared symbol plus an offset, [`Expr`] with `base`;
//! - ring-buffer stages and phase parities as bit fields of an iteration counter:
//!   `full + ((t & 3) << 3)` is stage `t % 4` of `full`, `((t >> 2) & 1) ^ 1` a parity.
//!
//! A value that refers to a counter means "the counter's value where it is read"; the protocol
//! analyses relate such values within one iteration of the counter's loop.

use crate::cfg::Cfg;
use crate::loops::Loops;
use crate::regs::{Src, VarId, Vars};
use phasegate_ptx::{Body, Imm, Instruction, Opcode, Operand, Statement, StmtId};

/// `((((var >> shift) & mask) ^ xor) << lshift)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Term {
    /// The variable, typically a loop counter.
    pub var: VarId,
    /// Right shift applied first.
    pub shift: u32,
    /// Mask after the shift; `u64::MAX` for none.
    pub mask: u64,
    /// Bits flipped after the mask (`^ 1` turns a phase bit into its parity).
    pub xor: u64,
    /// Left shift applied last (`<< 3` turns a stage index into a byte offset of 8-byte mbarriers).
    pub lshift: u32,
}

impl Term {
    /// The variable itself, unshifted and unmasked.
    pub fn of(var: VarId) -> Term {
        Term {
            var,
            shift: 0,
            mask: u64::MAX,
            xor: 0,
            lshift: 0,
        }
    }
    /// Whether the term is the variable itself.
    pub fn is_plain(&self) -> bool {
        self.shift == 0 && self.mask == u64::MAX && self.xor == 0 && self.lshift == 0
    }
    /// `Some(w)` when the mask is `2^w - 1` (w < 64).
    pub fn mask_bits(&self) -> Option<u32> {
        if self.mask == u64::MAX {
            None
        } else if (self.mask & self.mask.wrapping_add(1)) == 0 {
            Some(self.mask.count_ones())
        } else {
            None
        }
    }
}

/// A symbolic integer: `base + term + add`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    /// The address of a variable (a `.shared` or `.global` symbol).
    pub base: Option<String>,
    /// A bit field of a variable, if any.
    pub term: Option<Term>,
    /// The constant part, in bytes for an address.
    pub add: i64,
}

/// The abstract value of a variable: what constant propagation knows about it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Val {
    /// Not yet known (no definition seen).
    #[default]
    Bot,
    /// A constant: a barrier id, a thread count, a parity.
    Const(i64),
    /// A symbolic value: an address into a variable, a bit field of a counter, or both.
    Expr(Expr),
    /// An address in another CTA of the cluster (`mapa`).
    Remote,
    /// Unknown.
    Top,
}

impl Val {
    /// The constant, if the value is one.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Val::Const(c) => Some(*c),
            _ => None,
        }
    }
    fn join(&self, other: &Val) -> Val {
        match (self, other) {
            (Val::Bot, x) | (x, Val::Bot) => x.clone(),
            (a, b) if a == b => a.clone(),
            _ => Val::Top,
        }
    }
    fn expr(&self) -> Option<Expr> {
        match self {
            Val::Const(c) => Some(Expr {
                base: None,
                term: None,
                add: *c,
            }),
            Val::Expr(e) => Some(e.clone()),
            _ => None,
        }
    }
    fn from_expr(e: Expr) -> Val {
        if e.base.is_none() && e.term.is_none() {
            Val::Const(e.add)
        } else {
            Val::Expr(e)
        }
    }
}

/// Comparison operators of `setp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `eq`.
    Eq,
    /// `ne`.
    Ne,
    /// `lt`, or unsigned `lo`.
    Lt,
    /// `le`, or unsigned `ls`.
    Le,
    /// `gt`, or unsigned `hi`.
    Gt,
    /// `ge`, or unsigned `hs`.
    Ge,
}

impl Cmp {
    /// The comparison among an instruction's modifiers (`setp.lt.u32`); `None` without one, as
    /// for the unordered float comparisons (`ltu`, `num`, ...). Signedness is not kept.
    pub fn from_modifiers(inst: &Instruction) -> Option<Cmp> {
        inst.modifiers.iter().find_map(|m| match m.as_str() {
            "eq" => Some(Cmp::Eq),
            "ne" => Some(Cmp::Ne),
            "lt" | "lo" => Some(Cmp::Lt),
            "le" | "ls" => Some(Cmp::Le),
            "gt" | "hi" => Some(Cmp::Gt),
            "ge" | "hs" => Some(Cmp::Ge),
            _ => None,
        })
    }
    /// The comparison that holds exactly when `self` does not (`lt` → `ge`), for the false side of
    /// a branch.
    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }
    /// The comparison with its operands exchanged (`a < b` is `b > a`).
    pub fn swap(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
            x => x,
        }
    }
}

/// An induction variable of a loop: `init` before it, `+= step` once per iteration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Induction {
    /// The counter.
    pub var: VarId,
    /// Its value on entry to the loop.
    pub init: i64,
    /// What each iteration adds (negative for a count-down).
    pub step: i64,
    /// The statement that steps it.
    pub step_stmt: StmtId,
}

/// The abstract value of every variable.
#[derive(Clone, Debug, Default)]
pub struct Consts {
    vals: Vec<Val>,
}

fn is_int_type(inst: &Instruction) -> bool {
    inst.scalar_type()
        .is_none_or(|t| !t.is_float() && t != phasegate_ptx::ScalarType::Pred)
}

fn width_mask(inst: &Instruction) -> u64 {
    match inst.scalar_type().map(|t| t.size()) {
        Some(1) => 0xff,
        Some(2) => 0xffff,
        Some(4) => 0xffff_ffff,
        _ => u64::MAX,
    }
}

impl Consts {
    /// Propagates constants and symbolic values over `body`, each variable getting the join of its
    /// definitions.
    pub fn new(body: &Body, vars: &Vars) -> Consts {
        let mut c = Consts {
            vals: vec![Val::Bot; vars.len()],
        };
        let mut queued = vec![false; body.len()];
        let mut visits = vec![0u8; body.len()];
        let mut work: std::collections::VecDeque<StmtId> = std::collections::VecDeque::new();
        // The join over a variable's definitions depends only on the values and on which
        // definitions have passed 8 visits; `epoch` counts changes to either, and `joined`
        // keeps each variable's last join with its epoch. Without it, a register defined at
        // `d` sites costs `d` transfers at each of its `d` definitions (quadratic).
        let mut epoch = 0u64;
        let mut joined: Vec<Option<(u64, Val)>> = vec![None; vars.len()];
        for (id, _) in body.instructions() {
            if !vars.defs(id).is_empty() {
                work.push_back(id);
                queued[id.index()] = true;
            }
        }
        while let Some(id) = work.pop_front() {
            queued[id.index()] = false;
            visits[id.index()] = visits[id.index()].saturating_add(1);
            if visits[id.index()] == 9 {
                epoch += 1;
            }
            if !matches!(body.get(id), Statement::Instruction(_)) {
                continue;
            }
            for &var in vars.defs(id) {
                // The value of a variable is the join over all its definitions, recomputed, so a
                // value seen early (a counter's initial 0) does not stick.
                let new = if visits[id.index()] > 8 {
                    Val::Top
                } else if let Some((at, v)) = &joined[var as usize]
                    && *at == epoch
                {
                    v.clone()
                } else {
                    let mut v = Val::Bot;
                    for &d in vars.def_sites(var) {
                        let dv = match body.get(d) {
                            Statement::Instruction(di) if visits[d.index()] <= 8 => {
                                c.transfer(d, di, var, vars)
                            }
                            _ => Val::Top,
                        };
                        v = v.join(&dv);
                    }
                    joined[var as usize] = Some((epoch, v.clone()));
                    v
                };
                if new != c.vals[var as usize] {
                    epoch += 1;
                    c.vals[var as usize] = new;
                    for &u in vars.use_sites(var) {
                        if !queued[u.index()] {
                            queued[u.index()] = true;
                            work.push_back(u);
                        }
                    }
                    for &d in vars.def_sites(var) {
                        if d != id && !queued[d.index()] {
                            queued[d.index()] = true;
                            work.push_back(d);
                        }
                    }
                }
            }
        }
        c
    }

    /// The abstract value of a variable.
    pub fn val(&self, var: VarId) -> &Val {
        self.vals.get(var as usize).unwrap_or(&Val::Top)
    }

    /// The value of an operand of statement `stmt`: a variable whose value is unknown is named
    /// symbolically.
    pub fn operand(&self, stmt: StmtId, op: &Operand, vars: &Vars) -> Val {
        match op {
            Operand::Imm(Imm::Int(v)) => Val::Const(*v),
            Operand::Reg(name) => match vars.resolve(stmt, name) {
                Some(Src::Var(v)) => match self.val(v) {
                    Val::Top => Val::Expr(Expr {
                        base: None,
                        term: Some(Term::of(v)),
                        add: 0,
                    }),
                    other => other.clone(),
                },
                _ => Val::Top,
            },
            Operand::Symbol(s) => Val::Expr(Expr {
                base: Some(s.clone()),
                term: None,
                add: 0,
            }),
            Operand::SymbolOffset(s, o) => Val::Expr(Expr {
                base: Some(s.clone()),
                term: None,
                add: *o,
            }),
            Operand::Address(a) => {
                let base = match &a.base {
                    phasegate_ptx::AddressBase::Reg(r) => {
                        self.operand(stmt, &Operand::Reg(r.clone()), vars)
                    }
                    phasegate_ptx::AddressBase::Symbol(s) => Val::Expr(Expr {
                        base: Some(s.clone()),
                        term: None,
                        add: 0,
                    }),
                    phasegate_ptx::AddressBase::Absolute => Val::Const(0),
                };
                add_const(&base, a.offset)
            }
            _ => Val::Top,
        }
    }

    fn transfer(&self, id: StmtId, inst: &Instruction, var: VarId, vars: &Vars) -> Val {
        // Only single plain register destinations carry a value.
        match inst.operands.first() {
            Some(Operand::Reg(_)) => {}
            _ => return Val::Top,
        }
        if vars.defs(id).len() != 1 || vars.defs(id)[0] != var {
            return Val::Top;
        }
        if inst.guard.is_some() {
            // A guarded definition may leave the old value: joined by the caller with the
            // other definitions, but a lone guarded one says nothing.
            if vars.def_sites(var).len() == 1 {
                return Val::Top;
            }
        }
        let arg = |i: usize| {
            inst.operands
                .get(i)
                .map(|o| self.operand(id, o, vars))
                .unwrap_or(Val::Top)
        };
        let a = arg(1);
        let wm = width_mask(inst);
        let result = match &inst.opcode {
            Opcode::Mov => {
                if inst.operands.len() == 2 && !matches!(inst.operands[1], Operand::Vector(_)) {
                    a
                } else {
                    Val::Top
                }
            }
            Opcode::Cvta => a,
            Opcode::Cvt
                if is_int_type(inst)
                    && !inst
                        .modifiers
                        .iter()
                        .any(|m| m.starts_with('f') || m.starts_with("bf")) =>
            {
                a
            }
            Opcode::Mapa => Val::Remote,
            _ if !is_int_type(inst) => Val::Top,
            Opcode::Add => add(&a, &arg(2)),
            Opcode::Sub => match arg(2).as_const() {
                Some(c) => add_const(&a, c.wrapping_neg()),
                None => Val::Top,
            },
            Opcode::Mul if inst.has("lo") || inst.has("wide") => {
                match (a.as_const(), arg(2).as_const()) {
                    (Some(x), Some(y)) => Val::Const(x.wrapping_mul(y)),
                    (None, Some(y)) | (Some(y), None) if y > 0 && (y as u64).is_power_of_two() => {
                        let other = if a.as_const().is_some() {
                            arg(2)
                        } else {
                            a.clone()
                        };
                        shl(&other, y.trailing_zeros())
                    }
                    _ => Val::Top,
                }
            }
            Opcode::Shl => match arg(2).as_const() {
                Some(k) if (0..64).contains(&k) => shl(&a, k as u32),
                _ => Val::Top,
            },
            Opcode::Shr => match arg(2).as_const() {
                Some(k) if (0..64).contains(&k) => shr(&a, k as u32, wm),
                _ => Val::Top,
            },
            Opcode::Div if !inst.has("s32") && !inst.has("s64") => match arg(2).as_const() {
                Some(d) if d > 0 && (d as u64).is_power_of_two() => shr(&a, d.trailing_zeros(), wm),
                Some(d) if d > 0 => match a.as_const() {
                    Some(x) => Val::Const(((x as u64 & wm) / d as u64) as i64),
                    None => Val::Top,
                },
                _ => Val::Top,
            },
            Opcode::Rem if !inst.has("s32") && !inst.has("s64") => match arg(2).as_const() {
                Some(d) if d > 0 && (d as u64).is_power_of_two() => and(&a, (d - 1) as u64, wm),
                Some(d) if d > 0 => match a.as_const() {
                    Some(x) => Val::Const(((x as u64 & wm) % d as u64) as i64),
                    None => Val::Top,
                },
                _ => Val::Top,
            },
            Opcode::And => match (a.as_const(), arg(2).as_const()) {
                (_, Some(m)) => and(&a, m as u64, wm),
                (Some(m), None) => and(&arg(2), m as u64, wm),
                _ => Val::Top,
            },
            Opcode::Or => match (a.as_const(), arg(2).as_const()) {
                (Some(x), Some(y)) => Val::Const(((x | y) as u64 & wm) as i64),
                _ => Val::Top,
            },
            Opcode::Xor => match (a.as_const(), arg(2).as_const()) {
                (_, Some(m)) => xor(&a, m as u64, wm),
                (Some(m), None) => xor(&arg(2), m as u64, wm),
                _ => Val::Top,
            },
            Opcode::Not => xor(&a, u64::MAX, wm),
            Opcode::Bfe if !inst.has("s32") && !inst.has("s64") => {
                match (arg(2).as_const(), arg(3).as_const()) {
                    (Some(pos), Some(len)) if (0..64).contains(&pos) && (1..64).contains(&len) => {
                        and(&shr(&a, pos as u32, wm), (1u64 << len) - 1, wm)
                    }
                    _ => Val::Top,
                }
            }
            Opcode::Min | Opcode::Max => match (a.as_const(), arg(2).as_const()) {
                (Some(x), Some(y)) => Val::Const(if inst.opcode == Opcode::Min {
                    x.min(y)
                } else {
                    x.max(y)
                }),
                _ => Val::Top,
            },
            Opcode::Selp => {
                let b = arg(2);
                if a == b && a.as_const().is_some() {
                    a
                } else {
                    Val::Top
                }
            }
            _ => Val::Top,
        };
        match result {
            Val::Bot => Val::Bot,
            Val::Const(c) => Val::Const(((c as u64) & wm) as i64),
            other => other,
        }
    }

    /// The comparison that defines a predicate (`setp.lt.u32 %p, a, b`), when it has one
    /// definition.
    pub fn compare(&self, body: &Body, vars: &Vars, pred: VarId) -> Option<(Cmp, Val, Val)> {
        let sites = vars.def_sites(pred);
        if sites.len() != 1 {
            return None;
        }
        let id = sites[0];
        let Statement::Instruction(inst) = body.get(id) else {
            return None;
        };
        if inst.opcode != Opcode::Setp
            || inst.guard.is_some()
            || !matches!(inst.operands.first(), Some(Operand::Reg(_)))
        {
            return None;
        }
        // `setp.lt.and` and friends combine with a further predicate: not a plain comparison.
        if inst.operands.len() != 3 {
            return None;
        }
        let cmp = Cmp::from_modifiers(inst)?;
        Some((
            cmp,
            self.operand(id, &inst.operands[1], vars),
            self.operand(id, &inst.operands[2], vars),
        ))
    }

    /// Induction variables of each loop (`var = init` before the loop, `var += step` inside).
    pub fn inductions(
        &self,
        body: &Body,
        vars: &Vars,
        cfg: &Cfg,
        loops: &Loops,
    ) -> Vec<Vec<Induction>> {
        let mut out = vec![Vec::new(); loops.loops.len()];
        for (li, lp) in loops.loops.iter().enumerate() {
            let mut candidates: Vec<VarId> = Vec::new();
            for &b in &lp.body {
                for s in cfg.blocks[b].stmts() {
                    for &d in vars.defs(s) {
                        if !candidates.contains(&d) {
                            candidates.push(d);
                        }
                    }
                }
            }
            for var in candidates {
                let mut inside = None;
                let mut init: Option<i64> = None;
                let mut ok = true;
                for &d in vars.def_sites(var) {
                    let Statement::Instruction(inst) = body.get(d) else {
                        ok = false;
                        break;
                    };
                    if lp.contains(cfg.block_of(d)) {
                        if inside.is_some()
                            || inst.guard.is_some()
                            || inst.opcode != Opcode::Add
                            || inst.operands.len() != 3
                        {
                            ok = false;
                            break;
                        }
                        let x = vars.var_of(d, &inst.operands[1]);
                        let y = vars.var_of(d, &inst.operands[2]);
                        let step = if x == Some(var) {
                            self.operand(d, &inst.operands[2], vars).as_const()
                        } else if y == Some(var) {
                            self.operand(d, &inst.operands[1], vars).as_const()
                        } else {
                            None
                        };
                        match step {
                            Some(s) => inside = Some((s, d)),
                            None => {
                                ok = false;
                                break;
                            }
                        }
                    } else {
                        let v = if inst.opcode == Opcode::Mov
                            && inst.guard.is_none()
                            && inst.operands.len() == 2
                        {
                            self.operand(d, &inst.operands[1], vars).as_const()
                        } else {
                            None
                        };
                        match (v, init) {
                            (Some(v), None) => init = Some(v),
                            (Some(v), Some(i)) if v == i => {}
                            _ => {
                                ok = false;
                                break;
                            }
                        }
                    }
                }
                if let (true, Some((step, step_stmt)), Some(init)) = (ok, inside, init) {
                    out[li].push(Induction {
                        var,
                        init,
                        step,
                        step_stmt,
                    });
                }
            }
        }
        out
    }
}

fn add_const(a: &Val, c: i64) -> Val {
    match a.expr() {
        Some(mut e) => {
            e.add = e.add.wrapping_add(c);
            Val::from_expr(e)
        }
        None => match a {
            Val::Bot => Val::Bot,
            Val::Remote => Val::Remote,
            _ => Val::Top,
        },
    }
}

fn add(a: &Val, b: &Val) -> Val {
    if matches!(a, Val::Bot) || matches!(b, Val::Bot) {
        return Val::Bot;
    }
    if matches!(a, Val::Remote) || matches!(b, Val::Remote) {
        return Val::Remote;
    }
    let (Some(x), Some(y)) = (a.expr(), b.expr()) else {
        return Val::Top;
    };
    if x.base.is_some() && y.base.is_some() || x.term.is_some() && y.term.is_some() {
        return Val::Top;
    }
    Val::from_expr(Expr {
        base: x.base.or(y.base),
        term: x.term.or(y.term),
        add: x.add.wrapping_add(y.add),
    })
}

fn shl(a: &Val, k: u32) -> Val {
    match a {
        Val::Bot => Val::Bot,
        Val::Const(c) => Val::Const(((*c as u64) << k) as i64),
        Val::Expr(Expr {
            base: None,
            term: Some(t),
            add: 0,
        }) if t.lshift + k < 64 => Val::Expr(Expr {
            base: None,
            term: Some(Term {
                lshift: t.lshift + k,
                ..*t
            }),
            add: 0,
        }),
        _ => Val::Top,
    }
}

fn shr(a: &Val, k: u32, wm: u64) -> Val {
    match a {
        Val::Bot => Val::Bot,
        Val::Const(c) => Val::Const(((*c as u64 & wm) >> k) as i64),
        Val::Expr(Expr {
            base: None,
            term: Some(t),
            add: 0,
        }) => {
            let t = narrow(*t, wm);
            if t.lshift >= k {
                Val::Expr(Expr {
                    base: None,
                    term: Some(Term {
                        lshift: t.lshift - k,
                        ..t
                    }),
                    add: 0,
                })
            } else {
                // Shift the low `lshift` zero bits out, then the field itself.
                let rest = k - t.lshift;
                Val::Expr(Expr {
                    base: None,
                    term: Some(Term {
                        var: t.var,
                        shift: t.shift + rest,
                        mask: t.mask >> rest,
                        xor: t.xor >> rest,
                        lshift: 0,
                    }),
                    add: 0,
                })
            }
        }
        _ => Val::Top,
    }
}

/// A plain variable read in a `wm`-bit operation is masked to that width.
fn narrow(t: Term, wm: u64) -> Term {
    let lim = if t.lshift >= 64 { 0 } else { wm >> t.lshift };
    Term {
        mask: t.mask & lim,
        xor: t.xor & lim,
        ..t
    }
}

fn and(a: &Val, m: u64, wm: u64) -> Val {
    match a {
        Val::Bot => Val::Bot,
        Val::Const(c) => Val::Const(((*c as u64) & m & wm) as i64),
        Val::Expr(Expr {
            base: None,
            term: Some(t),
            add: 0,
        }) => {
            let t = narrow(*t, wm);
            let field_mask = (m & wm) >> t.lshift;
            let mask = t.mask & field_mask;
            if mask == 0 {
                return Val::Const(((t.xor & field_mask) << t.lshift) as i64);
            }
            if (mask & mask.wrapping_add(1)) != 0 {
                return Val::Top;
            }
            Val::Expr(Expr {
                base: None,
                term: Some(Term {
                    mask,
                    xor: t.xor & field_mask,
                    ..t
                }),
                add: 0,
            })
        }
        _ => Val::Top,
    }
}

fn xor(a: &Val, m: u64, wm: u64) -> Val {
    match a {
        Val::Bot => Val::Bot,
        Val::Const(c) => Val::Const((((*c as u64) ^ m) & wm) as i64),
        Val::Expr(Expr {
            base: None,
            term: Some(t),
            add: 0,
        }) if t.lshift == 0 => {
            let t = narrow(*t, wm);
            let m = m & wm;
            // Bits of `xor` outside the mask are constant bits of the value.
            Val::Expr(Expr {
                base: None,
                term: Some(Term {
                    xor: t.xor ^ m,
                    ..t
                }),
                add: 0,
            })
        }
        _ => Val::Top,
    }
}
