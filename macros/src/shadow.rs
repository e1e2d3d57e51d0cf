//! The copy of the kernel that rustc type-checks.
//!
//! The body is kept token for token, spans included, so rustc's errors land on the user's own
//! code; only what ordinary Rust spells differently inside a kernel is rewritten, each
//! rewrite carrying the span of what it replaces:
//! - `&[T]` / `&mut [T]` parameters become `&Global<T>` / `&mut Global<T>` (indexed by `u32`);
//! - `(a..b).step_by(s)` becomes `step_by(a..b, s)`, whose step has the range's type;
//! - `x as T` where `x` or `T` is a storage float (`bf16`, ...) becomes `cast::<T, _>(x)`:
//!   Rust's `as` knows only primitive types;
//! - the kernel-language items are imported into the body.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
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
    RewriteCasts {
        krate,
        flags: narrow_casts,
        next: 0,
    }
    .visit_block_mut(&mut f.block);
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
    RewriteStepBy { krate }.visit_block_mut(&mut f.block);
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

fn rewrite_param(ty: &mut Box<Type>, krate: &syn::Path) {
    if let Type::Reference(r) = &mut **ty
        && let Type::Slice(slice) = &*r.elem
    {
        let elem = &slice.elem;
        let span = slice.span();
        *r.elem = syn::parse_quote_spanned!(span=> #krate::lang::Global<#elem>);
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
}

impl VisitMut for RewriteStepBy<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
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

/// The range expression itself, without the parentheses that `(a..b).step_by(s)` needs.
fn as_range(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Range(_) => Some(e),
        Expr::Paren(p) => as_range(&p.expr),
        Expr::Group(g) => as_range(&g.expr),
        _ => None,
    }
}
