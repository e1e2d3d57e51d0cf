//! Checking a split sum: `store_partial` and `arrive`.
//!
//! rustc checks that the accumulator is complete (its `Readable` state), that a stored part
//! arrives (`#[must_use]`) and that the total is an accumulator of the same shape. What it
//! cannot see is checked here, on the user's tokens: the slices are named parameters of the
//! right element types (the parts `f32`, the arrival counters `u32`, both written), and the
//! barrier is one the warp group syncs on (`bar.sync` only, so that `arrive` may sync on it).

use super::{Checker, Slot};
use crate::handles;
use crate::types::{AccShape, Elem, Handle, Prim, Ty};
use syn::spanned::Spanned;

impl Checker<'_> {
    /// `acc.store_partial(partials, index, part, stride)`.
    pub(super) fn store_partial_operands(&mut self, acc: AccShape, m: &syn::ExprMethodCall) {
        self.written_slice(&m.args[0], Prim::F32, "the parts", acc);
        for a in m.args.iter().skip(1) {
            let v = self.operand(a);
            self.expect_u32(v, a);
        }
    }

    /// `part.arrive(arrivals, counter, splits, &barrier)`.
    pub(super) fn partial_arrive(&mut self, acc: AccShape, m: &syn::ExprMethodCall) -> usize {
        let out = handles::result_type(
            Handle::Partial(acc),
            handles::Out::Handle(handles::Kind::SplitArrival),
        );
        if !self.method_arity(m, 4) {
            return self.known(out);
        }
        let a = &m.args;
        self.written_slice(&a[0], Prim::U32, "the arrival counters", acc);
        for arg in [&a[1], &a[2]] {
            let v = self.operand(arg);
            self.expect_u32(v, arg);
        }
        let barrier = self.operand(&a[3]);
        match self.ty(barrier) {
            None
            | Some(Ty::Handle(Handle::DynNamed))
            | Some(Ty::Handle(Handle::Named {
                reduction: false,
                ..
            })) => {}
            Some(found) => self.diag.error(
                a[3].span(),
                format!(
                    "`arrive` syncs the warp group on a named barrier (`named_barrier_dyn(id, 128)` or `named_barrier::<ID, 128>()`), found `{found}`{}",
                    if matches!(found, Ty::Handle(Handle::Named { reduction: true, .. })) {
                        ": a reduction barrier takes only `bar.red`, and mixing it with `bar.sync` is undefined (PTX ISA §9.7.13.1)"
                    } else {
                        ""
                    }
                ),
            ),
        }
        self.known(out)
    }

    /// A `&mut [elem]` parameter, named, that a split sum writes.
    fn written_slice(&mut self, e: &syn::Expr, elem: Prim, what: &str, acc: AccShape) {
        self.written_slice_param(
            e,
            elem,
            |other| format!(
                "{what} of a split `Acc<{}, 64, {}>` go to a `&mut [{elem}]` parameter, found `{other}`",
                acc.elem, acc.n
            ),
            &format!("name the slice parameter that holds {what}: `acc.store_partial(partials, index, part, stride)`, `part.arrive(arrivals, counter, splits, &barrier)`"),
        );
    }

    /// A `&mut [elem]` kernel parameter given by name, which an accumulator method writes
    /// (`acc.store`, the split sum's slices): `mismatch` words the error for another type (from
    /// how that type reads), `unnamed` the one for an expression that is not a parameter's name.
    pub(super) fn written_slice_param(
        &mut self,
        e: &syn::Expr,
        elem: Prim,
        mismatch: impl FnOnce(String) -> String,
        unnamed: &str,
    ) {
        let v = self.operand(e);
        match self.resolve(v) {
            Slot::Known(Ty::Global {
                elem: Elem { prim, lanes: 1 },
                mutable: true,
            }) if prim == elem => {}
            Slot::Free => {}
            _ => {
                let other = self.describe(v);
                self.diag.error(e.span(), mismatch(other));
            }
        }
        if !super::is_name(e) {
            self.diag.error(e.span(), unnamed);
        }
    }
}
