//! `#[device]`: ordinary Rust functions that kernels call, inlined into the kernel's PTX.
//!
//! A proc macro sees only the item it is applied to, so a kernel cannot read the bodies of the
//! functions it calls. Each `#[device] fn f` therefore expands to two things:
//! - `f` itself as ordinary Rust, type-checked against `phasegate::lang` like a kernel's copy
//!   (so rustc checks barrier-handle typestate across calls: a slot moved in, the next state
//!   returned), its result wrapped in `lang::Device` so that a call of an ordinary function
//!   from a kernel is a rustc error on the call (see `lang::device`);
//! - a hidden `macro_rules!` that hands `f`'s tokens, and those of every device function it
//!   calls, to a callback, re-exported under the name `f` in the macro namespace
//!   (`use __phasegate_device_f_… as f;`). A `use` of `f` from another module then brings
//!   the function and its tokens in together, and the macro is found by path wherever the
//!   function is (no textual-order dependence, no `#[macro_export]` name collisions: the
//!   `macro_rules!` name carries a hash of the function's source position).
//!
//! `#[kernel]` finds the calls in its body that are not kernel-language functions and expands
//! to a chain: the first callee's macro is invoked with the kernel's tokens, appends its own
//! bundle and invokes `__phasegate_step!`, which invokes the next callee's macro, and so on;
//! the last step lowers the kernel with all the bodies (see [`chain`]). A device function's
//! own callees are collected where it is defined (their names resolve in its module, not in
//! the kernel's), so its macro carries its whole call tree.

pub mod chain;
pub mod sig;

use crate::diag::Diagnostics;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Expr, ItemFn};

pub use sig::{ParamKind, RetKind, Signature};

/// A device function as a kernel's expansion sees it.
pub struct DeviceFn {
    /// Unique per definition: its source position and name.
    pub key: String,
    pub item: ItemFn,
    pub sig: Signature,
    /// The callee's key of each call in the body, by the call's path text.
    pub callees: HashMap<String, String>,
    /// The function's own expansion reported errors: calls of it are not checked again.
    pub poisoned: bool,
}

/// The device functions a kernel's expansion received, and which one each of its calls names.
#[derive(Default)]
pub struct DeviceTable {
    pub fns: HashMap<String, DeviceFn>,
    /// For the kernel's own body: the callee's key by the call's path text.
    pub roots: HashMap<String, String>,
}

impl DeviceTable {
    /// The device function a call in the body of `within` (a key; `None` for the kernel) names.
    pub fn resolve(&self, within: Option<&str>, path: &syn::Path) -> Option<&DeviceFn> {
        let text = path_text(path);
        let key = match within {
            None => self.roots.get(&text)?,
            Some(k) => self.fns.get(k)?.callees.get(&text)?,
        };
        self.fns.get(key)
    }
}

/// `helpers::tile` for `helpers::tile::<4>`: how calls name their callee, generics aside.
pub fn path_text(path: &syn::Path) -> String {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{lead}{}", names.join("::"))
}

/// The paths of the device functions a body calls (every call of a path that is not a
/// kernel-language function), once each, in order of first appearance, generics removed.
pub fn calls(block: &syn::Block) -> Vec<syn::Path> {
    struct Find(Vec<syn::Path>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
            if let Expr::Path(p) = &*call.func
                && p.qself.is_none()
                && !crate::builtins::is_function(&p.path)
            {
                let mut path = p.path.clone();
                for seg in &mut path.segments {
                    seg.arguments = syn::PathArguments::None;
                }
                if !self.0.iter().any(|q| path_text(q) == path_text(&path)) {
                    self.0.push(path);
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
        // Nested items are not in the language (the checker says so); their calls are not ours.
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut find = Find(Vec::new());
    find.visit_block(block);
    find.0
}

/// The key of a device function: where it is defined, and its name.
pub fn key_of(func: &ItemFn) -> String {
    let span = func.sig.ident.span();
    let at = span.start();
    format!(
        "{}:{}:{}:{}",
        span.file(),
        at.line,
        at.column,
        func.sig.ident
    )
}

/// `#[device] fn ...`.
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diag = Diagnostics::default();
    let krate = match crate::attr::parse_crate_only(attr) {
        Ok(k) => k,
        Err(e) => {
            diag.push(e);
            None
        }
    }
    .unwrap_or_else(|| syn::parse_quote!(::phasegate));
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let span = item
                .clone()
                .into_iter()
                .next()
                .map(|t| t.span())
                .unwrap_or_else(Span::call_site);
            let mut out = syn::Error::new(
                span,
                "#[device] applies to a function: `#[device] fn name(x: f32) -> f32 { ... }`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    // What is wrong with the body at every call is reported here, once; kernels then do not
    // check it again (its bundle says it is poisoned).
    if let Some(sig) = Signature::read(&func, &mut diag) {
        let mut checker = crate::check::Checker::new(&mut diag).lenient();
        checker.check_device(&sig, &func.block);
        let _ = checker.finish();
    }
    let callees = calls(&func.block);
    let own = func.sig.ident.to_string();
    for path in &callees {
        if path.get_ident().is_some_and(|i| *i == own) {
            diag.error(
                path.segments[0].ident.span(),
                format!("`{own}` calls itself (`{own}` -> `{own}`): device functions are inlined into the kernel's PTX, so they cannot recurse; write a loop"),
            );
        }
    }
    let copy = crate::shadow::device_copy(&func, &krate);
    let errors = diag.to_compile_errors();
    if diag.has_errors() || callees.is_empty() {
        let entry = chain::own_entry(&func, diag.has_errors(), &[]);
        let def = definition(&func, &krate, entry);
        return quote! { #copy #def #errors };
    }
    let first = chain::device_chain(&func, &krate, &callees);
    quote! { #copy #first }
}

/// The hidden `macro_rules!` that hands `bundle` on, and its re-export under the function's
/// name.
pub fn definition(func: &ItemFn, krate: &syn::Path, bundle: TokenStream) -> TokenStream {
    let name = &func.sig.ident;
    let mut hash = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&key_of(func), &mut hash);
    let mac = format_ident!(
        "__phasegate_device_{}_{:016x}",
        name,
        std::hash::Hasher::finish(&hash)
    );
    // A `macro_rules!` can be re-exported at most crate-wide.
    let vis = match &func.vis {
        syn::Visibility::Public(_) => quote!(pub(crate)),
        other => quote!(#other),
    };
    let misuse = format!(
        "`{name}` is a #[device] function: call it as a function inside a #[kernel] or another #[device] function"
    );
    quote! {
        #[doc(hidden)]
        macro_rules! #mac {
            (@phasegate_collect { $($state:tt)* }) => {
                #krate::__phasegate_step! { $($state)* { #bundle } }
            };
            ($($other:tt)*) => { ::core::compile_error!(#misuse); };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #mac as #name;
    }
}
