//! Kernel-language functions and methods.

use super::{Lowerer, Val};
use crate::builtins::{self, Builtin, MethodKind};
use crate::types::{Handle, Prim, RegClass, Ty};
use phasegate_ptx::{Dim, Instruction, Opcode, Operand, SpecialReg};
use syn::Expr;

impl Lowerer<'_> {
    pub(super) fn call(&mut self, call: &syn::ExprCall, ty: Ty) -> Val {
        let Expr::Path(path) = &*call.func else {
            self.internal("call of a non-path");
            return Val::Unit;
        };
        if !builtins::is_function(&path.path) {
            return self.device_call(call, ty);
        }
        let Ok(builtin) = builtins::lookup_call(&path.path) else {
            self.internal("unknown function");
            return Val::Unit;
        };
        if let Builtin::Sync(f) = builtin {
            return self.sync_fn(f, call, ty);
        }
        let args: Vec<Val> = call.args.iter().map(|a| self.expr(a)).collect();
        match builtin {
            Builtin::Special(reg) => self.special(reg),
            Builtin::Clock64 => {
                let d = self.reg(RegClass::B64);
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &["u64"],
                    vec![Operand::reg(&d), Operand::reg(SpecialReg::Clock64.name())],
                ));
                Val::Reg(Prim::U64, d)
            }
            Builtin::WarpId => self.warp_index(),
            Builtin::SyncThreads => {
                self.emit(Instruction::new(
                    Opcode::Bar,
                    &["sync"],
                    vec![Operand::int(0)],
                ));
                Val::Unit
            }
            Builtin::Method(kind) => {
                let mut args = args.into_iter();
                let recv = args.next().unwrap_or(Val::Unit);
                self.method(kind, recv, args.collect(), ty)
            }
            Builtin::FromBits(to) => {
                let src = self.in_reg(args.into_iter().next().unwrap_or(Val::Unit));
                let d = self.reg(to.class());
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &[to.bits().name()],
                    vec![Operand::reg(&d), Operand::reg(&src)],
                ));
                Val::Reg(to, d)
            }
            Builtin::SharedArray => {
                self.internal("shared_array outside a `let`");
                Val::Unit
            }
            Builtin::Sync(_) => Val::Unit,
        }
    }

    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall, ty: Ty) -> Val {
        if let Ty::Handle(Handle::Registers(_)) = self.ty(&m.receiver) {
            return self.register_role(m, ty);
        }
        if let Ty::Handle(crate::types::Handle::Acc(_)) = self.ty(&m.receiver) {
            return self.acc_method(m);
        }
        if let Ty::Handle(crate::types::Handle::Softmax(_)) = self.ty(&m.receiver) {
            return self.softmax_method(m);
        }
        if let Ty::Handle(Handle::Partial(_) | Handle::SplitArrival(_)) = self.ty(&m.receiver) {
            return match self.expr(&m.receiver) {
                Val::Handle(h) => self.split_method(*h, m),
                _ => self.internal_val("split receiver"),
            };
        }
        if let Ty::Handle(handle) = self.ty(&m.receiver) {
            let Some((method, _, _)) = crate::handles::lookup(handle, &m.method.to_string()) else {
                return self.internal_val("unknown handle method");
            };
            let receiver = match self.expr(&m.receiver) {
                Val::Handle(h) => *h,
                _ => return self.internal_val("handle receiver"),
            };
            let args: Vec<&Expr> = m.args.iter().collect();
            return self.handle_method(receiver, method, &args);
        }
        if let Ty::TensorMap(_) = self.ty(&m.receiver) {
            return self.map_method(m);
        }
        if let Ty::MapEdit(_) = self.ty(&m.receiver) {
            return self.release_map_edit(m);
        }
        let Some(kind) = builtins::lookup_method(&m.method.to_string()) else {
            self.internal("unknown method");
            return Val::Unit;
        };
        let recv = self.expr(&m.receiver);
        let args = m.args.iter().map(|a| self.expr(a)).collect();
        self.method(kind, recv, args, ty)
    }

    fn method(&mut self, kind: MethodKind, recv: Val, args: Vec<Val>, ty: Ty) -> Val {
        let Some(prim) = recv.prim() else {
            self.internal("method on a non-scalar");
            return Val::Unit;
        };
        let t = prim.arith().name();
        let b = prim.bits().name();
        let (name, mods, result): (&str, Vec<&str>, Prim) = match kind {
            MethodKind::Min => ("min", vec![t], prim),
            MethodKind::Max => ("max", vec![t], prim),
            MethodKind::Abs => ("abs", vec![t], prim),
            MethodKind::Sqrt => ("sqrt", vec!["rn", t], prim),
            MethodKind::MulAdd => ("fma", vec!["rn", t], prim),
            MethodKind::WrappingAdd => ("add", vec![t], prim),
            MethodKind::WrappingSub => ("sub", vec![t], prim),
            MethodKind::WrappingMul => ("mul", vec!["lo", t], prim),
            MethodKind::CountOnes => ("popc", vec![b], Prim::U32),
            MethodKind::LeadingZeros => ("clz", vec![b], Prim::U32),
            MethodKind::ReverseBits => ("brev", vec![b], prim),
            MethodKind::ToBits => {
                let to = match ty {
                    Ty::Prim(p) => p,
                    _ => {
                        if prim.is_64() {
                            Prim::U64
                        } else {
                            Prim::U32
                        }
                    }
                };
                ("mov", vec![b], to)
            }
        };
        let recv = self.in_reg(recv);
        let d = self.reg(result.class());
        let mut operands = vec![Operand::reg(&d), Operand::reg(&recv)];
        for a in &args {
            operands.push(self.operand(a));
        }
        self.emit(Instruction {
            guard: None,
            opcode: Opcode::from_name(name),
            modifiers: mods.iter().map(|m| m.to_string()).collect(),
            operands,
        });
        Val::Reg(result, d)
    }

    /// `warp_id()`: the linear thread index / 32.
    pub(super) fn warp_index(&mut self) -> Val {
        if matches!(self.block, Some((_, 1, 1))) {
            // A one-dimensional block: tid.x / 32.
            let tx = self.special(SpecialReg::Tid(Dim::X));
            return self.arith(
                super::expr::Arith::Shr,
                Prim::U32,
                tx,
                Val::Imm(Prim::U32, phasegate_ptx::Imm::Int(5)),
            );
        }
        // (tid.x + ntid.x * (tid.y + ntid.y * tid.z)) / 32
        let tz = self.special(SpecialReg::Tid(Dim::Z));
        let ny = self.special(SpecialReg::Ntid(Dim::Y));
        let ty_ = self.special(SpecialReg::Tid(Dim::Y));
        let yz = self.mad(ny, tz, ty_);
        let nx = self.special(SpecialReg::Ntid(Dim::X));
        let tx = self.special(SpecialReg::Tid(Dim::X));
        let linear = self.mad(nx, yz, tx);
        self.arith(
            super::expr::Arith::Shr,
            Prim::U32,
            linear,
            Val::Imm(Prim::U32, phasegate_ptx::Imm::Int(5)),
        )
    }

    /// `mov.u32 %r, %special`.
    pub(super) fn special(&mut self, reg: SpecialReg) -> Val {
        if let Some((x, y, z)) = self.block {
            let size = |d: Dim| match d {
                Dim::X => x,
                Dim::Y => y,
                Dim::Z => z,
            };
            match reg {
                SpecialReg::Ntid(d) => {
                    return Val::Imm(Prim::U32, phasegate_ptx::Imm::Int(size(d) as i64));
                }
                SpecialReg::Tid(d) if size(d) == 1 => {
                    return Val::Imm(Prim::U32, phasegate_ptx::Imm::Int(0));
                }
                _ => {}
            }
        }
        let d = self.reg(RegClass::B32);
        self.emit(Instruction::new(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&d), Operand::reg(reg.name())],
        ));
        Val::Reg(Prim::U32, d)
    }

    /// `a * b + c` on u32.
    fn mad(&mut self, a: Val, b: Val, c: Val) -> Val {
        let (a, b, c) = (self.in_reg(a), self.operand(&b), self.operand(&c));
        let d = self.reg(RegClass::B32);
        self.emit(Instruction::new(
            Opcode::Mad,
            &["lo", "u32"],
            vec![Operand::reg(&d), Operand::reg(&a), b, c],
        ));
        Val::Reg(Prim::U32, d)
    }
}
