//! Expressions: literals, names, operators, casts.
//!
//! Integer arithmetic wraps (PTX semantics); float arithmetic uses the `.rn` forms, which
//! round to nearest even and are never contracted into `fma` by ptxas, so a kernel computes
//! what the same Rust computes on the CPU.

use super::{Binding, HVal, Lowerer, Val, strip};
use crate::types::{Handle, Prim, RegClass, Ty};
use phasegate_ptx::{Imm, Instruction, Opcode, Operand};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

impl Lowerer<'_> {
    pub(super) fn expr(&mut self, e: &Expr) -> Val {
        let saved = (self.span, self.span_last);
        let extent = super::Extent::of(e);
        self.span = extent.span();
        self.span_last = extent.last;
        let v = self.expr_inner(e);
        if let Val::Reg(_, r) = &v {
            self.names.value_of(r, extent);
        }
        (self.span, self.span_last) = saved;
        v
    }

    fn expr_inner(&mut self, e: &Expr) -> Val {
        let ty = self.ty(e);
        match e {
            Expr::Lit(lit) => self.literal(&lit.lit, ty),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Path(_)
                if matches!(
                    ty,
                    Ty::Handle(Handle::Sem(_) | Handle::Scope(_) | Handle::Parity(_))
                ) =>
            {
                Val::Handle(Box::new(match ty {
                    Ty::Handle(Handle::Sem(relaxed)) => HVal::Sem(relaxed),
                    Ty::Handle(Handle::Scope(s)) => HVal::Scope(s),
                    Ty::Handle(Handle::Parity(odd)) => HVal::Parity(odd),
                    _ => HVal::Dropped,
                }))
            }
            Expr::Path(p) => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(Binding::Value { val, mutable }) => {
                        self.read_alias(&name, &val, p.span());
                        if mutable { self.copy(val) } else { val }
                    }
                    Some(_) => {
                        let span = p.span();
                        self.diag.error(
                            span,
                            format!("`{name}` is memory, not a value; index it (`{name}[i]`)"),
                        );
                        Val::Unit
                    }
                    None => {
                        self.internal("unbound name");
                        Val::Unit
                    }
                }
            }
            Expr::Binary(b) => self.binary(b, ty),
            Expr::Unary(u) => self.unary(u, ty),
            Expr::Cast(c) => {
                let v = self.expr(&c.expr);
                match ty {
                    Ty::Prim(to) => self.cast(v, to),
                    _ => Val::Unit,
                }
            }
            Expr::Index(ix) => self.index_load(ix),
            Expr::Array(arr) => {
                let Ty::Vector(prim, _) = ty else {
                    self.internal("array literal of unknown vector type");
                    return Val::Unit;
                };
                let lanes = arr.elems.iter().map(|item| self.expr(item)).collect();
                Val::Vector(prim, lanes)
            }
            Expr::Call(call) => self.call(call, ty),
            Expr::MethodCall(m) => self.method_call(m, ty),
            Expr::Assign(a) => {
                let v = self.expr(&a.right);
                self.store_place(&a.left, v);
                Val::Unit
            }
            Expr::Block(b) => self.block(&b.block),
            Expr::If(i) => self.if_expr(i, ty),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => self.loop_loop(l),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Break(b) => self.jump(b.label.as_ref(), true),
            Expr::Continue(c) => self.jump(c.label.as_ref(), false),
            Expr::Return(r) => self.ret_value(r),
            // `&bar`, `&mut tiles`: arguments of the barrier vocabulary; the handle itself.
            Expr::Reference(r) => self.expr(&r.expr),
            _ => {
                self.internal("expression the checker rejects");
                Val::Unit
            }
        }
    }

    fn literal(&mut self, lit: &Lit, ty: Ty) -> Val {
        let Ty::Prim(prim) = ty else {
            self.internal("literal of non-scalar type");
            return Val::Unit;
        };
        match lit {
            Lit::Bool(b) => Val::Imm(Prim::Bool, Imm::Int(b.value as i64)),
            Lit::Int(i) if prim.is_float() => match i.base10_parse::<u64>() {
                Ok(v) => Val::Imm(prim, float_imm(prim, v as f64)),
                Err(e) => self.literal_error(e),
            },
            Lit::Int(i) => match i.base10_parse::<u128>() {
                Ok(v) if v <= max_of(prim) => Val::Imm(prim, Imm::Int(v as i64)),
                Ok(_) => {
                    self.diag
                        .error(i.span(), format!("literal out of range for `{prim}`"));
                    Val::Unit
                }
                Err(e) => self.literal_error(e),
            },
            Lit::Float(f) if prim == Prim::F32 => match f.base10_parse::<f32>() {
                Ok(v) => Val::Imm(prim, Imm::F32(v.to_bits())),
                Err(e) => self.literal_error(e),
            },
            Lit::Float(f) => match f.base10_parse::<f64>() {
                Ok(v) => Val::Imm(prim, Imm::F64(v.to_bits())),
                Err(e) => self.literal_error(e),
            },
            _ => {
                self.internal("literal kind");
                Val::Unit
            }
        }
    }

    fn literal_error(&mut self, e: syn::Error) -> Val {
        self.diag.push(e);
        Val::Unit
    }

    fn binary(&mut self, b: &syn::ExprBinary, ty: Ty) -> Val {
        match b.op {
            BinOp::And(_) | BinOp::Or(_) => return self.short_circuit(b),
            _ => {}
        }
        let operand_prim = self.prim_of(&b.left).unwrap_or(Prim::I32);
        if let Some(op) = compound(&b.op) {
            // `place op= value`: read, compute, write back.
            let current = self.expr(&b.left);
            let rhs = self.expr(&b.right);
            let v = self.arith(op, operand_prim, current, rhs);
            self.store_place(&b.left, v);
            return Val::Unit;
        }
        let l = self.expr(&b.left);
        let r = self.expr(&b.right);
        if let Some(cmp) = comparison(&b.op, operand_prim) {
            return self.comparison(cmp, operand_prim, l, r);
        }
        let _ = ty;
        match arith_of(&b.op) {
            Some(op) => self.arith(op, operand_prim, l, r),
            None => {
                self.internal("binary operator");
                Val::Unit
            }
        }
    }

    /// `a && b`, `a || b`: `b` is evaluated only when it decides the result.
    fn short_circuit(&mut self, b: &syn::ExprBinary) -> Val {
        let is_and = matches!(b.op, BinOp::And(_));
        let l = self.expr(&b.left);
        // A constant left side decides alone (`false && b`, `true || b`) or leaves `b` as the
        // result (`true && b`, `false || b`), the value `b` has (its predicate, unchanged).
        if let Val::Imm(_, imm) = &l {
            let decides = (*imm == Imm::Int(0)) == is_and;
            return if decides { l } else { self.expr(&b.right) };
        }
        let result = self.reg(RegClass::Pred);
        let l_op = self.operand(&l);
        self.emit(Instruction::new(
            Opcode::Mov,
            &["pred"],
            vec![Operand::reg(&result), l_op],
        ));
        let skip = self.new_label();
        // `&&` skips when the left is false; `||` when it is true.
        self.emit_guarded(
            &result,
            is_and,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&skip)]),
        );
        let r = self.expr(&b.right);
        let r_op = self.operand(&r);
        self.emit(Instruction::new(
            Opcode::Mov,
            &["pred"],
            vec![Operand::reg(&result), r_op],
        ));
        self.place_label(skip);
        Val::Reg(Prim::Bool, result)
    }

    pub(super) fn comparison(&mut self, cmp: &'static str, prim: Prim, l: Val, r: Val) -> Val {
        if prim == Prim::Bool {
            // bool == bool is xnor, bool != bool is xor.
            let x = self.arith(Arith::BitXor, Prim::Bool, l, r);
            return if cmp == "eq" {
                self.not(Prim::Bool, x)
            } else {
                x
            };
        }
        if let (Val::Imm(_, Imm::Int(a)), Val::Imm(_, Imm::Int(b))) = (&l, &r)
            && let Some(v) = fold_compare(cmp, prim, *a, *b)
        {
            return Val::Imm(Prim::Bool, Imm::Int(v as i64));
        }
        if prim.is_narrow() {
            // Every narrow float is exact in f32, so comparing there is comparing the values
            // (NaN unordered), on every target: `setp.bf16` would need sm_90.
            let (l, r) = (self.widen(l, prim), self.widen(r, prim));
            return Val::Reg(Prim::Bool, self.compare(cmp, Prim::F32, l, r));
        }
        Val::Reg(Prim::Bool, self.compare(cmp, prim, l, r))
    }

    fn unary(&mut self, u: &syn::ExprUnary, ty: Ty) -> Val {
        let Ty::Prim(prim) = ty else {
            self.internal("unary operator on a non-scalar");
            return Val::Unit;
        };
        // `-5` is one literal: fold it so that `i32::MIN` and float `-0.0` are exact.
        if let (UnOp::Neg(_), Expr::Lit(lit)) = (&u.op, strip(&u.expr)) {
            match (&lit.lit, prim) {
                (Lit::Int(i), p) if p.is_int() => {
                    return match i.base10_parse::<u128>() {
                        Ok(v) if v <= max_of(p) + 1 => {
                            Val::Imm(p, Imm::Int((v as i128).wrapping_neg() as i64))
                        }
                        Ok(_) => {
                            self.diag
                                .error(u.span(), format!("literal out of range for `{p}`"));
                            Val::Unit
                        }
                        Err(e) => self.literal_error(e),
                    };
                }
                _ => {}
            }
        }
        let v = self.expr(&u.expr);
        match u.op {
            UnOp::Neg(_) => {
                if let Val::Imm(p, imm) = &v {
                    match imm {
                        Imm::F32(bits) => return Val::Imm(*p, Imm::F32(bits ^ 0x8000_0000)),
                        Imm::F64(bits) => return Val::Imm(*p, Imm::F64(bits ^ (1 << 63))),
                        Imm::Int(x) => {
                            return Val::Imm(*p, Imm::Int(wrap(*p, (*x as i128).wrapping_neg())));
                        }
                    }
                }
                let src = self.in_reg(v);
                let d = self.reg(prim.class());
                self.emit(Instruction::new(
                    Opcode::Neg,
                    &[prim.arith().name()],
                    vec![Operand::reg(&d), Operand::reg(&src)],
                ));
                Val::Reg(prim, d)
            }
            _ => self.not(prim, v),
        }
    }

    fn not(&mut self, prim: Prim, v: Val) -> Val {
        if let Val::Imm(p, Imm::Int(x)) = v {
            return Val::Imm(
                p,
                Imm::Int(if p == Prim::Bool {
                    (x == 0) as i64
                } else {
                    wrap(p, !(x as i128))
                }),
            );
        }
        let src = self.in_reg(v);
        let d = self.reg(prim.class());
        let ty = prim.bits().name();
        self.emit(Instruction::new(
            Opcode::Not,
            &[ty],
            vec![Operand::reg(&d), Operand::reg(&src)],
        ));
        Val::Reg(prim, d)
    }

    /// A binary arithmetic or bit operation, folded when both sides are integer constants.
    pub(super) fn arith(&mut self, op: Arith, prim: Prim, l: Val, r: Val) -> Val {
        if let (Val::Imm(_, Imm::Int(a)), Val::Imm(_, Imm::Int(b))) = (&l, &r)
            && let Some(v) = fold(op, prim, *a, *b)
        {
            return Val::Imm(prim, Imm::Int(v));
        }
        // `x + 0`, `x - 0`, `x * 1`: nothing to compute.
        if prim.is_int() {
            match (op, &r) {
                (
                    Arith::Add
                    | Arith::Sub
                    | Arith::BitOr
                    | Arith::BitXor
                    | Arith::Shl
                    | Arith::Shr,
                    Val::Imm(_, Imm::Int(0)),
                )
                | (Arith::Mul | Arith::Div, Val::Imm(_, Imm::Int(1))) => return l,
                _ => {}
            }
        }
        let (name, mods): (&str, Vec<&str>) = match (op, prim.is_float(), prim == Prim::Bool) {
            (Arith::BitAnd, _, true) => ("and", vec!["pred"]),
            (Arith::BitOr, _, true) => ("or", vec!["pred"]),
            (Arith::BitXor, _, true) => ("xor", vec!["pred"]),
            (Arith::Add, true, _) => ("add", vec!["rn", prim.arith().name()]),
            (Arith::Sub, true, _) => ("sub", vec!["rn", prim.arith().name()]),
            (Arith::Mul, true, _) => ("mul", vec!["rn", prim.arith().name()]),
            (Arith::Div, true, _) => ("div", vec!["rn", prim.arith().name()]),
            (Arith::Add, false, _) => ("add", vec![prim.arith().name()]),
            (Arith::Sub, false, _) => ("sub", vec![prim.arith().name()]),
            (Arith::Mul, false, _) => ("mul", vec!["lo", prim.arith().name()]),
            (Arith::Div, false, _) => ("div", vec![prim.arith().name()]),
            (Arith::Rem, _, _) => ("rem", vec![prim.arith().name()]),
            (Arith::BitAnd, _, _) => ("and", vec![prim.bits().name()]),
            (Arith::BitOr, _, _) => ("or", vec![prim.bits().name()]),
            (Arith::BitXor, _, _) => ("xor", vec![prim.bits().name()]),
            (Arith::Shl, _, _) => ("shl", vec![prim.bits().name()]),
            (Arith::Shr, _, _) => (
                "shr",
                vec![if prim.is_signed() {
                    prim.arith().name()
                } else {
                    prim.unsigned().name()
                }],
            ),
        };
        let r = match op {
            Arith::Shl | Arith::Shr => self.shift_amount(r),
            // Predicate operands are registers; PTX has no predicate immediates.
            _ if prim == Prim::Bool => Val::Reg(prim, self.in_reg(r)),
            _ => r,
        };
        let a = Val::Reg(prim, self.in_reg(l));
        let d = self.reg(prim.class());
        let (a, b) = (self.operand(&a), self.operand(&r));
        self.emit(Instruction {
            guard: None,
            opcode: Opcode::from_name(name),
            modifiers: mods.iter().map(|m| m.to_string()).collect(),
            operands: vec![Operand::reg(&d), a, b],
        });
        Val::Reg(prim, d)
    }

    /// `add`/`sub` on integers by PTX name, for loop bookkeeping.
    pub(super) fn arith_raw(&mut self, name: &str, prim: Prim, l: Val, r: Val) -> Val {
        let op = if name == "add" {
            Arith::Add
        } else {
            Arith::Sub
        };
        self.arith(op, prim, l, r)
    }

    /// Shift amounts are `.u32` in PTX, whatever the shifted type.
    fn shift_amount(&mut self, r: Val) -> Val {
        match r {
            Val::Imm(_, Imm::Int(v)) => Val::Imm(Prim::U32, Imm::Int(v.clamp(0, u32::MAX as i64))),
            Val::Reg(p, reg) if p.is_64() => {
                let d = self.reg(RegClass::B32);
                self.emit(Instruction::new(
                    Opcode::Cvt,
                    &["u32", p.arith().name()],
                    vec![Operand::reg(&d), Operand::reg(&reg)],
                ));
                Val::Reg(Prim::U32, d)
            }
            other => other,
        }
    }

    /// `value as to`, with Rust's meaning: integers truncate or extend by the source's
    /// signedness, floats round to nearest, floats to integers truncate and saturate (NaN is 0),
    /// which is what PTX `cvt.rzi` does.
    pub(super) fn cast(&mut self, v: Val, to: Prim) -> Val {
        let Some(from) = v.prim() else {
            self.internal("cast of a non-scalar");
            return Val::Unit;
        };
        if from == to {
            return v;
        }
        if from.is_narrow() || to.is_narrow() {
            return self.narrow_cast(v, from, to);
        }
        if let Val::Imm(_, Imm::Int(x)) = v
            && from.is_int()
            && to.is_int()
        {
            let x = if from.is_signed() {
                sign_extend(from, x)
            } else {
                zero_extend(from, x)
            };
            return Val::Imm(to, Imm::Int(wrap(to, x)));
        }
        if from == Prim::Bool {
            let p = self.in_reg(v);
            let d = self.reg(to.class());
            let (one, zero) = if to.is_float() {
                (float_imm(to, 1.0), float_imm(to, 0.0))
            } else {
                (Imm::Int(1), Imm::Int(0))
            };
            self.emit(Instruction::new(
                Opcode::Selp,
                &[to.arith().name()],
                vec![
                    Operand::reg(&d),
                    Operand::Imm(one),
                    Operand::Imm(zero),
                    Operand::reg(&p),
                ],
            ));
            return Val::Reg(to, d);
        }
        let src = self.in_reg(v);
        if from.is_int() && to.is_int() && from.is_64() == to.is_64() {
            // Same width: the same bits.
            return Val::Reg(to, src);
        }
        let mods: Vec<&str> = match (from.is_float(), to.is_float()) {
            (false, false) => vec![to.arith().name(), from.arith().name()],
            (false, true) => vec!["rn", to.arith().name(), from.arith().name()],
            (true, false) => vec!["rzi", to.arith().name(), from.arith().name()],
            (true, true) if to.is_64() => vec![to.arith().name(), from.arith().name()],
            (true, true) => vec!["rn", to.arith().name(), from.arith().name()],
        };
        let d = self.reg(to.class());
        self.emit(Instruction {
            guard: None,
            opcode: Opcode::Cvt,
            modifiers: mods.iter().map(|m| m.to_string()).collect(),
            operands: vec![Operand::reg(&d), Operand::reg(&src)],
        });
        Val::Reg(to, d)
    }
}

/// Binary operations that lower to one PTX instruction.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

fn arith_of(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::Add(_) => Arith::Add,
        BinOp::Sub(_) => Arith::Sub,
        BinOp::Mul(_) => Arith::Mul,
        BinOp::Div(_) => Arith::Div,
        BinOp::Rem(_) => Arith::Rem,
        BinOp::BitAnd(_) => Arith::BitAnd,
        BinOp::BitOr(_) => Arith::BitOr,
        BinOp::BitXor(_) => Arith::BitXor,
        BinOp::Shl(_) => Arith::Shl,
        BinOp::Shr(_) => Arith::Shr,
        _ => return None,
    })
}

fn compound(op: &BinOp) -> Option<Arith> {
    Some(match op {
        BinOp::AddAssign(_) => Arith::Add,
        BinOp::SubAssign(_) => Arith::Sub,
        BinOp::MulAssign(_) => Arith::Mul,
        BinOp::DivAssign(_) => Arith::Div,
        BinOp::RemAssign(_) => Arith::Rem,
        BinOp::BitAndAssign(_) => Arith::BitAnd,
        BinOp::BitOrAssign(_) => Arith::BitOr,
        BinOp::BitXorAssign(_) => Arith::BitXor,
        BinOp::ShlAssign(_) => Arith::Shl,
        BinOp::ShrAssign(_) => Arith::Shr,
        _ => return None,
    })
}

/// The `setp` comparison. Rust's `!=` on floats is true when either side is NaN: `neu`.
fn comparison(op: &BinOp, prim: Prim) -> Option<&'static str> {
    Some(match op {
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) if prim.is_float() || prim.is_narrow() => "neu",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        _ => return None,
    })
}

fn max_of(prim: Prim) -> u128 {
    match prim {
        Prim::U32 => u32::MAX as u128,
        Prim::I32 => i32::MAX as u128,
        Prim::U64 => u64::MAX as u128,
        Prim::I64 => i64::MAX as u128,
        _ => 0,
    }
}

pub(super) fn float_imm(prim: Prim, v: f64) -> Imm {
    if prim == Prim::F32 {
        Imm::F32((v as f32).to_bits())
    } else {
        Imm::F64(v.to_bits())
    }
}

/// The 64-bit pattern PTX holds for `x` in a register of `prim`'s width.
fn wrap(prim: Prim, x: i128) -> i64 {
    if prim.is_64() {
        x as i64
    } else if prim.is_signed() {
        x as i32 as i64
    } else {
        x as u32 as i64
    }
}

pub(super) fn sign_extend(prim: Prim, x: i64) -> i128 {
    if prim.is_64() {
        x as i128
    } else {
        x as i32 as i128
    }
}

pub(super) fn zero_extend(prim: Prim, x: i64) -> i128 {
    if prim.is_64() {
        x as u64 as i128
    } else {
        x as u32 as i128
    }
}

/// The value of an integer operand as its type reads it.
fn value(prim: Prim, x: i64) -> i128 {
    if prim.is_signed() {
        sign_extend(prim, x)
    } else {
        zero_extend(prim, x)
    }
}

/// Constant folding with PTX's wrapping semantics; `None` where PTX's result is not Rust's
/// (division by zero, shifts past the width), so the instruction is emitted instead.
fn fold(op: Arith, prim: Prim, a: i64, b: i64) -> Option<i64> {
    if prim == Prim::Bool {
        return Some(match op {
            Arith::BitAnd => a & b,
            Arith::BitOr => a | b,
            Arith::BitXor => a ^ b,
            _ => return None,
        });
    }
    let (x, y) = (value(prim, a), value(prim, b));
    let bits = if prim.is_64() { 64 } else { 32 };
    let r = match op {
        Arith::Add => x.wrapping_add(y),
        Arith::Sub => x.wrapping_sub(y),
        Arith::Mul => x.wrapping_mul(y),
        Arith::Div if y != 0 => x.checked_div(y)?,
        Arith::Rem if y != 0 => x.checked_rem(y)?,
        Arith::Div | Arith::Rem => return None,
        Arith::BitAnd => x & y,
        Arith::BitOr => x | y,
        Arith::BitXor => x ^ y,
        Arith::Shl if (0..bits).contains(&y) => x << y,
        Arith::Shr if (0..bits).contains(&y) => x >> y,
        Arith::Shl | Arith::Shr => return None,
    };
    Some(wrap(prim, r))
}

fn fold_compare(cmp: &str, prim: Prim, a: i64, b: i64) -> Option<bool> {
    if !prim.is_int() {
        return None;
    }
    let (x, y) = (value(prim, a), value(prim, b));
    Some(match cmp {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        _ => return None,
    })
}
