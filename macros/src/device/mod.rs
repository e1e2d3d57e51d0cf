//! The device table: the `#[device]` functions a kernel calls (ordinary Rust functions,
//! inlined into the kernel's PTX), brought to the kernel's expansion as a [`DeviceTable`].
//!
//! A proc macro sees only the item it is applied to, so a kernel cannot read the bodies of the
//! functions it calls. Each `#[device] fn f` therefore expands to:
//! - `f` itself as ordinary Rust, type-checked against `phasegate::lang` like a kernel's copy
//!   (so rustc checks barrier-handle typestate across calls: a slot moved in, the next state
//!   returned), its result wrapped in `lang::Device` so that a call of an ordinary function
//!   from a kernel is a rustc error on the call (see `lang::device`);
//! - a hidden module (its name carries a hash of the function's source position) holding a
//!   `macro_rules!` that hands `f`'s tokens to a callback, and aliases of the device functions
//!   `f` calls, resolved in `f`'s module. The macro and the module are re-exported under the
//!   name `f` (macro and type namespaces; the function has the value namespace), so a `use` of
//!   `f` from another module brings all three, the macro is found by path wherever the function
//!   is (no textual-order dependence, no `#[macro_export]` name collisions), and `f::c0!` is
//!   the macro of `f`'s first callee from anywhere.
//!
//! `#[kernel]` finds the calls in its body that are not kernel-language functions and expands
//! to a chain: the first callee's macro is invoked with the kernel's tokens, appends its entry
//! and invokes `__phasegate_step!`, which queues the entry's own callees and invokes the next
//! macro, and so on; the last step hands the kernel and all the bodies, as a [`DeviceTable`],
//! to the expansion, which checks and lowers the kernel with them (see [`chain`]). Nothing
//! waits for anything else's expansion, so recursion through several device functions ends
//! the chain too, and the checker names the cycle.
//!
//! This module is the pipeline's second stage: it reads the function items and their
//! signatures, and produces the table and the tokens that carry it. Checking a body and
//! emitting its Rust copy are later stages' work; `expand` runs them for `#[device]` as for
//! `#[kernel]`, so this stage imports none of them.

pub mod chain;
pub mod sig;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
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

/// The hidden items that make `f`'s tokens reachable by the name `f`: a `macro_rules!` that
/// hands its entry (see [`chain`]) to the callback, and a module of aliases of its callees
/// (`c0`, `c1`, ... in the order of [`calls`]), resolved here, in `f`'s module, where its body
/// names them. Both are re-exported as `f` (the macro and type namespaces; the function is in
/// the value namespace), so `f::c0!` is the first callee's macro wherever `f` can be named.
pub fn definition(
    func: &ItemFn,
    krate: &syn::Path,
    poisoned: bool,
    callees: &[syn::Path],
) -> TokenStream {
    let name = &func.sig.ident;
    let mut hash = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&key_of(func), &mut hash);
    let hash = std::hash::Hasher::finish(&hash);
    let mac = format_ident!("__phasegate_device_{}", name);
    let module = format_ident!("__phasegate_callees_{}_{:016x}", name, hash);
    let bundle = chain::own_entry(func, poisoned, callees);
    let aliases = callees.iter().enumerate().map(|(k, path)| {
        let alias = format_ident!("c{}", k);
        let from = from_child(path);
        // The callee's module (for its own callees' aliases) and its macro.
        // On the call's tokens: a callee that is not a device function is an error there.
        let span = path
            .segments
            .last()
            .map(|s| s.ident.span())
            .unwrap_or_else(Span::call_site);
        quote_spanned!(span=> pub(crate) use #from::{self as #alias, this as #alias};)
    });
    let misuse = format!(
        "`{name}` is a #[device] function: call it as a function inside a #[kernel] or another #[device] function"
    );
    // The macro lives in the hidden module, so its name is that module's alone, and the
    // function's module needs no path to it but the module's (which also works for a device
    // function declared inside a function body). Everything is crate-wide whatever the
    // function's visibility (a `macro_rules!` can be re-exported no further): the function
    // itself keeps its own, and rustc enforces it at calls.
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, non_camel_case_types, unused_imports, unused_macros)]
        pub(crate) mod #module {
            macro_rules! #mac {
                (@phasegate_collect { $($state:tt)* }) => {
                    #krate::__phasegate_step! { $($state)* #bundle }
                };
                ($($other:tt)*) => { ::core::compile_error!(#misuse); };
            }
            pub(crate) use #mac as this;
            #(#aliases)*
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #module::this as #name;
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #module as #name;
    }
}

/// `path` as the callee module (a child of the function's module) names it: `super::tile`
/// for `tile`, `super::super::x` for `super::x`; crate-rooted paths stay.
fn from_child(path: &syn::Path) -> TokenStream {
    let first = path.segments.first().map(|s| s.ident.to_string());
    let span = path
        .segments
        .first()
        .map(|s| s.ident.span())
        .unwrap_or_else(Span::call_site);
    match first.as_deref() {
        _ if path.leading_colon.is_some() => quote!(#path),
        Some("crate") => quote!(#path),
        Some("self") => {
            let rest = path.segments.iter().skip(1);
            quote_spanned!(span=> super #(:: #rest)*)
        }
        _ => quote_spanned!(span=> super::#path),
    }
}
