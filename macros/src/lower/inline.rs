//! Calls of `#[device]` functions, inlined.
//!
//! The callee's body (the copy the checker typed for this call) is lowered in place, in a
//! scope of its own: parameters bound to the argument values (slices, shared arrays and tensor
//! maps to the caller's bindings, handles to the caller's handle registers, so that a method on a
//! `&mut Producer` advances the caller's producer), const parameters bound to immediates (so a
//! loop `for k in 0..N` has a constant trip count and can unroll). `return` moves its value
//! into the call's result registers and branches to the end of the inlined body.
//!
//! Inlining keeps the kernel one PTX function: the analyzer sees through every call (a
//! barrier inside a device function called under divergent control is a finding at the
//! barrier), and ptxas optimises across the call boundary as nvcc's `__forceinline__` does.

use super::{Binding, Lowerer, Val};
use crate::device::ParamKind;
use crate::params::memory_name;
use crate::types::Ty;
use phasegate_ptx::Imm;
use proc_macro2::Span as RustSpan;
use std::collections::HashMap;
use syn::spanned::Spanned;

/// A device-function call that statements were inlined from.
#[derive(Clone, Debug)]
pub struct CallSite {
    /// The callee's name.
    pub name: String,
    /// The call's path.
    pub span: RustSpan,
    /// The call this call was itself inlined from.
    pub parent: Option<u32>,
}

/// A device function being inlined.
pub(super) struct Frame {
    /// The label after the inlined body, where `return`s go.
    end: String,
    /// The registers of the result, made at the first `return`.
    dest: Option<Val>,
    ty: Ty,
    returned: bool,
}

impl Lowerer<'_> {
    pub(super) fn device_call(&mut self, call: &syn::ExprCall, ty: Ty) -> Val {
        let Some(inst) = self.types.instance(call) else {
            return self.internal_val("device call the checker did not instantiate");
        };
        let mut bindings = Vec::new();
        for (p, arg) in inst.sig.params.iter().zip(&call.args) {
            let by_name = matches!(
                (&p.kind, self.ty(arg)),
                (ParamKind::Slice { .. }, _)
                    | (
                        ParamKind::FromArgument,
                        Ty::Shared { .. } | Ty::TensorMap(_)
                    )
            );
            let binding = if by_name {
                match memory_name(arg).and_then(|n| self.lookup(&n)) {
                    Some(b) => b,
                    None => return self.internal_val("memory argument by name"),
                }
            } else {
                let v = self.expr(arg);
                let val = if p.mutable { self.copy(v) } else { v };
                Binding::Value {
                    val,
                    mutable: p.mutable,
                }
            };
            bindings.push((p.name.clone(), binding));
        }
        self.call_sites.push(CallSite {
            name: inst.name.clone(),
            span: call.func.span(),
            parent: self.site,
        });
        let site = self.site.replace(self.call_sites.len() as u32 - 1);
        let (span, span_last) = (self.span, self.span_last);
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let loops = std::mem::take(&mut self.loops);
        // The callee's names are its own: which of them an assignment overwrote, and when
        // they were read.
        let loop_starts = std::mem::take(&mut self.loop_starts);
        let clobbers = std::mem::take(&mut self.clobbers);
        let alias_reads = std::mem::take(&mut self.alias_reads);
        for (name, prim, value) in &inst.consts {
            let val = Val::Imm(*prim, Imm::Int(*value as i64));
            self.bind(
                name.clone(),
                Binding::Value {
                    val,
                    mutable: false,
                },
            );
        }
        for (name, binding) in bindings {
            self.bind(name, binding);
        }
        let end = self.new_label();
        self.frames.push(Frame {
            end,
            dest: None,
            ty,
            returned: false,
        });
        let tail = self.block_stmts(&inst.block);
        let result = match self.frames.pop() {
            Some(frame) if frame.returned => {
                let dest = frame.dest.unwrap_or(Val::Unit);
                self.assign_to(&dest, tail);
                self.place_label(frame.end);
                dest
            }
            _ => tail,
        };
        self.loops = loops;
        self.scopes = scopes;
        self.loop_starts = loop_starts;
        self.clobbers = clobbers;
        self.alias_reads = alias_reads;
        self.site = site;
        // What follows in the caller's statement is the caller's again.
        self.span = span;
        self.span_last = span_last;
        self.set_loc(span);
        result
    }

    /// `return` in a kernel (`ret`) or in a device function being inlined (to its end).
    pub(super) fn ret_value(&mut self, r: &syn::ExprReturn) -> Val {
        if self.frames.is_empty() {
            return self.ret();
        }
        let v = match &r.expr {
            Some(e) => self.expr(e),
            None => Val::Unit,
        };
        let dest = match self.frames.last().and_then(|f| f.dest.clone()) {
            Some(d) => d,
            None => {
                let ty = self.frames.last().map(|f| f.ty).unwrap_or(Ty::Unit);
                let d = self.fresh_val(ty);
                if let Some(f) = self.frames.last_mut() {
                    f.dest = Some(d.clone());
                }
                d
            }
        };
        self.assign_to(&dest, v);
        let end = match self.frames.last_mut() {
            Some(f) => {
                f.returned = true;
                f.end.clone()
            }
            None => return Val::Unit,
        };
        self.branch(&end);
        Val::Unit
    }

    /// New registers for a value of type `ty`.
    fn fresh_val(&mut self, ty: Ty) -> Val {
        match ty {
            Ty::Prim(p) => Val::Reg(p, self.reg(p.class())),
            Ty::Vector(p, n) => Val::Vector(
                p,
                (0..n).map(|_| Val::Reg(p, self.reg(p.class()))).collect(),
            ),
            Ty::Unit => Val::Unit,
            _ => self.internal_val("`return` of a value kept in no register"),
        }
    }
}
