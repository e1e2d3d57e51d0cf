//! Statements and control flow: blocks, `let`, `if`, `while`, `loop`, `for`, `break`,
//! `continue`, `return`.

use super::{Binding, LoopLabels, Lowerer, Val, strip};
use crate::check::range_parts;
use crate::types::{Prim, Ty};
use phasegate_ptx::{Instruction, Opcode, Operand};
use std::collections::HashMap;
use syn::{Expr, Pat, Stmt};

impl Lowerer<'_> {
    /// Lowers a block's statements in a new scope; returns its tail value.
    pub(super) fn block(&mut self, block: &syn::Block) -> Val {
        self.scopes.push(HashMap::new());
        let v = self.block_stmts(block);
        self.scopes.pop();
        v
    }

    /// Lowers statements in the current scope.
    pub(super) fn block_stmts(&mut self, block: &syn::Block) -> Val {
        for stmt in &block.stmts {
            if let Stmt::Item(syn::Item::Const(c)) = stmt {
                self.mark_statement(c);
                let v = self.expr(&c.expr);
                self.bind(
                    c.ident.to_string(),
                    Binding::Value {
                        val: v,
                        mutable: false,
                    },
                );
            }
        }
        let mut last = Val::Unit;
        for (i, stmt) in block.stmts.iter().enumerate() {
            last = Val::Unit;
            match stmt {
                Stmt::Local(local) => {
                    self.mark_statement(local);
                    self.local(local);
                }
                Stmt::Expr(e, semi) => {
                    self.mark_statement(e);
                    let v = self.expr(e);
                    if semi.is_none() && i + 1 == block.stmts.len() {
                        last = v;
                    }
                }
                Stmt::Item(_) | Stmt::Macro(_) => {}
            }
        }
        last
    }

    fn local(&mut self, local: &syn::Local) {
        if let (Pat::Slice(slice), Some(init)) = (&local.pat, &local.init) {
            return self.bind_published(slice, &init.expr);
        }
        let (ident, mutable) = match pattern_name(&local.pat) {
            Some(p) => p,
            None => return self.internal("let pattern"),
        };
        let Some(init) = &local.init else {
            return self.internal("let without value");
        };
        if let Ty::Shared { .. } = self.ty(&init.expr) {
            let binding = self.shared_array(&ident, &init.expr);
            self.bind(ident, binding);
            return;
        }
        if let (Ty::TensorMap(_), Expr::MethodCall(m)) = (self.ty(&init.expr), strip(&init.expr)) {
            let binding = self.published(m);
            self.bind(ident, binding);
            return;
        }
        let value = self.expr(&init.expr);
        // An immutable binding can share the registers it was computed in: nothing writes them
        // again while it is in scope. A mutable one gets registers of its own.
        let val = if mutable { self.copy(value) } else { value };
        self.bind(ident, Binding::Value { val, mutable });
    }

    pub(super) fn if_expr(&mut self, e: &syn::ExprIf, ty: Ty) -> Val {
        if let Ty::Handle(_) = ty {
            return self.if_handle(e);
        }
        let result = match ty {
            Ty::Prim(p) => Some(Val::Reg(p, self.reg(p.class()))),
            Ty::Vector(p, n) => Some(Val::Vector(
                p,
                (0..n).map(|_| Val::Reg(p, self.reg(p.class()))).collect(),
            )),
            _ => None,
        };
        let else_label = self.new_label();
        let end_label = self.new_label();
        // A constant condition (a literal or a kernel `const`, as a macro's parameter gives):
        // only the branch it takes is lowered. The checker has checked both.
        let cond = self.expr(&e.cond);
        if let Val::Imm(_, imm) = cond {
            return match (imm != phasegate_ptx::Imm::Int(0), &e.else_branch) {
                (true, _) => self.block(&e.then_branch),
                (false, Some((_, els))) => self.expr(els),
                (false, None) => Val::Unit,
            };
        }
        let proven = self.proven_by(&cond);
        self.branch_unless_val(cond, &else_label);
        self.proven_last.extend(proven);
        let then = self.block(&e.then_branch);
        if proven.is_some() {
            self.proven_last.pop();
        }
        if let Some(r) = &result {
            self.assign_to(r, then);
        }
        match &e.else_branch {
            Some((_, els)) => {
                self.branch(&end_label);
                self.place_label(else_label);
                let v = self.expr(els);
                if let Some(r) = &result {
                    self.assign_to(r, v);
                }
                self.place_label(end_label);
            }
            None => self.place_label(else_label),
        }
        result.unwrap_or(Val::Unit)
    }

    /// An `if` whose value is a handle: both branches leave the same barrier in the same
    /// state (rustc checks the types), so their values merge.
    fn if_handle(&mut self, e: &syn::ExprIf) -> Val {
        let Some((_, els)) = &e.else_branch else {
            return self.internal_val("handle-valued if without else");
        };
        let else_label = self.new_label();
        let end_label = self.new_label();
        let cond = self.expr(&e.cond);
        let proven = self.proven_by(&cond);
        self.branch_unless_val(cond, &else_label);
        self.proven_last.extend(proven);
        let then = self.block(&e.then_branch);
        if proven.is_some() {
            self.proven_last.pop();
        }
        let then_end = self.statements.len();
        self.branch(&end_label);
        self.place_label(else_label);
        let other = self.expr(els);
        let (Val::Handle(a), Val::Handle(b)) = (then, other) else {
            return self.internal_val("handle-valued if");
        };
        match self.merge_handles(*a, *b) {
            Ok((merged, moves)) => {
                // Each branch moves its registers into the merged ones (none where a branch's
                // own registers are the merged ones).
                let mut then_moves = Vec::new();
                for (dst, from_then, from_else, ty) in moves {
                    if dst != from_else {
                        self.inst(
                            Opcode::Mov,
                            &[ty],
                            vec![Operand::reg(&dst), Operand::reg(&from_else)],
                        );
                    }
                    if dst != from_then {
                        then_moves.push((dst, from_then, ty));
                    }
                }
                let span = self.span;
                for (k, (dst, src, ty)) in then_moves.into_iter().enumerate() {
                    let mov = Instruction::new(
                        Opcode::Mov,
                        &[ty],
                        vec![Operand::reg(&dst), Operand::reg(&src)],
                    );
                    self.statements.insert(
                        then_end + k,
                        (phasegate_ptx::Statement::Instruction(mov), span, self.site),
                    );
                }
                self.place_label(end_label);
                Val::Handle(Box::new(merged))
            }
            Err(message) => {
                self.diag.error(e.if_token.span, message);
                Val::Unit
            }
        }
    }

    /// The split arrival whose `last()` the condition `cond` is (`if arrival.last() { .. }`:
    /// the arrival's total is readable in the block).
    fn proven_by(&self, cond: &Val) -> Option<u32> {
        match cond {
            Val::Reg(_, p) => self.split_lasts.get(p).copied(),
            _ => None,
        }
    }

    /// Branches to `label` when `cond` is false.
    pub(super) fn branch_unless(&mut self, cond: &Expr, label: &str) {
        let cond = self.expr(cond);
        self.branch_unless_val(cond, label);
    }

    /// Branches to `label` when the evaluated condition `cond` is false.
    fn branch_unless_val(&mut self, cond: Val, label: &str) {
        match cond {
            Val::Imm(_, imm) => {
                if imm == phasegate_ptx::Imm::Int(0) {
                    self.branch(label);
                }
            }
            Val::Reg(_, p) => self.emit_guarded(
                &p,
                true,
                Instruction::new(Opcode::Bra, &[], vec![Operand::sym(label)]),
            ),
            _ => self.internal("condition without a predicate"),
        }
    }

    pub(super) fn while_loop(&mut self, w: &syn::ExprWhile) -> Val {
        let head = self.new_label();
        let end = self.new_label();
        self.place_label(head.clone());
        self.branch_unless(&w.cond, &end);
        self.loop_body(w.label.as_ref(), &w.body, &end, &head);
        self.branch(&head);
        self.place_label(end);
        Val::Unit
    }

    pub(super) fn loop_loop(&mut self, l: &syn::ExprLoop) -> Val {
        let head = self.new_label();
        let end = self.new_label();
        self.place_label(head.clone());
        self.loop_body(l.label.as_ref(), &l.body, &end, &head);
        self.branch(&head);
        self.place_label(end);
        Val::Unit
    }

    fn loop_body(&mut self, label: Option<&syn::Label>, body: &syn::Block, brk: &str, cont: &str) {
        self.loops.push(LoopLabels {
            name: label.map(|l| l.name.ident.to_string()),
            brk: brk.to_string(),
            cont: cont.to_string(),
        });
        self.loop_starts.push((self.read_serial, self.scopes.len()));
        self.block(body);
        self.loop_starts.pop();
        self.loops.pop();
    }

    /// `for i in a..b` / `a..=b` / `(a..b).step_by(s)`.
    ///
    /// The bounds are evaluated once, and `i + step` is only computed when another iteration
    /// follows, so a loop whose end is near the type's maximum ends instead of wrapping around,
    /// as in Rust. The latch has the shape ptxas recognises as a counted loop (and unrolls):
    /// `add i, i, 1; setp.lt p, i, end; @p bra body` for `a..b`; a trip count computed once and
    /// counted down for `step_by`; `setp.lt` before the increment for `a..=b`.
    pub(super) fn for_loop(&mut self, f: &syn::ExprForLoop) -> Val {
        let Some(parts) = range_parts(&f.expr) else {
            self.internal("for over something other than a range");
            return Val::Unit;
        };
        let (Some(start), Some(end)) = (parts.start, parts.end) else {
            self.internal("unbounded range");
            return Val::Unit;
        };
        let Ty::Prim(prim) = self.ty(&f.expr) else {
            self.internal("range of unknown type");
            return Val::Unit;
        };
        let start = self.expr(start);
        let i = self.copy(start.clone());
        // Reads of mutable bindings are copies already, so the bounds cannot change under the loop.
        let end = self.expr(end);
        let step = match parts.step {
            Some(s) => {
                let v = self.expr(s);
                if let Val::Reg(_, r) = &v {
                    // `step_by(0)` panics in Rust; in a kernel it traps.
                    let p = self.reg(crate::types::RegClass::Pred);
                    self.emit(Instruction::new(
                        Opcode::Setp,
                        &["eq", prim.arith().name()],
                        vec![Operand::reg(&p), Operand::reg(r), Operand::int(0)],
                    ));
                    self.emit_guarded(&p, false, Instruction::new(Opcode::Trap, &[], vec![]));
                }
                v
            }
            None => Val::Imm(prim, phasegate_ptx::Imm::Int(1)),
        };
        if !parts.inclusive && parts.step.is_none() && !prim.is_64() && unrollable(&f.body) {
            return self.for_unrolled(f, prim, start, i, end);
        }
        let body_label = self.new_label();
        let cont = self.new_label();
        let exit = self.new_label();
        // Empty range: skip the loop (decided here when both bounds are constants).
        let empty = self.comparison(
            if parts.inclusive { "gt" } else { "ge" },
            prim,
            start.clone(),
            end.clone(),
        );
        match empty {
            Val::Imm(_, phasegate_ptx::Imm::Int(0)) => {}
            Val::Reg(_, p) => self.emit_guarded(
                &p,
                false,
                Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&exit)]),
            ),
            _ => self.branch(&exit),
        }
        // `(a..b).step_by(s)`: the number of iterations, (b - a - 1) / s + 1 in unsigned
        // arithmetic (b > a here), counted down in the latch.
        let trips = match (&step, parts.inclusive) {
            (Val::Imm(_, phasegate_ptx::Imm::Int(1)), _) | (_, true) => None,
            _ => {
                let unsigned = if prim.is_64() { Prim::U64 } else { Prim::U32 };
                let span = self.arith_raw("sub", prim, end.clone(), start.clone());
                let span = match span {
                    Val::Reg(_, r) => Val::Reg(unsigned, r),
                    Val::Imm(_, imm) => Val::Imm(unsigned, imm),
                    other => other,
                };
                let before = self.arith_raw(
                    "sub",
                    unsigned,
                    span,
                    Val::Imm(unsigned, phasegate_ptx::Imm::Int(1)),
                );
                let step_u = match step.clone() {
                    Val::Reg(_, r) => Val::Reg(unsigned, r),
                    Val::Imm(_, imm) => Val::Imm(unsigned, imm),
                    other => other,
                };
                let q = self.arith(super::expr::Arith::Div, unsigned, before, step_u);
                let n = self.arith_raw(
                    "add",
                    unsigned,
                    q,
                    Val::Imm(unsigned, phasegate_ptx::Imm::Int(1)),
                );
                match self.copy(n) {
                    Val::Reg(_, r) => Some(r),
                    _ => None,
                }
            }
        };
        self.place_label(body_label.clone());
        self.scopes.push(HashMap::new());
        if let Some((name, _)) = pattern_name(&f.pat) {
            self.bind(
                name,
                Binding::Value {
                    val: i.clone(),
                    mutable: false,
                },
            );
        }
        self.loop_body(f.label.as_ref(), &f.body, &exit, &cont);
        self.scopes.pop();
        self.place_label(cont);
        let ty = prim.arith().name();
        let unit_step = matches!(step, Val::Imm(_, phasegate_ptx::Imm::Int(1)));
        let Val::Reg(_, i_reg) = &i else {
            self.internal("loop counter without a register");
            return Val::Unit;
        };
        let i_reg = i_reg.clone();
        let step_op = self.operand(&step);
        let end_op = self.operand(&end);
        let go_on = self.reg(crate::types::RegClass::Pred);
        match (parts.inclusive, unit_step, trips) {
            (false, true, _) => {
                // i < end before the increment, so i + 1 <= end cannot wrap.
                self.emit(Instruction::new(
                    Opcode::Add,
                    &[ty],
                    vec![Operand::reg(&i_reg), Operand::reg(&i_reg), Operand::int(1)],
                ));
                self.emit(Instruction::new(
                    Opcode::Setp,
                    &["lt", ty],
                    vec![Operand::reg(&go_on), Operand::reg(&i_reg), end_op],
                ));
            }
            (true, _, _) | (false, false, None) => {
                // a..=b: another iteration when i < end, and then i + step stays in range only
                // if end - i >= step.
                let left = self.arith_raw("sub", prim, end.clone(), i.clone());
                let unsigned = if prim.is_64() { Prim::U64 } else { Prim::U32 };
                let left = match left {
                    Val::Reg(_, r) => Val::Reg(unsigned, r),
                    other => other,
                };
                let step_u = match step.clone() {
                    Val::Reg(_, r) => Val::Reg(unsigned, r),
                    Val::Imm(_, imm) => Val::Imm(unsigned, imm),
                    other => other,
                };
                let done = self.compare(
                    if parts.inclusive { "lt" } else { "le" },
                    unsigned,
                    left,
                    step_u,
                );
                self.emit_guarded(
                    &done,
                    false,
                    Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&exit)]),
                );
                self.emit(Instruction::new(
                    Opcode::Add,
                    &[ty],
                    vec![Operand::reg(&i_reg), Operand::reg(&i_reg), step_op],
                ));
                self.branch(&body_label);
                self.place_label(exit);
                return Val::Unit;
            }
            (false, false, Some(trips)) => {
                self.emit(Instruction::new(
                    Opcode::Add,
                    &[ty],
                    vec![Operand::reg(&i_reg), Operand::reg(&i_reg), step_op],
                ));
                let width = if prim.is_64() { "u64" } else { "u32" };
                self.emit(Instruction::new(
                    Opcode::Sub,
                    &[width],
                    vec![Operand::reg(&trips), Operand::reg(&trips), Operand::int(1)],
                ));
                self.emit(Instruction::new(
                    Opcode::Setp,
                    &["ne", width],
                    vec![Operand::reg(&go_on), Operand::reg(&trips), Operand::int(0)],
                ));
            }
        }
        self.emit_guarded(
            &go_on,
            false,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&body_label)]),
        );
        self.place_label(exit);
        Val::Unit
    }

    /// A small `for i in a..b` loop around a barrier, unrolled sixteen times, as nvcc's front
    /// end and ptxas together unroll such loops (four times each): a barrier round then costs
    /// no loop bookkeeping of its own, and reductions overlap their result waits as in nvcc's
    /// code (`book/src/performance/pipeline.md`: 4 copies left `bar.red.popc` 20 % slower at 128 threads, 8
    /// made it 9 % slower at 1024, 16 matches nvcc within 5 % on every row). ptxas does not
    /// unroll a loop with a `try_wait` spin inside, so this is phasegate's to do. The trip count
    /// is counted down; the last `trips % 16` iterations run in a plain loop.
    fn for_unrolled(
        &mut self,
        f: &syn::ExprForLoop,
        prim: Prim,
        start: Val,
        i: Val,
        end: Val,
    ) -> Val {
        const COPIES: i64 = 16;
        let ty = prim.arith().name();
        let Val::Reg(_, i_reg) = &i else {
            self.internal("loop counter without a register");
            return Val::Unit;
        };
        let i_reg = i_reg.clone();
        let (main, rest, rest_body, exit) = (
            self.new_label(),
            self.new_label(),
            self.new_label(),
            self.new_label(),
        );
        match self.comparison("ge", prim, start.clone(), end.clone()) {
            Val::Imm(_, phasegate_ptx::Imm::Int(0)) => {}
            Val::Reg(_, p) => self.emit_guarded(
                &p,
                false,
                Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&exit)]),
            ),
            _ => self.branch(&exit),
        }
        let left = match self.arith_raw("sub", prim, end, start) {
            Val::Reg(_, r) => Val::Reg(Prim::U32, r),
            Val::Imm(_, imm) => Val::Imm(Prim::U32, imm),
            other => other,
        };
        let left = match self.copy(left) {
            Val::Reg(_, r) => r,
            _ => {
                self.internal("trip count");
                return Val::Unit;
            }
        };
        let p = self.reg(crate::types::RegClass::Pred);
        self.emit(Instruction::new(
            Opcode::Setp,
            &["lt", "u32"],
            vec![Operand::reg(&p), Operand::reg(&left), Operand::int(COPIES)],
        ));
        self.emit_guarded(
            &p,
            false,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&rest)]),
        );
        self.place_label(main.clone());
        for _ in 0..COPIES {
            self.unrolled_body(f, &i, &exit);
            self.emit(Instruction::new(
                Opcode::Add,
                &[ty],
                vec![Operand::reg(&i_reg), Operand::reg(&i_reg), Operand::int(1)],
            ));
        }
        self.emit(Instruction::new(
            Opcode::Sub,
            &["u32"],
            vec![
                Operand::reg(&left),
                Operand::reg(&left),
                Operand::int(COPIES),
            ],
        ));
        let again = self.reg(crate::types::RegClass::Pred);
        self.emit(Instruction::new(
            Opcode::Setp,
            &["ge", "u32"],
            vec![
                Operand::reg(&again),
                Operand::reg(&left),
                Operand::int(COPIES),
            ],
        ));
        self.emit_guarded(
            &again,
            false,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&main)]),
        );
        self.place_label(rest);
        let none = self.reg(crate::types::RegClass::Pred);
        self.emit(Instruction::new(
            Opcode::Setp,
            &["eq", "u32"],
            vec![Operand::reg(&none), Operand::reg(&left), Operand::int(0)],
        ));
        self.emit_guarded(
            &none,
            false,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&exit)]),
        );
        self.place_label(rest_body.clone());
        self.unrolled_body(f, &i, &exit);
        self.emit(Instruction::new(
            Opcode::Add,
            &[ty],
            vec![Operand::reg(&i_reg), Operand::reg(&i_reg), Operand::int(1)],
        ));
        self.emit(Instruction::new(
            Opcode::Sub,
            &["u32"],
            vec![Operand::reg(&left), Operand::reg(&left), Operand::int(1)],
        ));
        let more = self.reg(crate::types::RegClass::Pred);
        self.emit(Instruction::new(
            Opcode::Setp,
            &["ne", "u32"],
            vec![Operand::reg(&more), Operand::reg(&left), Operand::int(0)],
        ));
        self.emit_guarded(
            &more,
            false,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&rest_body)]),
        );
        self.place_label(exit);
        Val::Unit
    }

    /// One copy of an unrolled loop's body, with the loop variable bound to `i`.
    fn unrolled_body(&mut self, f: &syn::ExprForLoop, i: &Val, exit: &str) {
        self.scopes.push(HashMap::new());
        if let Some((name, _)) = pattern_name(&f.pat) {
            self.bind(
                name,
                Binding::Value {
                    val: i.clone(),
                    mutable: false,
                },
            );
        }
        // Unrollable bodies have no `break` or `continue`; the labels are there for symmetry.
        self.loop_body(f.label.as_ref(), &f.body, exit, exit);
        self.scopes.pop();
    }

    pub(super) fn jump(&mut self, label: Option<&syn::Lifetime>, is_break: bool) -> Val {
        let target = match label {
            Some(l) => self
                .loops
                .iter()
                .rev()
                .find(|lp| lp.name.as_deref() == Some(&l.ident.to_string())),
            None => self.loops.last(),
        };
        match target.map(|lp| {
            if is_break {
                lp.brk.clone()
            } else {
                lp.cont.clone()
            }
        }) {
            Some(t) => self.branch(&t),
            None => self.internal("jump outside a loop"),
        }
        Val::Unit
    }

    pub(super) fn ret(&mut self) -> Val {
        self.before_exit();
        self.emit(Instruction::new(Opcode::Ret, &[], vec![]));
        Val::Unit
    }

    /// `setp.<cmp>.<type>` into a fresh predicate.
    pub(super) fn compare(&mut self, cmp: &str, prim: Prim, a: Val, b: Val) -> String {
        let a = Val::Reg(prim, self.in_reg(a));
        let p = self.reg(crate::types::RegClass::Pred);
        let (a, b) = (self.operand(&a), self.operand(&b));
        self.emit(Instruction::new(
            Opcode::Setp,
            &[cmp, prim.arith().name()],
            vec![Operand::reg(&p), a, b],
        ));
        p
    }
}

/// Whether a loop body is worth unrolling and safe to lower more than once: a few statements
/// around a barrier, with no control flow of its own, nothing that declares memory and no
/// device-function call.
fn unrollable(body: &syn::Block) -> bool {
    use syn::visit::Visit;
    struct Scan {
        barrier: bool,
        blocked: bool,
    }
    impl<'a> Visit<'a> for Scan {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Break(_)
                | Expr::Continue(_)
                | Expr::Return(_)
                | Expr::ForLoop(_)
                | Expr::While(_)
                | Expr::Loop(_)
                | Expr::Macro(_) => {
                    self.blocked = true;
                }
                Expr::Call(c) => {
                    // A device function's body is not in sight: it may be long or loop.
                    if let Expr::Path(p) = &*c.func
                        && !crate::builtins::is_function(&p.path)
                    {
                        self.blocked = true;
                    }
                    if let Expr::Path(p) = &*c.func {
                        let name = p
                            .path
                            .segments
                            .last()
                            .map(|s| s.ident.to_string())
                            .unwrap_or_default();
                        if [
                            "shared_array",
                            "mbarrier",
                            "pipeline",
                            "dynamic_shared",
                            "publish",
                            "publish_cta",
                            "peer_shared",
                        ]
                        .contains(&name.as_str())
                        {
                            self.blocked = true;
                        }
                        if name == "sync_threads" {
                            self.barrier = true;
                        }
                    }
                }
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    if ["sync", "arrive", "wait", "popc", "all", "any", "observe"]
                        .iter()
                        .any(|b| name.starts_with(b))
                        || name.starts_with("arrive_") && name.contains("aligned")
                    {
                        self.barrier = true;
                    }
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    if body.stmts.len() > 6 {
        return false;
    }
    let mut scan = Scan {
        barrier: false,
        blocked: false,
    };
    scan.visit_block(body);
    scan.barrier && !scan.blocked
}

fn pattern_name(pat: &Pat) -> Option<(String, bool)> {
    match pat {
        Pat::Ident(p) => Some((p.ident.to_string(), p.mutability.is_some())),
        Pat::Type(t) => pattern_name(&t.pat),
        Pat::Wild(_) => Some(("_".into(), false)),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// Keeps the prim of a value of `Ty` for callers that need it.
    pub(super) fn prim_of(&self, e: &Expr) -> Option<Prim> {
        match self.ty(e) {
            Ty::Prim(p) | Ty::Vector(p, _) => Some(p),
            _ => None,
        }
    }
}
