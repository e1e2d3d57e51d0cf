//! What a device function's signature says to the kernel language.
//!
//! Scalars and vectors have their types here, so that a literal argument gets the parameter's
//! type as rustc gives it. Global slices keep their element type. Shared arrays and barrier
//! handles take their kernel-language type from the argument at each call: their exact Rust
//! types (an mbarrier's phase, a pipeline's shape) are rustc's to check on the function's
//! Rust copy, and the lowering needs only what kind of value was passed in.

use crate::diag::Diagnostics;
use crate::types::{Elem, Prim, Ty};
use syn::spanned::Spanned;
use syn::{FnArg, GenericParam, ItemFn, Pat, ReturnType, Type};

#[derive(Clone, Debug)]
pub struct ConstParam {
    pub name: String,
    /// `usize` parameters (what array lengths and shapes take) are `u64` to the checker.
    pub prim: Prim,
}

#[derive(Clone, Debug)]
pub enum ParamKind {
    /// A scalar or vector by value.
    Value(Ty),
    /// `&[E]` / `&mut [E]`.
    Slice { elem: Elem, mutable: bool },
    /// A shared array, a tensor map or a barrier handle, by reference or by value.
    FromArgument,
}

#[derive(Clone, Debug)]
pub struct DevParam {
    pub name: String,
    pub mutable: bool,
    pub kind: ParamKind,
    /// The generic arguments of the parameter's type (`SharedArray<f32, N>`, lifetimes left
    /// out) that name a const parameter, by position: what a call without a turbofish infers
    /// the const parameters from, as rustc does.
    pub const_args: Vec<(usize, String)>,
}

#[derive(Clone, Debug)]
pub enum RetKind {
    Unit,
    Value(Ty),
    /// A handle: its kernel-language type is the body's.
    FromBody,
}

#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    pub consts: Vec<ConstParam>,
    pub params: Vec<DevParam>,
    pub ret: RetKind,
}

const PARAMS: &str = "device function parameters are scalars and vectors by value, slices `&[T]` / `&mut [T]`, shared arrays (`&SharedArray<T, N>`, `&mut SharedArray<T, N>`), tensor maps and barrier handles";

impl Signature {
    /// Reads the signature, reporting what the kernel language cannot pass; `None` if any.
    pub fn read(func: &ItemFn, diag: &mut Diagnostics) -> Option<Signature> {
        let before = diag.count();
        let sig = &func.sig;
        if let Some(t) = &sig.constness {
            diag.error(t.span(), "a device function cannot be `const`");
        }
        if let Some(t) = &sig.asyncness {
            diag.error(t.span(), "a device function cannot be `async`");
        }
        if let syn::Safety::Unsafe(t) = &sig.safety {
            diag.error(
                t.span(),
                "a device function is not `unsafe`: the kernel language has no unsafe operations",
            );
        }
        if let Some(abi) = &sig.abi {
            diag.error(
                abi.span(),
                "a device function has no `extern` ABI; it is inlined into the kernel",
            );
        }
        if let Some(v) = &sig.variadic {
            diag.error(v.span(), "a device function cannot be variadic");
        }
        if let Some(w) = &sig.generics.where_clause {
            diag.error(
                w.span(),
                "a device function has no `where` clause: its generics are constants",
            );
        }
        let mut consts = Vec::new();
        for g in &sig.generics.params {
            match g {
                GenericParam::Lifetime(_) => {}
                GenericParam::Type(t) => diag.error(
                    t.span(),
                    "device functions are generic over constants only (`const N: u32`); their types are concrete",
                ),
                GenericParam::Const(c) => {
                    let prim = match &c.ty {
                        Type::Path(p) if p.path.is_ident("usize") => Some(Prim::U64),
                        ty => crate::params::scalar_type(ty).filter(|p| !p.is_float()),
                    };
                    match prim {
                        Some(prim) => consts.push(ConstParam {
                            name: c.ident.to_string(),
                            prim,
                        }),
                        None => diag.error(
                            c.ty.span(),
                            "a const parameter of a device function is an integer or bool: u32, i32, u64, i64, usize, bool",
                        ),
                    }
                    if let Some(d) = &c.default {
                        diag.error(d.1.span(), "const parameters of device functions have no defaults");
                    }
                }
            }
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                FnArg::Receiver(r) => diag.error(
                    r.span(),
                    "a device function is a free function; it has no `self`",
                ),
                FnArg::Typed(pt) => {
                    let (name, mutable) = match &*pt.pat {
                        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                            (p.ident.to_string(), p.mutability.is_some())
                        }
                        other => {
                            diag.error(
                                other.span(),
                                "a device function parameter is a plain name: `x: f32` or `mut x: f32`",
                            );
                            continue;
                        }
                    };
                    match param_kind(&pt.ty) {
                        Ok(kind) => params.push(DevParam {
                            name,
                            mutable,
                            kind,
                            const_args: const_positions(&pt.ty, &consts),
                        }),
                        Err(e) => diag.push(e),
                    }
                }
            }
        }
        let ret = match &sig.output {
            ReturnType::Default => RetKind::Unit,
            ReturnType::Type(_, ty) => {
                match &**ty {
                    Type::Tuple(t) if t.elems.is_empty() => RetKind::Unit,
                    ty => match crate::params::value_type(ty) {
                        Some(t) => RetKind::Value(t),
                        None if crate::params::scalar_type(ty) == Some(Prim::Bool) => {
                            RetKind::Value(Ty::Prim(Prim::Bool))
                        }
                        None => match ty {
                            Type::Path(_) => RetKind::FromBody,
                            other => {
                                diag.error(other.span(), "a device function returns a scalar, a vector or a barrier handle");
                                RetKind::Unit
                            }
                        },
                    },
                }
            }
        };
        (diag.count() == before).then(|| Signature {
            name: sig.ident.to_string(),
            consts,
            params,
            ret,
        })
    }
}

fn param_kind(ty: &Type) -> Result<ParamKind, syn::Error> {
    if let Some(p) = crate::params::scalar_type(ty) {
        return Ok(ParamKind::Value(Ty::Prim(p)));
    }
    if let Some(t) = crate::params::value_type(ty) {
        return Ok(ParamKind::Value(t));
    }
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Slice(_) => match crate::params::param_type(ty)? {
                Ty::Global { elem, mutable } => Ok(ParamKind::Slice { elem, mutable }),
                Ty::MapSlots => Err(syn::Error::new(
                    ty.span(),
                    "tensor-map slots are not a device function's parameter: the kernel writes its maps (`map.edit(slots, i)..release()`) and passes a published one (`let m = map.published(slots, i)`, then `f(m, ..)`)",
                )),
                _ => Err(syn::Error::new(ty.span(), PARAMS)),
            },
            Type::Path(p) if crate::params::scalar_type(&r.elem).is_none() && p.qself.is_none() => {
                Ok(ParamKind::FromArgument)
            }
            other => Err(syn::Error::new(
                other.span(),
                format!("{PARAMS}; references to values are not in the kernel language"),
            )),
        },
        Type::Path(p) if p.qself.is_none() => Ok(ParamKind::FromArgument),
        Type::Paren(p) => param_kind(&p.elem),
        other => Err(syn::Error::new(other.span(), PARAMS)),
    }
}

/// The positions of the generic arguments of `ty` (behind a reference) that are a const
/// parameter of `consts`.
fn const_positions(ty: &Type, consts: &[ConstParam]) -> Vec<(usize, String)> {
    let ty = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    let Type::Path(p) = ty else {
        return Vec::new();
    };
    let Some(syn::PathArguments::AngleBracketed(args)) =
        p.path.segments.last().map(|s| &s.arguments)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let non_lifetime = args
        .args
        .iter()
        .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)));
    for (k, arg) in non_lifetime.enumerate() {
        let ident = match arg {
            syn::GenericArgument::Type(Type::Path(t)) => t.path.get_ident(),
            syn::GenericArgument::Const(syn::Expr::Path(e)) => e.path.get_ident(),
            _ => None,
        };
        if let Some(i) = ident
            && consts.iter().any(|c| *i == c.name)
        {
            out.push((k, i.to_string()));
        }
    }
    out
}
