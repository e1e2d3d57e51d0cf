//! Kernel-language types as written in Rust: parameters, annotations, `shared_array` arguments.

use crate::types::{Elem, Prim, Ty};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument, PathArguments, Type};

/// `u32`, `f32`, `bool`, ...
pub fn scalar_type(ty: &Type) -> Option<Prim> {
    match ty {
        Type::Path(p) if p.qself.is_none() => Prim::from_ident(&p.path.get_ident()?.to_string()),
        Type::Paren(p) => scalar_type(&p.elem),
        Type::Group(g) => scalar_type(&g.elem),
        _ => None,
    }
}

/// A memory element: a scalar, or a vector `[T; 2]` / `[T; 4]` of 8 or 16 bytes.
pub fn elem_type(ty: &Type) -> Option<Elem> {
    match ty {
        Type::Array(a) => {
            let prim = scalar_type(&a.elem)?;
            let lanes = literal_u64(&a.len)?;
            Elem::vector_ok(prim, lanes).then_some(Elem {
                prim,
                lanes: lanes as u8,
            })
        }
        Type::Paren(p) => elem_type(&p.elem),
        Type::Group(g) => elem_type(&g.elem),
        other => scalar_type(other).map(Elem::scalar),
    }
}

/// The type of a `let` annotation.
pub fn value_type(ty: &Type) -> Option<Ty> {
    elem_type(ty).map(Elem::ty)
}

const ELEMS: &str =
    "u32, i32, u64, i64, f32, f64, or [T; 2] / [T; 4] of 32-bit T, [T; 2] of 64-bit T";

/// The type of a kernel parameter: a scalar by value, or `&[E]` / `&mut [E]` in global memory.
pub fn param_type(ty: &Type) -> Result<Ty, syn::Error> {
    match ty {
        Type::Reference(r) => {
            let Type::Slice(slice) = &*r.elem else {
                return Err(syn::Error::new(
                    r.elem.span(),
                    "kernel parameters are passed by value or as slices `&[T]` / `&mut [T]`",
                ));
            };
            match elem_type(&slice.elem) {
                Some(elem) if elem.prim != Prim::Bool => Ok(Ty::Global {
                    elem,
                    mutable: r.mutability.is_some(),
                }),
                _ => Err(syn::Error::new(
                    slice.elem.span(),
                    format!("slice elements in a kernel are {ELEMS}"),
                )),
            }
        }
        Type::Paren(p) => param_type(&p.elem),
        Type::Group(g) => param_type(&g.elem),
        other => match scalar_type(other) {
            Some(p) => Ok(Ty::Prim(p)),
            None => Err(syn::Error::new(
                other.span(),
                "kernel parameters are u32, i32, u64, i64, f32, f64, bool, or slices `&[T]` / `&mut [T]` of those",
            )),
        },
    }
}

fn literal_u64(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Paren(p) => literal_u64(&p.expr),
        Expr::Group(g) => literal_u64(&g.expr),
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => literal_u64(e),
            _ => None,
        },
        _ => None,
    }
}

/// The element type and length of `shared_array::<T, N>()`; `N` is a literal or a kernel
/// `const` (whose values are in `consts`).
pub fn shared_array_args(
    func: &Expr,
    consts: &HashMap<String, i128>,
) -> Result<(Elem, u64), syn::Error> {
    let Expr::Path(path) = func else {
        return Err(syn::Error::new(
            func.span(),
            "expected `shared_array::<T, N>`",
        ));
    };
    let last = path
        .path
        .segments
        .last()
        .ok_or_else(|| syn::Error::new(func.span(), "expected `shared_array::<T, N>`"))?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return Err(syn::Error::new(
            last.ident.span(),
            "`shared_array` needs its element type and length: `shared_array::<f32, 1024>()`",
        ));
    };
    let args: Vec<&GenericArgument> = args.args.iter().collect();
    let [GenericArgument::Type(elem_ty), len] = args.as_slice() else {
        return Err(syn::Error::new(
            last.arguments.span(),
            "`shared_array` takes an element type and a length: `shared_array::<f32, 1024>()`",
        ));
    };
    let elem = elem_type(elem_ty)
        .filter(|e| e.prim != Prim::Bool)
        .ok_or_else(|| {
            syn::Error::new(elem_ty.span(), format!("shared array elements are {ELEMS}"))
        })?;
    let len = match len {
        GenericArgument::Const(e) => literal_u64(e).or_else(|| const_value(e, consts)),
        GenericArgument::Type(Type::Path(p)) => p
            .path
            .get_ident()
            .and_then(|i| consts.get(&i.to_string()))
            .and_then(|v| u64::try_from(*v).ok()),
        _ => None,
    };
    let len_span = args[1].span();
    match len {
        Some(0) => Err(syn::Error::new(
            len_span,
            "a shared array needs at least one element",
        )),
        Some(n) if n.saturating_mul(elem.size() as u64) > 227 * 1024 => Err(syn::Error::new(
            len_span,
            format!(
                "{n} elements of {elem} take {} bytes; a CTA has at most 227 KiB of shared memory",
                n.saturating_mul(elem.size() as u64)
            ),
        )),
        Some(n) => Ok((elem, n)),
        None => Err(syn::Error::new(
            len_span,
            "the length of a shared array is an integer literal or a kernel `const`",
        )),
    }
}

/// Evaluates a constant integer expression over literals and kernel `const`s.
pub fn const_value(e: &Expr, consts: &HashMap<String, i128>) -> Option<u64> {
    eval(e, consts).and_then(|v| u64::try_from(v).ok())
}

/// Integer constant folding for `const` items and array lengths.
pub fn eval(e: &Expr, consts: &HashMap<String, i128>) -> Option<i128> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        Expr::Paren(p) => eval(&p.expr, consts),
        Expr::Group(g) => eval(&g.expr, consts),
        Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
            syn::Stmt::Expr(e, None) => eval(e, consts),
            _ => None,
        },
        Expr::Path(p) => consts.get(&p.path.get_ident()?.to_string()).copied(),
        Expr::Binary(b) => {
            let (l, r) = (eval(&b.left, consts)?, eval(&b.right, consts)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) => l.checked_div(r),
                syn::BinOp::Rem(_) => l.checked_rem(r),
                syn::BinOp::Shl(_) => u32::try_from(r)
                    .ok()
                    .filter(|s| *s < 64)
                    .and_then(|s| l.checked_shl(s)),
                syn::BinOp::Shr(_) => u32::try_from(r)
                    .ok()
                    .filter(|s| *s < 64)
                    .and_then(|s| l.checked_shr(s)),
                _ => None,
            }
        }
        Expr::Cast(c) => eval(&c.expr, consts),
        _ => None,
    }
}
