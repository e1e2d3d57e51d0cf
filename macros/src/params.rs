//! Kernel-language types and constants as written in Rust: parameters, annotations,
//! `shared_array` arguments, integer literals and constant expressions.

use crate::types::{Elem, MapShape, Prim, Ty};
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

const ELEMS: &str = "u32, i32, u64, i64, f32, f64, f16, bf16, f8e4m3, f8e5m2, or vectors of those: \
     [T; 2] / [T; 4] of 32-bit T, [T; 2] of 64-bit T, [f16 or bf16; 2, 4 or 8], [fp8; 2, 4, 8 or 16]";

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
            if let Type::Path(p) = &*slice.elem
                && p.qself.is_none()
                && is_named(&p.path, "TensorMapSlot")
            {
                return match r.mutability {
                    Some(_) => Ok(Ty::MapSlots),
                    None => Err(syn::Error::new(
                        r.span(),
                        "tensor-map slots are written by the kernel: take them as `&mut [TensorMapSlot]`",
                    )),
                };
            }
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
        Type::Path(p) if p.qself.is_none() && is_named(&p.path, "TensorMap") => {
            tensor_map_type(p).map(Ty::TensorMap)
        }
        other => match scalar_type(other) {
            Some(p) => Ok(Ty::Prim(p)),
            None => Err(syn::Error::new(
                other.span(),
                "kernel parameters are u32, i32, u64, i64, f32, f64, f16, bf16, f8e4m3, f8e5m2, bool, slices `&[T]` / `&mut [T]` of those, `TensorMap<T, TileN<..>, Swizzle>`, or `&mut [TensorMapSlot]`",
            )),
        },
    }
}

fn is_named(path: &syn::Path, name: &str) -> bool {
    path.segments.last().is_some_and(|s| s.ident == name)
}

/// `TensorMap<T, TileN<D0, ..>>` or `TensorMap<T, TileN<D0, ..>, Swizzle128B>`, checked as
/// `cuTensorMapEncodeTiled` checks the box, so that a map the driver would refuse, or one
/// whose rows a swizzle cannot lay out, is an error on the user's tokens and never a launch
/// failure or a hang.
fn tensor_map_type(p: &syn::TypePath) -> Result<MapShape, syn::Error> {
    const FORM: &str = "a tensor map is `TensorMap<T, TileN<D0, ..>>` or `TensorMap<T, TileN<D0, ..>, Swizzle>`, with the box's contiguous dimension D0 first and N of 1 to 5";
    let seg = p.path.segments.last().expect("a last segment");
    let PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Err(syn::Error::new(seg.ident.span(), FORM));
    };
    let args: Vec<&GenericArgument> = args.args.iter().collect();
    let (elem_ty, box_ty, swizzle_ty) = match args.as_slice() {
        [GenericArgument::Type(e), GenericArgument::Type(b)] => (e, b, None),
        [
            GenericArgument::Type(e),
            GenericArgument::Type(b),
            GenericArgument::Type(s),
        ] => (e, b, Some(s)),
        _ => return Err(syn::Error::new(seg.arguments.span(), FORM)),
    };
    let mut errors: Vec<syn::Error> = Vec::new();
    let elem = match scalar_type(elem_ty) {
        Some(Prim::Bool) | None => {
            errors.push(syn::Error::new(
                elem_ty.span(),
                "the element of a tensor map is u32, i32, u64, i64, f32 or f64",
            ));
            Prim::U32
        }
        Some(p) => p,
    };
    let swizzle = match swizzle_ty {
        None => 0,
        Some(t) => match t {
            Type::Path(p) if p.qself.is_none() => {
                match p.path.get_ident().map(|i| i.to_string()).as_deref() {
                    Some("NoSwizzle") => 0,
                    Some("Swizzle32B") => 32,
                    Some("Swizzle64B") => 64,
                    Some("Swizzle128B") => 128,
                    _ => {
                        errors.push(syn::Error::new(t.span(), "the swizzle of a tensor map is NoSwizzle, Swizzle32B, Swizzle64B or Swizzle128B"));
                        0
                    }
                }
            }
            _ => {
                errors.push(syn::Error::new(t.span(), "the swizzle of a tensor map is NoSwizzle, Swizzle32B, Swizzle64B or Swizzle128B"));
                0
            }
        },
    };
    let mut dims = [1u32; 5];
    let mut rank = 0u8;
    let tile = match box_ty {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            Some(&p.path.segments[0])
        }
        _ => None,
    };
    match tile {
        Some(seg) => {
            let name = seg.ident.to_string();
            let want = name
                .strip_prefix("Tile")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| (1..=5).contains(n));
            let given: Vec<&GenericArgument> = match &seg.arguments {
                PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                _ => Vec::new(),
            };
            match want {
                Some(n) if n == given.len() => {
                    rank = n as u8;
                    for (i, g) in given.iter().enumerate() {
                        let value = match g {
                            GenericArgument::Const(e) => literal_u64(e),
                            _ => None,
                        };
                        match value {
                            Some(v) if (1..=256).contains(&v) => dims[i] = v as u32,
                            Some(v) => errors.push(syn::Error::new(
                                g.span(),
                                format!("box dimension {i} is {v} elements; the copy engine moves 1 to 256 per dimension"),
                            )),
                            None => errors.push(syn::Error::new(
                                g.span(),
                                "a box dimension is an integer literal (the signature is read before any `const` of the body)",
                            )),
                        }
                    }
                }
                Some(n) => errors.push(syn::Error::new(
                    seg.span(),
                    format!("`{name}` takes {n} box dimensions, {} given", given.len()),
                )),
                None => errors.push(syn::Error::new(seg.ident.span(), FORM)),
            }
        }
        None => errors.push(syn::Error::new(box_ty.span(), FORM)),
    }
    if errors.is_empty() {
        let inner = dims[0] as u64 * elem.size() as u64;
        if !inner.is_multiple_of(16) {
            errors.push(syn::Error::new(
                box_ty.span(),
                format!("the box's contiguous dimension is {inner} bytes ({} × {elem}); the copy engine moves rows of a multiple of 16 bytes", dims[0]),
            ));
        } else if swizzle != 0 && inner > swizzle as u64 {
            let span = swizzle_ty.map_or(box_ty.span(), |s| s.span());
            errors.push(syn::Error::new(
                span,
                format!("the box's contiguous dimension is {inner} bytes, more than the {swizzle}-byte swizzle span; make dimension 0 at most {} elements, or swizzle a wider span", swizzle as u64 / elem.size() as u64),
            ));
        }
    }
    let mut errors = errors.into_iter();
    match errors.next() {
        Some(mut first) => {
            first.extend(errors);
            Err(first)
        }
        None => Ok(MapShape {
            elem,
            rank,
            dims,
            swizzle,
        }),
    }
}

pub fn literal_u64(e: &Expr) -> Option<u64> {
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

/// The name an argument that takes memory, a map or a handle by name refers to: `x`, `&x`,
/// `&mut x`, `(x)`.
pub fn memory_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Reference(r) => memory_name(&r.expr),
        Expr::Paren(p) => memory_name(&p.expr),
        Expr::Group(g) => memory_name(&g.expr),
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

/// The value of an integer literal, if `e` is one (a vector lane, a loop's step, a copy's
/// size): the checker and the lowering read literals alike.
pub fn const_usize(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        Expr::Paren(p) => const_usize(&p.expr),
        // A literal a `macro_rules!` substituted arrives in an invisible group.
        Expr::Group(g) => const_usize(&g.expr),
        _ => None,
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
