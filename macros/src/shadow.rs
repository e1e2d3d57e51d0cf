//! The copy of the kernel that rustc type-checks.
//!
//! The body is kept token for token, spans included, so rustc's errors land on the user's own
//! code; only what ordinary Rust spells differently inside a kernel is rewritten, each
//! rewrite carrying the span of what it replaces:
//! - `&[T]` / `&mut [T]` parameters become `&Global<T>` / `&mut Global<T>` (indexed by `u32`),
//!   and `&mut [TensorMapSlot]` becomes `&mut TensorMapSlots`;
//! - `(a..b).step_by(s)` becomes `step_by(a..b, s)`, whose step has the range's type;
//! - `x as T` where `x` or `T` is a storage float (`bf16`, ...) becomes `cast::<T, _>(x)`:
//!   Rust's `as` knows only primitive types;
//! - a call `f(args)` of a `#[device]` function becomes `device_result(f(args))`, which
//!   unwraps the `Device` its Rust copy returns (and fails, on the call, for any other
//!   function);
//! - the kernel-language items are imported into the body.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, ItemFn, Type};

/// `accepted` names the parameters whose types the kernel language accepted; the others keep
/// their Rust types, so that rustc does not report them a second time.
/// `narrow_casts` says, for each `as` of the body in syntax-tree order, whether it involves a
/// storage float (see [`narrow_casts`]).
pub fn type_check_copy(
    func: &ItemFn,
    krate: &syn::Path,
    accepted: &[&str],
    narrow_casts: &[bool],
) -> TokenStream {
    let mut f = func.clone();
    f.sig.ident = format_ident!("__phasegate_kernel_{}", func.sig.ident);
    f.vis = syn::Visibility::Inherited;
    f.attrs.retain(|a| {
        ["allow", "warn", "deny", "expect"]
            .iter()
            .any(|n| a.path().is_ident(n))
    });
    for input in &mut f.sig.inputs {
        if let FnArg::Typed(pat) = input {
            let accepted =
                matches!(&*pat.pat, syn::Pat::Ident(p) if accepted.iter().any(|a| p.ident == a));
            if accepted {
                rewrite_param(&mut pat.ty, krate);
            }
        }
    }
    RewriteStepBy::new(krate, &f).visit_block_mut(&mut f.block);
    // After the calls are rewritten: the `lang::cast` calls this inserts are not device calls.
    // Both rewrites keep the order in which a visit meets the casts.
    RewriteCasts {
        krate,
        flags: narrow_casts,
        next: 0,
    }
    .visit_block_mut(&mut f.block);
    let span = f.block.span();
    let import: syn::Stmt =
        syn::parse_quote_spanned!(span=> #[allow(unused_imports)] use #krate::lang::*;);
    f.block.stmts.insert(0, import);
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::all)]
            #f
        };
    }
}

/// The Rust copy of a `#[device]` function: its signature (slices as `Global`), returning
/// `Device<R>`; the body, rewritten as a kernel's, is an inner function with the same generics
/// and parameters, so that `return` keeps its meaning.
pub fn device_copy(func: &ItemFn, krate: &syn::Path, narrow_casts: &[bool]) -> TokenStream {
    let mut inner = func.clone();
    inner.sig.ident = format_ident!("__phasegate_body");
    inner.vis = syn::Visibility::Inherited;
    inner.attrs.clear();
    for input in &mut inner.sig.inputs {
        if let FnArg::Typed(pat) = input {
            rewrite_param(&mut pat.ty, krate);
        }
    }
    RewriteStepBy::new(krate, &inner).visit_block_mut(&mut inner.block);
    RewriteCasts {
        krate,
        flags: narrow_casts,
        next: 0,
    }
    .visit_block_mut(&mut inner.block);
    let span = inner.block.span();
    let import: syn::Stmt =
        syn::parse_quote_spanned!(span=> #[allow(unused_imports)] use #krate::lang::*;);
    inner.block.stmts.insert(0, import);
    let mut outer = inner.clone();
    outer.sig.ident = func.sig.ident.clone();
    outer.vis = func.vis.clone();
    outer.attrs = func
        .attrs
        .iter()
        .filter(|a| {
            ["allow", "warn", "deny", "expect", "doc"]
                .iter()
                .any(|n| a.path().is_ident(n))
        })
        .cloned()
        .collect();
    let mut args = Vec::new();
    for (k, input) in outer.sig.inputs.iter_mut().enumerate() {
        if let FnArg::Typed(pat) = input {
            let name = format_ident!("__phasegate_{}", k);
            *pat.pat = syn::parse_quote!(#name);
            args.push(name);
        }
    }
    let ret = match &func.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, ty) => quote!(#ty),
    };
    let out_span = func.sig.output.span();
    outer.sig.output = syn::parse_quote_spanned!(out_span=> -> #krate::lang::Device<#ret>);
    let generics: Vec<TokenStream> = func
        .sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(c) => Some(c.ident.to_token_stream()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    let turbofish = if generics.is_empty() {
        quote!()
    } else {
        quote!(::<#(#generics),*>)
    };
    outer.block = syn::parse_quote!({
        #inner
        #krate::lang::Device::of(__phasegate_body #turbofish (#(#args),*))
    });
    quote! {
        #[allow(dead_code, clippy::all)]
        #outer
    }
}

fn rewrite_param(ty: &mut Box<Type>, krate: &syn::Path) {
    if let Type::Reference(r) = &mut **ty
        && let Type::Slice(slice) = &*r.elem
    {
        let elem = &slice.elem;
        let span = slice.span();
        let slots = matches!(&**elem, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "TensorMapSlot"));
        *r.elem = if slots {
            syn::parse_quote_spanned!(span=> #krate::lang::TensorMapSlots)
        } else {
            syn::parse_quote_spanned!(span=> #krate::lang::Global<#elem>)
        };
    }
}

/// For each `as` in `block`, in the order a syntax-tree visit meets them (the order
/// [`RewriteCasts`] meets them in the copy), whether its operand or its type is a storage
/// float, by the checker's types.
pub fn narrow_casts(block: &syn::Block, types: &crate::check::Types) -> Vec<bool> {
    struct Scan<'t> {
        types: &'t crate::check::Types,
        flags: Vec<bool>,
    }
    impl<'a> syn::visit::Visit<'a> for Scan<'_> {
        fn visit_expr_cast(&mut self, c: &'a syn::ExprCast) {
            let narrow =
                |t: crate::types::Ty| matches!(t, crate::types::Ty::Prim(p) if p.is_narrow());
            let to = crate::params::scalar_type(&c.ty).is_some_and(|p| p.is_narrow());
            self.flags.push(to || narrow(self.types.of(&c.expr)));
            syn::visit::visit_expr_cast(self, c);
        }
    }
    let mut scan = Scan {
        types,
        flags: Vec::new(),
    };
    syn::visit::Visit::visit_block(&mut scan, block);
    scan.flags
}

struct RewriteCasts<'a> {
    krate: &'a syn::Path,
    flags: &'a [bool],
    next: usize,
}

impl VisitMut for RewriteCasts<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let index = matches!(e, Expr::Cast(_)).then(|| {
            self.next += 1;
            self.next - 1
        });
        visit_mut::visit_expr_mut(self, e);
        if let (Expr::Cast(c), Some(i)) = (&*e, index)
            && self.flags.get(i).copied().unwrap_or(false)
        {
            let krate = self.krate;
            // `(x as f32 as bf16) as i32`: the parentheses an `as` chain needs are noise
            // around a call's argument (rustc's `unused_parens` would point at them).
            let mut value = &*c.expr;
            while let Expr::Paren(p) = value {
                value = &p.expr;
            }
            let ty = &c.ty;
            let span = c.span();
            let call = quote_spanned!(span=> #krate::lang::cast::<#ty, _>(#value));
            if let Ok(new) = syn::parse2(call) {
                *e = new;
            }
        }
    }
}

struct RewriteStepBy<'a> {
    krate: &'a syn::Path,
    /// The names the function binds: a call of one (a closure, which the checker rejects) is
    /// not a device-function call.
    locals: HashSet<String>,
}

impl<'a> RewriteStepBy<'a> {
    fn new(krate: &'a syn::Path, f: &ItemFn) -> Self {
        struct Names(HashSet<String>);
        impl<'ast> syn::visit::Visit<'ast> for Names {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.0.insert(p.ident.to_string());
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut names = Names(HashSet::new());
        syn::visit::visit_item_fn(&mut names, f);
        RewriteStepBy {
            krate,
            locals: names.0,
        }
    }
}

impl VisitMut for RewriteStepBy<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        if let Expr::Call(c) = e
            && let Expr::Path(p) = &*c.func
            && p.qself.is_none()
            && !crate::builtins::is_function(&p.path)
            && !p
                .path
                .get_ident()
                .is_some_and(|i| self.locals.contains(&i.to_string()))
        {
            // Every token of the wrapper on the call, so rustc's error is there once.
            let span = c.span();
            let krate = respan(self.krate.to_token_stream(), span);
            let call = quote_spanned!(span=> #krate::lang::device_result(#c));
            if let Ok(new) = syn::parse2(call) {
                *e = new;
            }
            return;
        }
        if let Expr::MethodCall(m) = e
            && let (true, Some(range)) = (
                m.method == "step_by" && m.args.len() == 1,
                as_range(&m.receiver),
            )
        {
            let krate = self.krate;
            let (recv, step) = (range, &m.args[0]);
            let span = m.method.span();
            let call = quote_spanned!(span=> #krate::lang::step_by(#recv, #step));
            if let Ok(new) = syn::parse2(call) {
                *e = new;
            }
        }
    }
}

fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            t.set_span(span);
            t
        })
        .collect()
}

/// The range expression itself, without the parentheses that `(a..b).step_by(s)` needs.
fn as_range(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Range(_) => Some(e),
        Expr::Paren(p) => as_range(&p.expr),
        Expr::Group(g) => as_range(&g.expr),
        _ => None,
    }
}
