//! Calls of `#[device]` functions: each call checks its own copy of the callee's body with
//! the argument types and const-generic values of that call, as a template is instantiated.
//! The copy is what the lowering inlines at that call; its expressions have the types this
//! call gave them (a handle's shape, a shared array's length), whatever other calls give.

use super::{Binding, Checker, Slot};
use crate::device::{DeviceFn, ParamKind, RetKind, Signature};
use crate::types::{Handle, Prim, Ty};
use std::collections::HashMap;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument, PathArguments, Stmt};

/// One call's copy of a device function.
pub struct Instance {
    pub name: String,
    pub sig: Signature,
    pub block: syn::Block,
    /// The const parameters' values at this call.
    pub consts: Vec<(String, Prim, i128)>,
}

/// The device function being checked: what its `return`s give back.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    ret: usize,
    handle: bool,
}

impl Checker<'_> {
    /// Checks a device function's body where it is defined, for what is wrong at every call
    /// (with [`Checker::lenient`]): scalar and slice parameters have their types, shared
    /// arrays and handles an unknown one, const parameters their type and no value yet.
    pub fn check_device(&mut self, sig: &Signature, block: &syn::Block) {
        for c in &sig.consts {
            let var = self.known(Ty::Prim(c.prim));
            self.scopes[0].insert(c.name.clone(), Binding { var });
        }
        for p in &sig.params {
            let var = match &p.kind {
                ParamKind::Value(t) => self.known(*t),
                ParamKind::Slice { elem, mutable } => self.known(Ty::Global {
                    elem: *elem,
                    mutable: *mutable,
                }),
                ParamKind::FromArgument => self.fresh(Slot::Free),
            };
            self.scopes[0].insert(p.name.clone(), Binding { var });
        }
        let (ret, handle) = match &sig.ret {
            RetKind::Unit => (self.known(Ty::Unit), false),
            RetKind::Value(t) => (self.known(*t), false),
            RetKind::FromBody => (self.fresh(Slot::Free), true),
        };
        self.frame = Some(Frame { ret, handle });
        self.device_stack.push((String::new(), sig.name.clone()));
        let tail = self.block(block);
        if matches!(block.stmts.last(), Some(Stmt::Expr(_, None))) {
            let span = block
                .stmts
                .last()
                .map(|s| s.span())
                .unwrap_or_else(|| block.span());
            self.unify(ret, tail, span);
        }
    }

    pub(super) fn device_call(&mut self, call: &syn::ExprCall, path: &syn::ExprPath) -> usize {
        let args: Vec<usize> = call.args.iter().map(|a| self.operand(a)).collect();
        if let Some(name) = path.path.get_ident()
            && self.lookup(&name.to_string()).is_some()
        {
            self.diag.error(
                name.span(),
                format!("`{name}` is a value, not a function: a kernel calls the kernel language's functions and `#[device]` functions"),
            );
            return self.fresh(Slot::Free);
        }
        if self.lenient {
            return self.fresh(Slot::Free);
        }
        let within = self.device_stack.last().map(|(k, _)| k.as_str());
        let Some(f) = self.devices.and_then(|t| t.resolve(within, &path.path)) else {
            let text = crate::device::path_text(&path.path);
            self.diag.error(
                path.span(),
                format!("`{text}` is neither a kernel-language function nor a `#[device]` function; a kernel calls the functions of `phasegate::lang` and functions marked `#[device]`"),
            );
            return self.fresh(Slot::Free);
        };
        if f.poisoned {
            // Its own expansion reported what is wrong with it.
            self.poisoned = true;
            return self.fresh(Slot::Free);
        }
        if let Some(at) = self.device_stack.iter().position(|(k, _)| *k == f.key) {
            let mut cycle: Vec<String> = self.device_stack[at..]
                .iter()
                .map(|(_, n)| format!("`{n}`"))
                .collect();
            cycle.push(format!("`{}`", f.sig.name));
            self.diag.error(
                path.span(),
                format!(
                    "device functions cannot recurse (they are inlined): {}",
                    cycle.join(" -> ")
                ),
            );
            return self.fresh(Slot::Free);
        }
        let Some(consts) = self.const_args(f, path, &args) else {
            return self.fresh(Slot::Free);
        };
        let sig = &f.sig;
        if args.len() != sig.params.len() {
            self.diag.error(
                call.span(),
                format!(
                    "`{}` takes {} argument(s), found {}",
                    sig.name,
                    sig.params.len(),
                    args.len()
                ),
            );
            return self.fresh(Slot::Free);
        }
        let mut params = Vec::new();
        for ((p, &a), arg) in sig.params.iter().zip(&args).zip(&call.args) {
            let var = match &p.kind {
                ParamKind::Value(ty) => {
                    let v = self.known(*ty);
                    self.unify(v, a, arg.span());
                    v
                }
                ParamKind::Slice { elem, mutable } => {
                    match self.ty(a) {
                        Some(Ty::Global {
                            elem: e,
                            mutable: m,
                        }) if e == *elem && (m || !mutable) => {}
                        None => {}
                        Some(other) => {
                            let want = Ty::Global {
                                elem: *elem,
                                mutable: *mutable,
                            };
                            self.diag.error(
                                arg.span(),
                                format!("`{}` takes `{want}`, found `{other}`", p.name),
                            );
                        }
                    }
                    self.memory_by_name(arg);
                    a
                }
                ParamKind::FromArgument => {
                    match self.ty(a) {
                        Some(Ty::Shared { .. } | Ty::TensorMap(_)) => self.memory_by_name(arg),
                        Some(Ty::Handle(_)) | None => {}
                        Some(other) => self.diag.error(
                            arg.span(),
                            format!(
                                "`{}` takes a shared array, a tensor map or a barrier handle, found `{other}`",
                                p.name
                            ),
                        ),
                    }
                    a
                }
            };
            params.push((p.name.clone(), var));
        }
        let (ret, handle) = match &sig.ret {
            RetKind::Unit => (self.known(Ty::Unit), false),
            RetKind::Value(t) => (self.known(*t), false),
            RetKind::FromBody => (self.fresh(Slot::Free), true),
        };
        let instance = Rc::new(Instance {
            name: sig.name.clone(),
            sig: sig.clone(),
            block: (*f.item.block).clone(),
            consts: consts.clone(),
        });
        self.calls
            .insert(call as *const syn::ExprCall, instance.clone());

        // The body sees its parameters and const parameters only, and no loop of the caller.
        let scopes = std::mem::replace(&mut self.scopes, vec![HashMap::new()]);
        let outer_consts = std::mem::take(&mut self.consts);
        let loop_depth = std::mem::replace(&mut self.loop_depth, 0);
        let labels = std::mem::take(&mut self.labels);
        let frame = self.frame.replace(Frame { ret, handle });
        self.device_stack.push((f.key.clone(), sig.name.clone()));
        for (name, prim, value) in &consts {
            self.consts.insert(name.clone(), *value);
            let var = self.known(Ty::Prim(*prim));
            self.scopes[0].insert(name.clone(), Binding { var });
        }
        for (name, var) in params {
            self.scopes[0].insert(name, Binding { var });
        }
        let tail = self.block(&instance.block);
        let has_tail = matches!(instance.block.stmts.last(), Some(Stmt::Expr(_, None)));
        if has_tail || handle {
            let span = match instance.block.stmts.last() {
                Some(s) => s.span(),
                None => instance.block.span(),
            };
            self.unify(ret, tail, span);
        }
        self.device_stack.pop();
        self.frame = frame;
        self.labels = labels;
        self.loop_depth = loop_depth;
        self.consts = outer_consts;
        self.scopes = scopes;
        ret
    }

    /// `return;` / `return value;` in a device function.
    pub(super) fn device_return(&mut self, r: &syn::ExprReturn) {
        let Some(frame) = self.frame else {
            if let Some(value) = &r.expr {
                self.diag
                    .error(value.span(), "kernels return nothing; write `return;`");
            }
            return;
        };
        if frame.handle {
            self.diag.error(r.span(), "a device function that returns a barrier handle gives it back as its last expression, not with `return`");
            return;
        }
        let v = match &r.expr {
            Some(value) => self.operand(value),
            None => self.known(Ty::Unit),
        };
        let span = r
            .expr
            .as_ref()
            .map(|e| e.span())
            .unwrap_or_else(|| r.span());
        self.unify(frame.ret, v, span);
    }

    /// Whether shared memory or barriers may be declared here: in a kernel, not in a device
    /// function (an inlined declaration would be a new allocation at every call).
    pub(super) fn declares_memory(&mut self, span: proc_macro2::Span, what: &str) {
        if let Some((_, name)) = self.device_stack.last() {
            let name = name.clone();
            self.diag.error(span, format!("`{what}` declares shared memory, which the device function `{name}` cannot (it would be a new allocation at every call); declare it in the kernel and pass it in"));
        }
    }

    /// The values of a call's const-generic arguments: its turbofish, else inferred from
    /// `args`.
    fn const_args(
        &mut self,
        f: &DeviceFn,
        path: &syn::ExprPath,
        args: &[usize],
    ) -> Option<Vec<(String, Prim, i128)>> {
        let last = path.path.segments.last()?;
        let given: Vec<&GenericArgument> = match &last.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().collect(),
            PathArguments::None => Vec::new(),
            PathArguments::Parenthesized(p) => {
                self.diag.error(
                    p.span(),
                    "a device function's const arguments go in a turbofish: `tile::<4>(...)`",
                );
                return None;
            }
        };
        let consts = &f.sig.consts;
        if given.is_empty() && !consts.is_empty() {
            return self.infer_consts(f, args, last.span());
        }
        if given.len() != consts.len() {
            let names: Vec<String> = consts.iter().map(|c| format!("`{}`", c.name)).collect();
            let message = if consts.is_empty() {
                format!(
                    "`{}` has no const parameters; call it without a turbofish",
                    f.sig.name
                )
            } else {
                format!(
                    "`{}` takes {} const argument(s) ({}) in a turbofish, found {}: `{}::<{}>(...)`",
                    f.sig.name,
                    consts.len(),
                    names.join(", "),
                    given.len(),
                    f.sig.name,
                    vec!["4"; consts.len()].join(", ")
                )
            };
            self.diag.error(last.span(), message);
            return None;
        }
        let mut out = Vec::new();
        for (c, g) in consts.iter().zip(given) {
            let value = match g {
                GenericArgument::Const(e) => crate::params::eval(e, &self.consts),
                GenericArgument::Type(syn::Type::Path(p)) => p
                    .path
                    .get_ident()
                    .and_then(|i| self.consts.get(&i.to_string()).copied()),
                _ => None,
            };
            let Some(value) = value else {
                self.diag.error(g.span(), format!("the const argument `{}` must be known at compile time: a literal, a kernel `const`, a const parameter, or `{{ ... }}` of those", c.name));
                return None;
            };
            let (lo, hi): (i128, i128) = match c.prim {
                Prim::U32 => (0, u32::MAX as i128),
                Prim::I32 => (i32::MIN as i128, i32::MAX as i128),
                Prim::U64 => (0, u64::MAX as i128),
                Prim::I64 => (i64::MIN as i128, i64::MAX as i128),
                _ => (0, 1),
            };
            if value < lo || value > hi {
                self.diag.error(
                    g.span(),
                    format!("{value} does not fit the const parameter `{}`", c.name),
                );
                return None;
            }
            out.push((c.name.clone(), c.prim, value));
        }
        Some(out)
    }

    /// Const parameters inferred from the arguments' types, as rustc infers them: a shared
    /// array's length (`SharedArray<f32, N>`), a pipeline handle's shape
    /// (`ConsumerSlot<'_, T, STAGES, TILE>`).
    fn infer_consts(
        &mut self,
        f: &DeviceFn,
        args: &[usize],
        span: proc_macro2::Span,
    ) -> Option<Vec<(String, Prim, i128)>> {
        let mut found: HashMap<String, i128> = HashMap::new();
        for (p, &a) in f.sig.params.iter().zip(args) {
            let values: Vec<Option<u64>> = match self.ty(a) {
                Some(Ty::Shared { len, .. }) => vec![None, Some(len)],
                Some(Ty::Handle(
                    Handle::Pipeline(s)
                    | Handle::Producer(s)
                    | Handle::ProducerSlot(s)
                    | Handle::Consumer(s)
                    | Handle::ConsumerSlot(s),
                )) => vec![None, Some(s.stages as u64), Some(s.tile as u64)],
                _ => Vec::new(),
            };
            for (k, name) in &p.const_args {
                if let Some(Some(v)) = values.get(*k) {
                    found.entry(name.clone()).or_insert(*v as i128);
                }
            }
        }
        let mut out = Vec::new();
        for c in &f.sig.consts {
            match found.get(&c.name) {
                Some(v) => out.push((c.name.clone(), c.prim, *v)),
                None => {
                    self.diag.error(
                        span,
                        format!(
                            "cannot infer the const parameter `{}` of `{}` from the arguments; give the const arguments in a turbofish: `{}::<{}>(...)`",
                            c.name,
                            f.sig.name,
                            f.sig.name,
                            vec!["4"; f.sig.consts.len()].join(", ")
                        ),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Memory passes to a device function by its name (`x`, `&mut tiles`): the inlined body
    /// uses the caller's binding.
    fn memory_by_name(&mut self, arg: &Expr) {
        let mut e = arg;
        loop {
            match e {
                Expr::Reference(r) => e = &r.expr,
                Expr::Paren(p) => e = &p.expr,
                Expr::Group(g) => e = &g.expr,
                Expr::Path(p) if p.path.get_ident().is_some() => return,
                _ => {
                    self.diag.error(arg.span(), "pass a slice, shared array or tensor map to a device function by its name: `x`, `&mut tile`, `&map`");
                    return;
                }
            }
        }
    }
}
