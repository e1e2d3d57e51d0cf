//! The callback chain that brings device functions' tokens to the kernel that calls them.
//!
//! State, as tokens passed from macro to macro:
//! `@kernel { attr } { item } [ pending* ] done*`, where a pending call is
//! `( path ) "caller" "name"` (the path its macro is reached by from the kernel's module, the
//! key of the device function whose body makes the call or `""` for the kernel, and the call's
//! path as written) and a done one is the same followed by the callee's entry. Each step
//! invokes the first pending path's macro with the state and that call; the macro (see
//! [`super::definition`]) appends its entry and invokes `__phasegate_step!` again. A new entry's
//! own calls are queued by the path of its alias module (`path::c0`, `path::c1`, ...): they
//! resolve where the device function is defined, whatever module the kernel is in. An entry
//! reached again (a function called from two places, or recursion) is not followed again, so
//! the chain ends; the kernel's checker then names any cycle. With nothing pending the step
//! hands the kernel and the [`DeviceTable`] of every entry back ([`Step::Collected`]), and the
//! expansion checks and lowers the kernel with it.
//!
//! The chain ends in data, not in a call of the expansion, so that the device stage comes
//! before the stages that use its table (check, lower, expand) and needs nothing of theirs.
//!
//! An entry is `{ "key" ok|poisoned { item } [ "callee path" ... ] }`.

use super::{DeviceFn, DeviceTable, Signature};
use crate::diag::Diagnostics;
use proc_macro2::{Delimiter, Group, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use std::collections::HashMap;
use syn::ItemFn;

/// The entry of `func`, whose body calls `callees` (in the order of its alias module).
pub fn own_entry(func: &ItemFn, poisoned: bool, callees: &[syn::Path]) -> TokenStream {
    let key = super::key_of(func);
    let flag = if poisoned {
        quote!(poisoned)
    } else {
        quote!(ok)
    };
    let names = callees.iter().map(super::path_text);
    quote!({ #key #flag { #func } [ #(#names)* ] })
}

/// What one step of the chain leaves to the expansion.
pub enum Step {
    /// Tokens to emit as they are: the next callee's macro call, or the error of a malformed
    /// state.
    Emit(TokenStream),
    /// Every entry is in: the kernel to expand with its device functions.
    Collected(Box<Collected>),
}

/// A kernel whose device functions' entries have all come in.
pub struct Collected {
    /// The kernel's `#[kernel(...)]` arguments.
    pub attr: TokenStream,
    pub item: ItemFn,
    pub devices: DeviceTable,
}

/// A call whose callee's entry is wanted.
struct Call {
    path: TokenStream,
    caller: String,
    name: String,
}

impl Call {
    fn tokens(&self) -> TokenStream {
        let (path, caller, name) = (&self.path, &self.caller, &self.name);
        let g = Group::new(Delimiter::Parenthesis, path.clone());
        quote!(#g #caller #name)
    }
}

/// The chain that expands the kernel once its callees' entries are in.
pub fn kernel_chain(attr: &TokenStream, item: &ItemFn, callees: &[syn::Path]) -> TokenStream {
    let pending: Vec<Call> = callees
        .iter()
        .map(|p| Call {
            path: quote!(#p),
            caller: String::new(),
            name: super::path_text(p),
        })
        .collect();
    invoke(&quote!({ #attr } { #item }), &pending, &TokenStream::new())
}

/// `first! { @phasegate_collect { @kernel ... [rest] done first-call } }`.
fn invoke(head: &TokenStream, pending: &[Call], done: &TokenStream) -> TokenStream {
    let Some((first, rest)) = pending.split_first() else {
        return TokenStream::new();
    };
    let rest = rest.iter().map(Call::tokens);
    let call = first.tokens();
    let path = &first.path;
    quote! {
        #path! { @phasegate_collect { @kernel #head [ #(#rest)* ] #done #call } }
    }
}

fn malformed() -> TokenStream {
    syn::Error::new(
        Span::call_site(),
        "`__phasegate_step!` is internal to #[kernel] and #[device]; it is not called by hand",
    )
    .to_compile_error()
}

struct Entry {
    key: String,
    poisoned: bool,
    item: TokenStream,
    callees: Vec<String>,
}

fn string(t: Option<TokenTree>) -> Option<String> {
    match t? {
        TokenTree::Literal(l) => string_value(&l),
        _ => None,
    }
}

fn string_value(lit: &Literal) -> Option<String> {
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) => Some(s.value()),
        _ => None,
    }
}

fn group(t: Option<TokenTree>, d: Delimiter) -> Option<TokenStream> {
    match t? {
        TokenTree::Group(g) if g.delimiter() == d => Some(g.stream()),
        _ => None,
    }
}

fn parse_entry(tokens: TokenStream) -> Option<Entry> {
    let mut it = tokens.into_iter();
    let key = string(it.next())?;
    let poisoned = match it.next()? {
        TokenTree::Ident(i) => i == "poisoned",
        _ => return None,
    };
    let item = group(it.next(), Delimiter::Brace)?;
    let callees = group(it.next(), Delimiter::Bracket)?
        .into_iter()
        .map(|t| string(Some(t)))
        .collect::<Option<Vec<_>>>()?;
    Some(Entry {
        key,
        poisoned,
        item,
        callees,
    })
}

/// Calls `( path ) "caller" "name"`, each followed by an entry if `with_entries`.
fn parse_calls(
    it: &mut impl Iterator<Item = TokenTree>,
    with_entries: bool,
) -> Option<Vec<(Call, Option<Entry>)>> {
    let mut out = Vec::new();
    while let Some(t) = it.next() {
        let path = group(Some(t), Delimiter::Parenthesis)?;
        let caller = string(it.next())?;
        let name = string(it.next())?;
        let entry = if with_entries {
            Some(parse_entry(group(it.next(), Delimiter::Brace)?)?)
        } else {
            None
        };
        out.push((Call { path, caller, name }, entry));
    }
    Some(out)
}

/// `__phasegate_step! { state }`: the next callee's macro call while calls are pending, then
/// the kernel with its device table.
pub fn step(input: TokenStream) -> Step {
    let mut it = input.into_iter();
    let head_ok = matches!(it.next(), Some(TokenTree::Punct(p)) if p.as_char() == '@')
        && matches!(it.next(), Some(TokenTree::Ident(i)) if i == "kernel");
    let (Some(attr), Some(item), Some(pending)) = (
        group(it.next(), Delimiter::Brace),
        group(it.next(), Delimiter::Brace),
        group(it.next(), Delimiter::Bracket),
    ) else {
        return Step::Emit(malformed());
    };
    let (Some(pending), Some(done)) = (
        parse_calls(&mut pending.into_iter(), false),
        parse_calls(&mut it, true),
    ) else {
        return Step::Emit(malformed());
    };
    if !head_ok {
        return Step::Emit(malformed());
    }
    let mut pending: Vec<Call> = pending.into_iter().map(|(c, _)| c).collect();
    // The newest entry's own calls, unless its function was reached before.
    if let Some((call, Some(entry))) = done.last() {
        let seen = done[..done.len() - 1]
            .iter()
            .any(|(_, e)| e.as_ref().is_some_and(|e| e.key == entry.key));
        if !seen {
            for (k, name) in entry.callees.iter().enumerate() {
                let alias = format_ident!("c{}", k);
                let path = &call.path;
                pending.push(Call {
                    path: quote!(#path :: #alias),
                    caller: entry.key.clone(),
                    name: name.clone(),
                });
            }
        }
    }
    if !pending.is_empty() {
        let done_tokens: TokenStream = done
            .iter()
            .map(|(call, entry)| {
                let e = entry.as_ref().map(entry_tokens).unwrap_or_default();
                let c = call.tokens();
                quote!(#c #e)
            })
            .collect();
        return Step::Emit(invoke(&quote!({ #attr } { #item }), &pending, &done_tokens));
    }
    let Ok(item) = syn::parse2::<ItemFn>(item) else {
        return Step::Emit(malformed());
    };
    let mut table = DeviceTable::default();
    let mut callees: HashMap<String, HashMap<String, String>> = HashMap::new();
    for (call, entry) in done {
        let Some(entry) = entry else {
            return Step::Emit(malformed());
        };
        if call.caller.is_empty() {
            table.roots.insert(call.name.clone(), entry.key.clone());
        } else {
            callees
                .entry(call.caller.clone())
                .or_default()
                .insert(call.name.clone(), entry.key.clone());
        }
        if table.fns.contains_key(&entry.key) {
            continue;
        }
        let Ok(func) = syn::parse2::<ItemFn>(entry.item) else {
            return Step::Emit(malformed());
        };
        // The function's own expansion reported its signature's errors.
        let mut quiet = Diagnostics::default();
        let sig = Signature::read(&func, &mut quiet);
        let poisoned = entry.poisoned || sig.is_none();
        let sig = sig.unwrap_or_else(|| Signature {
            name: func.sig.ident.to_string(),
            consts: Vec::new(),
            params: Vec::new(),
            ret: super::RetKind::Unit,
        });
        table.fns.insert(
            entry.key.clone(),
            DeviceFn {
                key: entry.key,
                item: func,
                sig,
                callees: HashMap::new(),
                poisoned,
            },
        );
    }
    for (key, map) in callees {
        if let Some(f) = table.fns.get_mut(&key) {
            f.callees = map;
        }
    }
    Step::Collected(Box::new(Collected {
        attr,
        item,
        devices: table,
    }))
}

fn entry_tokens(e: &Entry) -> TokenStream {
    let (key, item) = (&e.key, &e.item);
    let flag = if e.poisoned {
        quote!(poisoned)
    } else {
        quote!(ok)
    };
    let names = &e.callees;
    quote!({ #key #flag { #item } [ #(#names)* ] })
}
