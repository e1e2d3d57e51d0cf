//! The callback chain that brings device functions' tokens to the expansion that needs them.
//!
//! State, as tokens passed from macro to macro:
//! `@kernel { attr } { item } [ pending paths ; ... ] ("path" { bundle })*` or
//! `@device { crate path } { item } [ ... ] ("path" { bundle })*`. `__phasegate_step!`
//! invokes the first pending path's macro with the state and the path's text; that macro (see
//! [`super::definition`]) appends its bundle and invokes `__phasegate_step!` again. When
//! nothing is pending, a kernel is expanded with every bundle, and a device function's macro
//! is defined with its own entry and its callees' bundles.
//!
//! A bundle is the entries `{ "key" ok|poisoned { item } [ "path" "key" ... ] }` of a device
//! function (first) and of every function it calls, directly or not.

use super::{DeviceFn, DeviceTable, Signature};
use crate::diag::Diagnostics;
use proc_macro2::{Delimiter, Group, Literal, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use std::collections::HashMap;
use syn::ItemFn;

/// The entry of `func`, whose body calls `callees` (path text, key).
pub fn own_entry(func: &ItemFn, poisoned: bool, callees: &[(String, String)]) -> TokenStream {
    let key = super::key_of(func);
    let flag = if poisoned {
        quote!(poisoned)
    } else {
        quote!(ok)
    };
    let pairs = callees.iter().map(|(p, k)| quote!(#p #k));
    quote!({ #key #flag { #func } [ #(#pairs)* ] })
}

/// `first! { @phasegate_collect { state "first" } }` for the pending paths.
fn invoke(head: TokenStream, pending: &[syn::Path], done: TokenStream) -> TokenStream {
    let Some((first, rest)) = pending.split_first() else {
        return TokenStream::new();
    };
    let text = super::path_text(first);
    let rest = rest.iter().map(|p| quote!(#p ;));
    quote! {
        #first! { @phasegate_collect { #head [ #(#rest)* ] #done #text } }
    }
}

/// The chain that defines `func`'s macro once its callees' bundles are in.
pub fn device_chain(func: &ItemFn, krate: &syn::Path, callees: &[syn::Path]) -> TokenStream {
    invoke(
        quote!(@device { #krate } { #func }),
        callees,
        TokenStream::new(),
    )
}

/// The chain that expands the kernel once its callees' bundles are in.
pub fn kernel_chain(attr: &TokenStream, item: &ItemFn, callees: &[syn::Path]) -> TokenStream {
    invoke(
        quote!(@kernel { #attr } { #item }),
        callees,
        TokenStream::new(),
    )
}

struct State {
    kernel: bool,
    /// The attribute's arguments (kernel) or the crate path (device).
    first: TokenStream,
    item: TokenStream,
    pending: Vec<syn::Path>,
    /// The collected bundles, by the path text that named them.
    done: Vec<(String, TokenStream)>,
}

fn malformed() -> TokenStream {
    syn::Error::new(
        Span::call_site(),
        "`__phasegate_step!` is internal to #[kernel] and #[device]; it is not called by hand",
    )
    .to_compile_error()
}

fn parse_state(input: TokenStream) -> Option<State> {
    let mut it = input.into_iter().peekable();
    match it.next()? {
        TokenTree::Punct(p) if p.as_char() == '@' => {}
        _ => return None,
    }
    let kernel = match it.next()? {
        TokenTree::Ident(i) if i == "kernel" => true,
        TokenTree::Ident(i) if i == "device" => false,
        _ => return None,
    };
    let brace = |t: Option<TokenTree>, d: Delimiter| match t {
        Some(TokenTree::Group(g)) if g.delimiter() == d => Some(g.stream()),
        _ => None,
    };
    let first = brace(it.next(), Delimiter::Brace)?;
    let item = brace(it.next(), Delimiter::Brace)?;
    let pending_tokens = brace(it.next(), Delimiter::Bracket)?;
    let pending = syn::parse::Parser::parse2(
        syn::punctuated::Punctuated::<syn::Path, syn::Token![;]>::parse_terminated,
        pending_tokens,
    )
    .ok()?
    .into_iter()
    .collect();
    let mut done = Vec::new();
    while let Some(t) = it.next() {
        let TokenTree::Literal(lit) = t else {
            return None;
        };
        let text = string_value(&lit)?;
        let bundle = brace(it.next(), Delimiter::Brace)?;
        done.push((text, bundle));
    }
    Some(State {
        kernel,
        first,
        item,
        pending,
        done,
    })
}

fn string_value(lit: &Literal) -> Option<String> {
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) => Some(s.value()),
        _ => None,
    }
}

struct Entry {
    key: String,
    poisoned: bool,
    item: TokenStream,
    callees: Vec<(String, String)>,
    tokens: TokenStream,
}

fn parse_entries(bundle: TokenStream) -> Option<Vec<Entry>> {
    let mut out = Vec::new();
    for t in bundle {
        let TokenTree::Group(g) = t else { return None };
        let tokens = TokenTree::Group(g.clone()).into_token_stream();
        let mut it = g.stream().into_iter();
        let key = match it.next()? {
            TokenTree::Literal(l) => string_value(&l)?,
            _ => return None,
        };
        let poisoned = match it.next()? {
            TokenTree::Ident(i) => i == "poisoned",
            _ => return None,
        };
        let item = match it.next()? {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => g.stream(),
            _ => return None,
        };
        let pairs = match it.next()? {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => g.stream(),
            _ => return None,
        };
        let mut callees = Vec::new();
        let mut p = pairs.into_iter();
        while let Some(a) = p.next() {
            let (TokenTree::Literal(a), Some(TokenTree::Literal(b))) = (a, p.next()) else {
                return None;
            };
            callees.push((string_value(&a)?, string_value(&b)?));
        }
        out.push(Entry {
            key,
            poisoned,
            item,
            callees,
            tokens,
        });
    }
    Some(out)
}

/// `__phasegate_step! { state }`.
pub fn step(input: TokenStream) -> TokenStream {
    let Some(state) = parse_state(input) else {
        return malformed();
    };
    if !state.pending.is_empty() {
        let head = if state.kernel {
            let (a, i) = (&state.first, &state.item);
            quote!(@kernel { #a } { #i })
        } else {
            let (k, i) = (&state.first, &state.item);
            quote!(@device { #k } { #i })
        };
        let done = state.done.iter().map(|(text, bundle)| {
            let g = Group::new(Delimiter::Brace, bundle.clone());
            quote!(#text #g)
        });
        return invoke(head, &state.pending, quote!(#(#done)*));
    }
    let Ok(item) = syn::parse2::<ItemFn>(state.item.clone()) else {
        return malformed();
    };
    let mut roots = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for (text, bundle) in state.done {
        let Some(list) = parse_entries(bundle) else {
            return malformed();
        };
        if let Some(root) = list.first() {
            roots.push((text, root.key.clone()));
        }
        for e in list {
            if !entries.iter().any(|x| x.key == e.key) {
                entries.push(e);
            }
        }
    }
    if state.kernel {
        let mut table = DeviceTable {
            roots: roots.into_iter().collect(),
            ..DeviceTable::default()
        };
        for e in entries {
            let Ok(func) = syn::parse2::<ItemFn>(e.item) else {
                return malformed();
            };
            // The function's own expansion reported its signature's errors.
            let mut quiet = Diagnostics::default();
            let sig = Signature::read(&func, &mut quiet);
            let poisoned = e.poisoned || sig.is_none();
            let sig = sig.unwrap_or_else(|| Signature {
                name: func.sig.ident.to_string(),
                consts: Vec::new(),
                params: Vec::new(),
                ret: super::RetKind::Unit,
            });
            table.fns.insert(
                e.key.clone(),
                DeviceFn {
                    key: e.key,
                    item: func,
                    sig,
                    callees: e.callees.into_iter().collect::<HashMap<_, _>>(),
                    poisoned,
                },
            );
        }
        return crate::expand::kernel_with(state.first, item, table);
    }
    let Ok(krate) = syn::parse2::<syn::Path>(state.first) else {
        return malformed();
    };
    let own = super::key_of(&item);
    let mut diag = Diagnostics::default();
    if entries.iter().any(|e| e.key == own) {
        diag.error(
            item.sig.ident.span(),
            format!(
                "`{}` calls itself through other device functions: device functions are inlined, so they cannot recurse",
                item.sig.ident
            ),
        );
    }
    let poisoned = diag.has_errors();
    let mut bundle = own_entry(&item, poisoned, &roots);
    for e in entries.iter().filter(|e| e.key != own) {
        bundle.extend(e.tokens.clone());
    }
    let def = super::definition(&item, &krate, bundle);
    let errors = diag.to_compile_errors();
    quote!(#def #errors)
}
