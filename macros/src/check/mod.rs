//! The checker: decides whether a body is in the kernel language and gives every expression
//! its type, before anything is lowered.
//!
//! Syntax outside the language is reported here, once, on the user's tokens, with what the
//! language offers instead. Types are inferred by unification the way rustc infers them on
//! this subset (untyped integer literals default to `i32`, float literals to `f64`), so that
//! the PTX agrees with the ordinary-Rust copy that rustc checks.

mod attention;
mod device;
mod inflight;
mod registers;
mod split;
mod sync;
mod tma;
mod wgmma;

pub use registers::{RegisterBudget, RegisterRole, check_roles};

pub use device::Instance;
pub use inflight::stage_releases;

use crate::builtins::{self, Builtin, MethodKind, SyncFn};
use crate::diag::Diagnostics;
use crate::params::const_usize;
use crate::types::{Elem, Handle, Prim, Ty};
use std::collections::HashMap;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, Pat, Stmt, UnOp};

/// What an array literal may be: a vector moved in one access.
const ARRAY_SHAPES: &str = "array values are vectors moved in one access: [T; 2] or [T; 4] of 32-bit T, [T; 2] of 64-bit T, [T; 2], [T; 4] or [T; 8] of f16 or bf16, [T; 2], [T; 4], [T; 8] or [T; 16] of fp8; annotate the element type if needed (`[1.0f32, ...]`)";

/// The resolved type of every checked expression, keyed by the expression's address in the
/// syntax tree (which lives, unmoved, for the whole expansion).
#[derive(Default)]
pub struct Types {
    map: HashMap<*const Expr, Ty>,
    /// `warpgroup_registers` calls, checked against the kernel's attributes.
    pub register_budgets: Vec<RegisterBudget>,
    /// `release` / `claim` sites.
    pub register_roles: Vec<RegisterRole>,
    /// `pipeline_cluster` calls and their CTA counts, checked against the kernel's cluster.
    pub cluster_pipelines: Vec<(proc_macro2::Span, u32)>,
    /// The copy of the callee's body each device-function call inlines.
    calls: HashMap<*const syn::ExprCall, Rc<Instance>>,
    /// `wait::<K>()`'s `K`, by call.
    wait_counts: HashMap<*const syn::ExprMethodCall, u32>,
    /// A device function called here had errors of its own: nothing is lowered.
    poisoned: bool,
}

impl Types {
    pub fn instance(&self, call: &syn::ExprCall) -> Option<Rc<Instance>> {
        self.calls.get(&(call as *const syn::ExprCall)).cloned()
    }
    pub fn poisoned(&self) -> bool {
        self.poisoned
    }
    /// The groups `wait::<K>()` leaves in flight, where `K` is a constant the checker read.
    pub fn wait_count(&self, m: &syn::ExprMethodCall) -> Option<u32> {
        self.wait_counts
            .get(&(m as *const syn::ExprMethodCall))
            .copied()
    }
    pub fn of(&self, e: &Expr) -> Ty {
        self.map
            .get(&(e as *const Expr))
            .copied()
            .unwrap_or(Ty::Unit)
    }
}

#[derive(Clone, Copy, Debug)]
enum Slot {
    Link(usize),
    Known(Ty),
    /// An integer literal's type, not yet known.
    Int,
    /// A float literal's type, not yet known.
    Float,
    /// Nothing known (e.g. the result of an error).
    Free,
}

/// A named value in scope.
#[derive(Clone, Copy)]
pub struct Binding {
    var: usize,
}

pub struct Checker<'d> {
    slots: Vec<Slot>,
    exprs: Vec<(*const Expr, usize)>,
    scopes: Vec<HashMap<String, Binding>>,
    loop_depth: usize,
    labels: Vec<String>,
    /// Values of the kernel's integer `const` items, for array lengths.
    consts: HashMap<String, i128>,
    register_budgets: Vec<RegisterBudget>,
    register_roles: Vec<RegisterRole>,
    cluster_pipelines: Vec<(proc_macro2::Span, u32)>,
    diag: &'d mut Diagnostics,
    /// The device functions the kernel's expansion received.
    devices: Option<&'d crate::device::DeviceTable>,
    /// The device functions being checked, innermost last: (key, name).
    device_stack: Vec<(String, String)>,
    frame: Option<device::Frame>,
    calls: HashMap<*const syn::ExprCall, Rc<Instance>>,
    wait_counts: HashMap<*const syn::ExprMethodCall, u32>,
    poisoned: bool,
    /// Checking without the device functions' bodies or a device function's argument types
    /// (see [`Checker::lenient`]).
    lenient: bool,
}

impl<'d> Checker<'d> {
    pub fn new(diag: &'d mut Diagnostics) -> Self {
        Checker {
            slots: Vec::new(),
            exprs: Vec::new(),
            scopes: vec![HashMap::new()],
            loop_depth: 0,
            labels: Vec::new(),
            consts: HashMap::new(),
            register_budgets: Vec::new(),
            register_roles: Vec::new(),
            cluster_pipelines: Vec::new(),
            diag,
            devices: None,
            device_stack: Vec::new(),
            frame: None,
            calls: HashMap::new(),
            wait_counts: HashMap::new(),
            poisoned: false,
            lenient: false,
        }
    }

    /// Checks what can be checked before the device functions' bodies are known: calls of
    /// device functions give values of unknown type, and a value of unknown type (a device
    /// function's shared-array or handle parameter) takes any method; a generic argument naming
    /// a const parameter is not yet a number. What this finds is wrong whatever the calls and
    /// arguments are, so it is reported once: for a kernel before its device functions are
    /// collected, for a device function where it is defined.
    pub fn lenient(mut self) -> Self {
        self.lenient = true;
        self
    }

    /// The device functions calls may name.
    pub fn with_devices(mut self, devices: &'d crate::device::DeviceTable) -> Self {
        self.devices = Some(devices);
        self
    }

    /// Binds a kernel parameter; `None` for a parameter whose type was already reported, so
    /// that its uses raise no further errors.
    pub fn bind_param(&mut self, name: &str, ty: Option<Ty>) {
        let var = match ty {
            Some(ty) => self.known(ty),
            None => self.fresh(Slot::Free),
        };
        self.scopes[0].insert(name.to_string(), Binding { var });
    }

    pub fn check_body(&mut self, block: &syn::Block) {
        self.block(block);
    }

    /// Resolves every recorded expression, defaulting literals as rustc does.
    pub fn finish(mut self) -> Types {
        let mut types = Types {
            calls: std::mem::take(&mut self.calls),
            wait_counts: std::mem::take(&mut self.wait_counts),
            poisoned: self.poisoned,
            ..Types::default()
        };
        let exprs = std::mem::take(&mut self.exprs);
        for (ptr, var) in exprs {
            let ty = match self.resolve(var) {
                Slot::Known(t) => t,
                Slot::Int => Ty::Prim(Prim::I32),
                Slot::Float => Ty::Prim(Prim::F64),
                _ => Ty::Unit,
            };
            types.map.insert(ptr, ty);
        }
        types.register_budgets = std::mem::take(&mut self.register_budgets);
        types.register_roles = std::mem::take(&mut self.register_roles);
        types.cluster_pipelines = std::mem::take(&mut self.cluster_pipelines);
        types
    }

    fn fresh(&mut self, slot: Slot) -> usize {
        self.slots.push(slot);
        self.slots.len() - 1
    }
    fn known(&mut self, ty: Ty) -> usize {
        self.fresh(Slot::Known(ty))
    }
    fn root(&mut self, mut v: usize) -> usize {
        while let Slot::Link(next) = self.slots[v] {
            v = next;
        }
        v
    }
    fn resolve(&mut self, v: usize) -> Slot {
        let r = self.root(v);
        self.slots[r]
    }
    /// The type of `v` if it is known now.
    fn ty(&mut self, v: usize) -> Option<Ty> {
        match self.resolve(v) {
            Slot::Known(t) => Some(t),
            _ => None,
        }
    }

    /// Makes `a` and `b` one type; reports a mismatch at `span`.
    fn unify(&mut self, a: usize, b: usize, span: proc_macro2::Span) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra == rb {
            return;
        }
        let merged = match (self.slots[ra], self.slots[rb]) {
            (Slot::Free, other) | (other, Slot::Free) => Some(other),
            (Slot::Int, Slot::Int) => Some(Slot::Int),
            (Slot::Float, Slot::Float) => Some(Slot::Float),
            (Slot::Int, Slot::Known(Ty::Prim(p))) | (Slot::Known(Ty::Prim(p)), Slot::Int)
                if p.is_int() =>
            {
                Some(Slot::Known(Ty::Prim(p)))
            }
            (Slot::Float, Slot::Known(Ty::Prim(p))) | (Slot::Known(Ty::Prim(p)), Slot::Float)
                if p.is_float() =>
            {
                Some(Slot::Known(Ty::Prim(p)))
            }
            (Slot::Known(x), Slot::Known(y)) if x == y => Some(Slot::Known(x)),
            _ => None,
        };
        match merged {
            Some(slot) => {
                self.slots[ra] = slot;
                self.slots[rb] = Slot::Link(ra);
            }
            None => {
                let (x, y) = (self.describe(ra), self.describe(rb));
                // A literal where a storage float is expected: say how to write one.
                let hint = match (self.slots[ra], self.slots[rb]) {
                    (Slot::Known(Ty::Prim(p)), Slot::Int | Slot::Float)
                    | (Slot::Int | Slot::Float, Slot::Known(Ty::Prim(p)))
                        if p.is_narrow() =>
                    {
                        format!("; `{p}` has no literals: convert one (`1.0f32 as {p}`)")
                    }
                    _ => String::new(),
                };
                self.diag.error(
                    span,
                    format!("mismatched types in kernel: expected `{x}`, found `{y}`{hint}"),
                );
            }
        }
    }

    fn describe(&mut self, v: usize) -> String {
        match self.resolve(v) {
            Slot::Known(t) => t.to_string(),
            Slot::Int => "{integer}".into(),
            Slot::Float => "{float}".into(),
            _ => "_".into(),
        }
    }

    fn expect_prim(
        &mut self,
        v: usize,
        span: proc_macro2::Span,
        want: impl Fn(Prim) -> bool,
        what: &str,
    ) {
        match self.resolve(v) {
            Slot::Known(Ty::Prim(p)) if want(p) => {}
            Slot::Int if want(Prim::I32) || want(Prim::U32) => {}
            Slot::Float if want(Prim::F32) => {}
            Slot::Free => {}
            _ => {
                let found = self.describe(v);
                self.diag
                    .error(span, format!("expected {what}, found `{found}`"));
            }
        }
    }

    /// Reports arithmetic on a storage float (`f16`, `bf16`, fp8) and says so: the kernel
    /// language computes in f32, where every one of them converts exactly.
    fn narrow_arith(&mut self, v: usize, span: proc_macro2::Span) -> bool {
        let Some(Ty::Prim(p)) = self.ty(v) else {
            return false;
        };
        if !p.is_narrow() {
            return false;
        }
        self.diag.error(
            span,
            format!("arithmetic on `{p}` is not in the kernel language: `{p}` is a storage type; convert to f32 (`x as f32`, exact), compute, and convert the result back (`y as {p}`, rounding to nearest even)"),
        );
        true
    }

    /// The conversions `as` has for the storage floats. Every narrow float converts exactly to
    /// f32; to a narrow float, PTX converts to fp8 from f32 only (`cvt.rn.satfinite.e4m3x2.f32`),
    /// so an fp8 result from f64 or an integer would round twice: the kernel spells that out.
    fn narrow_cast(&mut self, from: usize, to: Prim, c: &syn::ExprCast) {
        let from = match self.resolve(from) {
            Slot::Known(Ty::Prim(p)) => p,
            Slot::Int => Prim::I32,
            Slot::Float => Prim::F64,
            _ => return,
        };
        if from == Prim::Bool && to.is_narrow() {
            self.diag.error(
                c.span(),
                format!("casts from `bool` to `{to}` are not in Rust; use `if`"),
            );
        } else if to.is_fp8() && !from.is_narrow() && from != Prim::F32 {
            self.diag.error(
                c.span(),
                format!("PTX converts to `{to}` from f32 only, and `{from}` to f32 may round; convert through f32 explicitly: `x as f32 as {to}`"),
            );
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn record(&mut self, e: &Expr, var: usize) -> usize {
        self.exprs.push((e as *const Expr, var));
        var
    }

    fn block(&mut self, block: &syn::Block) -> usize {
        self.scopes.push(HashMap::new());
        // Items of a block are visible in all of it, as in Rust.
        for stmt in &block.stmts {
            if let Stmt::Item(syn::Item::Const(c)) = stmt {
                self.const_item(c);
            }
        }
        let mut last = self.known(Ty::Unit);
        for (i, stmt) in block.stmts.iter().enumerate() {
            let tail = i + 1 == block.stmts.len();
            last = self.known(Ty::Unit);
            match stmt {
                Stmt::Local(local) => self.local(local),
                Stmt::Item(syn::Item::Const(_)) => {}
                Stmt::Item(item) => self.diag.error(
                    item.span(),
                    "items other than `const` are not in the kernel language; move them outside the kernel",
                ),
                Stmt::Expr(e, semi) => {
                    let v = self.expr(e);
                    if let Some(Ty::MapEdit(_)) = self.ty(v) {
                        self.diag.error(
                            last_method(e),
                            "this map edit is never released, so no tensor copy may read it; end the chain with `.release()` (`fence.proxy.tensormap::generic.release`, PTX ISA §9.7.13.4)",
                        );
                    }
                    if tail && semi.is_none() {
                        last = v;
                    }
                }
                Stmt::Macro(m) => self.macro_error(&m.mac),
            }
        }
        self.scopes.pop();
        last
    }

    fn macro_error(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        self.diag.error(
            mac.span(),
            format!("macro `{name}!` is not in the kernel language; kernels have no formatting, assertions or I/O"),
        );
    }

    fn const_item(&mut self, c: &syn::ItemConst) {
        let ty = match crate::params::scalar_type(&c.ty) {
            Some(p) if !p.is_narrow() => Ty::Prim(p),
            Some(p) => {
                self.diag.error(
                    c.ty.span(),
                    format!("a kernel `const` of type `{p}` has no literal in Rust; make it an f32 `const` and convert it where it is used (`X as {p}`)"),
                );
                // Its uses and initializer raise no further errors.
                let var = self.fresh(Slot::Free);
                self.expr(&c.expr);
                self.scopes
                    .last_mut()
                    .map(|s| s.insert(c.ident.to_string(), Binding { var }));
                return;
            }
            None => {
                self.diag.error(
                    c.ty.span(),
                    "a kernel `const` has a scalar type: u32, i32, u64, i64, f32, f64 or bool",
                );
                Ty::Unit
            }
        };
        let var = self.known(ty);
        let init = self.expr(&c.expr);
        self.unify(var, init, c.expr.span());
        if let Some(value) = crate::params::eval(&c.expr, &self.consts) {
            self.consts.insert(c.ident.to_string(), value);
        }
        self.scopes
            .last_mut()
            .map(|s| s.insert(c.ident.to_string(), Binding { var }));
    }

    fn local(&mut self, local: &syn::Local) {
        if let (Pat::Slice(slice), Some(init)) = (&local.pat, &local.init) {
            return self.destructure_publish(slice, &init.expr);
        }
        let (ident, _mutable, annotated) = match local_pattern(&local.pat) {
            Ok(p) => p,
            Err(span) => {
                self.diag.error(
                    span,
                    "a kernel `let` binds one name (`let x = ...;` or `let mut x: u32 = ...;`)",
                );
                // The names it meant to bind stay in scope, untyped, so their uses raise no
                // further errors.
                let mut names = Vec::new();
                pattern_idents(&local.pat, &mut names);
                for name in names {
                    let var = self.fresh(Slot::Free);
                    self.scopes
                        .last_mut()
                        .map(|s| s.insert(name, Binding { var }));
                }
                return;
            }
        };
        let var = match annotated {
            Some(ty) => match crate::params::value_type(ty) {
                Some(t) => self.known(t),
                None => {
                    self.diag.error(ty.span(), "kernel values have types u32, i32, u64, i64, f32, f64, bool, f16, bf16, f8e4m3, f8e5m2, or vectors [T; N] of 4, 8 or 16 bytes of those");
                    self.fresh(Slot::Free)
                }
            },
            None => self.fresh(Slot::Free),
        };
        match &local.init {
            Some(init) => {
                if let Some((_, diverge)) = &init.diverge {
                    self.diag.error(
                        diverge.span(),
                        "`let ... else` is not in the kernel language; use `if`",
                    );
                }
                let v = match (&*init.expr, self.ty(var)) {
                    (Expr::Array(arr), Some(Ty::Vector(p, _))) => {
                        let v = self.array(arr, Some(p));
                        self.record(&init.expr, v)
                    }
                    _ => self.operand(&init.expr),
                };
                self.unify(var, v, init.expr.span());
                match self.ty(var) {
                    Some(Ty::TensorMap(_)) if !is_published(&init.expr) => self.diag.error(
                        init.expr.span(),
                        "a tensor map is not a value a kernel binds; name the parameter where a map is taken (`slot.load_tile(&map, ..)`, `tma_store(&map, ..)`), or bind one a kernel wrote (`let m = map.published(slots, i)`)",
                    ),
                    Some(Ty::MapEdit(_)) => self.diag.error(
                        last_method(&init.expr),
                        "a map edit is one chain, not a value to bind: `map.edit(slots, i).address(data, at).global_dim(1, rows).release()`",
                    ),
                    _ => {}
                }
            }
            None => self
                .diag
                .error(local.span(), "a kernel `let` needs an initial value"),
        }
        self.scopes
            .last_mut()
            .map(|s| s.insert(ident, Binding { var }));
    }

    /// Checks an expression used as an operand: `break`, `continue` and `return` end control
    /// flow and have no value, so the language takes them as statements only.
    fn operand(&mut self, e: &Expr) -> usize {
        let mut inner = e;
        while let Expr::Paren(p) = inner {
            inner = &p.expr;
        }
        if matches!(inner, Expr::Break(_) | Expr::Continue(_) | Expr::Return(_)) {
            self.diag.error(e.span(), "`break`, `continue` and `return` are statements in the kernel language, not operands");
        }
        self.expr(e)
    }

    /// Checks an expression and returns its type variable.
    pub fn expr(&mut self, e: &Expr) -> usize {
        let v = self.expr_inner(e);
        self.record(e, v)
    }

    fn expr_inner(&mut self, e: &Expr) -> usize {
        match e {
            Expr::Lit(lit) => self.literal(&lit.lit),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Path(path) => self.path(path),
            Expr::Binary(b) => self.binary(b),
            Expr::Unary(u) => self.unary(u),
            Expr::Cast(c) => {
                let from = self.operand(&c.expr);
                match crate::params::scalar_type(&c.ty) {
                    Some(to) => {
                        if let Some(
                            Ty::Vector(..) | Ty::Global { .. } | Ty::Shared { .. } | Ty::Unit,
                        ) = self.ty(from)
                        {
                            self.diag.error(c.expr.span(), "`as` converts scalars only");
                        }
                        self.narrow_cast(from, to, c);
                        if to == Prim::Bool {
                            self.diag.error(
                                c.ty.span(),
                                "casts to `bool` are not in Rust; compare with `!= 0`",
                            );
                        }
                        self.known(Ty::Prim(to))
                    }
                    None => {
                        self.diag.error(
                            c.ty.span(),
                            "`as` converts to u32, i32, u64, i64, f32, f64, f16, bf16, f8e4m3 or f8e5m2",
                        );
                        self.fresh(Slot::Free)
                    }
                }
            }
            Expr::Index(ix) => self.index(ix),
            Expr::Array(arr) => self.array(arr, None),
            Expr::Call(call) => self.call(call),
            Expr::MethodCall(m) => self.method(m),
            Expr::Assign(a) => {
                self.place(&a.left);
                let l = self.expr(&a.left);
                let r = match (&*a.right, self.ty(l)) {
                    // `tile[i] = [1.0, 2.0, 3.0, 4.0]`: the place gives the literal its type.
                    (Expr::Array(arr), Some(Ty::Vector(p, _))) => {
                        let v = self.array(arr, Some(p));
                        self.record(&a.right, v)
                    }
                    _ => self.operand(&a.right),
                };
                self.unify(l, r, a.right.span());
                self.known(Ty::Unit)
            }
            Expr::Block(b) => {
                if b.label.is_some() {
                    self.diag.error(
                        b.span(),
                        "labelled blocks are not in the kernel language; use a labelled loop",
                    );
                }
                self.block(&b.block)
            }
            Expr::If(i) => self.if_expr(i),
            Expr::While(w) => {
                if let Expr::Let(l) = &*w.cond {
                    self.diag.error(
                        l.span(),
                        "`while let` is not in the kernel language; use `while` with a condition",
                    );
                } else {
                    let c = self.expr(&w.cond);
                    let b = self.known(Ty::Prim(Prim::Bool));
                    self.unify(b, c, w.cond.span());
                }
                self.loop_body(w.label.as_ref(), &w.body);
                self.known(Ty::Unit)
            }
            Expr::Loop(l) => {
                self.loop_body(l.label.as_ref(), &l.body);
                self.known(Ty::Unit)
            }
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::Break(b) => {
                self.jump_target(b.label.as_ref(), b.span(), "break");
                if let Some(value) = &b.expr {
                    self.diag.error(
                        value.span(),
                        "`break` with a value is not in the kernel language",
                    );
                }
                self.fresh(Slot::Free)
            }
            Expr::Continue(c) => {
                self.jump_target(c.label.as_ref(), c.span(), "continue");
                self.fresh(Slot::Free)
            }
            // `&bar`, `&mut tiles`: how the vocabulary's functions take handles and memory.
            Expr::Reference(r) => {
                let v = self.operand(&r.expr);
                if let Some(Ty::Prim(_) | Ty::Vector(..)) = self.ty(v) {
                    self.diag.error(
                        r.span(),
                        "references to values are not in the kernel language; pass the value",
                    );
                }
                v
            }
            Expr::Return(r) => {
                self.device_return(r);
                self.fresh(Slot::Free)
            }
            other => {
                self.unsupported(other);
                self.fresh(Slot::Free)
            }
        }
    }

    /// An array literal: a vector of 8 or 16 bytes. `expected` is the element type its place
    /// or annotation gives, so that `[1.0, 2.0, 3.0, 4.0]` can be `[f32; 4]`, as rustc infers.
    fn array(&mut self, arr: &syn::ExprArray, expected: Option<Prim>) -> usize {
        let elem = match expected {
            Some(p) => self.known(Ty::Prim(p)),
            None => self.fresh(Slot::Free),
        };
        for item in &arr.elems {
            let v = self.operand(item);
            self.unify(elem, v, item.span());
        }
        let n = arr.elems.len() as u64;
        if !matches!(n, 2 | 4 | 8 | 16) {
            // No vector has this many lanes, whatever the elements are (`[]` has none to type).
            self.diag.error(arr.span(), ARRAY_SHAPES);
            return self.fresh(Slot::Free);
        }
        match self.ty(elem) {
            Some(Ty::Prim(p)) if Elem::vector_ok(p, n) => self.known(Ty::Vector(p, n as u8)),
            _ => match self.resolve(elem) {
                Slot::Int if n == 2 || n == 4 => self.known(Ty::Vector(Prim::I32, n as u8)),
                Slot::Float if n == 2 => self.known(Ty::Vector(Prim::F64, 2)),
                // Nothing is known of the elements: an error was reported for them, or they are
                // results of device functions not yet collected (see `lenient`).
                Slot::Free => self.fresh(Slot::Free),
                _ => {
                    self.diag.error(arr.span(), ARRAY_SHAPES);
                    self.fresh(Slot::Free)
                }
            },
        }
    }

    fn unsupported(&mut self, e: &Expr) {
        let what = match e {
            Expr::Match(_) => "`match` is not in the kernel language; use `if`/`else`",
            Expr::Closure(_) => "closures are not in the kernel language",
            Expr::Unsafe(_) => {
                "`unsafe` blocks are not in the kernel language; nothing in it needs one"
            }
            Expr::Async(_) | Expr::Await(_) => "`async` is not in the kernel language",
            Expr::Macro(_) => {
                "macros are not in the kernel language; kernels have no formatting, assertions or I/O"
            }
            Expr::Struct(_) => {
                "structs are not in the kernel language; use scalars and [T; 2] / [T; 4] vectors"
            }
            Expr::Tuple(_) => {
                "tuples are not in the kernel language; use separate `let`s or a [T; N] vector"
            }
            Expr::Field(_) => {
                "fields are not in the kernel language; index vectors with a constant (`v[0]`)"
            }
            Expr::Range(_) => "ranges appear only as the iterator of a `for` loop",
            Expr::Let(_) => "`let` in a condition is not in the kernel language",
            Expr::Try(_) => "`?` is not in the kernel language",
            Expr::Repeat(_) => {
                "`[x; N]` is not in the kernel language; use `shared_array::<T, N>()` for arrays"
            }
            Expr::Const(_) => "`const` blocks are not in the kernel language; use a `const` item",
            _ => "this expression is not in the kernel language",
        };
        self.diag.error(e.span(), what);
    }

    fn literal(&mut self, lit: &Lit) -> usize {
        match lit {
            Lit::Int(i) => match i.suffix() {
                "" => self.fresh(Slot::Int),
                s => match Prim::from_ident(s) {
                    Some(p) if p.is_int() => self.known(Ty::Prim(p)),
                    Some(p) if p.is_float() => self.known(Ty::Prim(p)),
                    _ => {
                        self.diag.error(i.span(), format!("integer suffix `{s}` is not in the kernel language; use u32, i32, u64 or i64"));
                        self.fresh(Slot::Free)
                    }
                },
            },
            Lit::Float(f) => match f.suffix() {
                "" => self.fresh(Slot::Float),
                "f32" => self.known(Ty::Prim(Prim::F32)),
                "f64" => self.known(Ty::Prim(Prim::F64)),
                s => {
                    self.diag.error(
                        f.span(),
                        format!("float suffix `{s}` is not in the kernel language; use f32 or f64"),
                    );
                    self.fresh(Slot::Free)
                }
            },
            Lit::Bool(_) => self.known(Ty::Prim(Prim::Bool)),
            other => {
                self.diag.error(
                    other.span(),
                    "only integer, float and bool literals are in the kernel language",
                );
                self.fresh(Slot::Free)
            }
        }
    }

    fn path(&mut self, path: &syn::ExprPath) -> usize {
        if let Some(ident) = path.path.get_ident() {
            if let Some(b) = self.lookup(&ident.to_string()) {
                return b.var;
            }
            if let Some(h) = sync::constant(&path.path) {
                return self.known(Ty::Handle(h));
            }
            self.diag.error(
                ident.span(),
                format!("cannot find `{ident}` in the kernel: a kernel sees its parameters, its `let` bindings and `const` items declared inside it"),
            );
        } else if let Some(h) = sync::constant(&path.path) {
            return self.known(Ty::Handle(h));
        } else {
            self.diag.error(path.span(), "paths are not in the kernel language here; name a parameter, binding, kernel `const`, `Sem::*` or `Scope::*`");
        }
        self.fresh(Slot::Free)
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> usize {
        let l = self.operand(&b.left);
        let r = self.operand(&b.right);
        let span = b.op.span();
        match b.op {
            BinOp::And(_) | BinOp::Or(_) => {
                let t = self.known(Ty::Prim(Prim::Bool));
                self.unify(t, l, b.left.span());
                self.unify(t, r, b.right.span());
                t
            }
            BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_) => {
                self.unify(l, r, b.right.span());
                self.expect_prim(l, b.left.span(), |_| true, "a scalar");
                self.known(Ty::Prim(Prim::Bool))
            }
            BinOp::Shl(_) | BinOp::Shr(_) | BinOp::ShlAssign(_) | BinOp::ShrAssign(_) => {
                self.expect_prim(l, b.left.span(), Prim::is_int, "an integer");
                self.expect_prim(r, b.right.span(), Prim::is_int, "an integer shift amount");
                if is_assign(&b.op) {
                    self.place(&b.left);
                    self.known(Ty::Unit)
                } else {
                    l
                }
            }
            BinOp::BitAnd(_)
            | BinOp::BitOr(_)
            | BinOp::BitXor(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::BitXorAssign(_) => {
                self.unify(l, r, b.right.span());
                self.expect_prim(
                    l,
                    span,
                    |p| p.is_int() || p == Prim::Bool,
                    "an integer or bool",
                );
                if is_assign(&b.op) {
                    self.place(&b.left);
                    self.known(Ty::Unit)
                } else {
                    l
                }
            }
            BinOp::Rem(_) | BinOp::RemAssign(_) => {
                self.unify(l, r, b.right.span());
                if self.narrow_arith(l, span) {
                    return self.fresh(Slot::Free);
                }
                self.expect_prim(
                    l,
                    span,
                    Prim::is_int,
                    "an integer (`%` on floats is not in the kernel language)",
                );
                if is_assign(&b.op) {
                    self.place(&b.left);
                    self.known(Ty::Unit)
                } else {
                    l
                }
            }
            _ => {
                // + - * / and their assignments
                self.unify(l, r, b.right.span());
                if self.narrow_arith(l, span) {
                    return self.fresh(Slot::Free);
                }
                self.expect_prim(l, span, |p| p != Prim::Bool, "a number");
                if is_assign(&b.op) {
                    self.place(&b.left);
                    self.known(Ty::Unit)
                } else {
                    l
                }
            }
        }
    }

    fn unary(&mut self, u: &syn::ExprUnary) -> usize {
        let v = self.operand(&u.expr);
        match u.op {
            UnOp::Neg(_) => {
                if self.narrow_arith(v, u.span()) {
                    return self.fresh(Slot::Free);
                }
                match self.resolve(v) {
                    Slot::Known(Ty::Prim(p)) if p.is_signed() || p.is_float() => {}
                    Slot::Int | Slot::Float | Slot::Free => {}
                    _ => {
                        let found = self.describe(v);
                        self.diag.error(
                            u.span(),
                            format!(
                                "cannot negate `{found}`: `-` applies to i32, i64, f32 and f64"
                            ),
                        );
                    }
                }
                v
            }
            UnOp::Not(_) => {
                self.expect_prim(
                    v,
                    u.span(),
                    |p| p.is_int() || p == Prim::Bool,
                    "an integer or bool",
                );
                v
            }
            _ => {
                self.diag
                    .error(u.span(), "dereference is not in the kernel language");
                self.fresh(Slot::Free)
            }
        }
    }

    fn index(&mut self, ix: &syn::ExprIndex) -> usize {
        let base = self.operand(&ix.expr);
        match self.ty(base) {
            Some(Ty::Global { elem, .. })
            | Some(Ty::Shared { elem, .. })
            | Some(Ty::Handle(Handle::DynShared(elem)))
            | Some(Ty::Handle(Handle::Peer(elem, _))) => {
                if !is_name(&ix.expr) {
                    self.diag
                        .error(ix.expr.span(), "index memory through its name (`x[i]`)");
                }
                let index = self.operand(&ix.index);
                let u = self.known(Ty::Prim(Prim::U32));
                self.unify(u, index, ix.index.span());
                self.known(elem.ty())
            }
            Some(Ty::Vector(p, n)) => {
                match const_usize(&ix.index) {
                    Some(k) if k < n as u64 => {}
                    Some(k) => self.diag.error(ix.index.span(), format!("index {k} is out of bounds for [{p}; {n}]")),
                    None => self.diag.error(ix.index.span(), "vectors are indexed by an integer literal (`v[0]`): their lanes are separate registers"),
                }
                self.known(Ty::Prim(p))
            }
            None => {
                if let Slot::Int | Slot::Float = self.resolve(base) {
                    self.diag.error(
                        ix.expr.span(),
                        "cannot index a number; index slices, shared arrays and vectors",
                    );
                }
                self.operand(&ix.index);
                self.fresh(Slot::Free)
            }
            Some(other) => {
                self.diag.error(ix.expr.span(), format!("cannot index a value of type `{other}`; index slices, shared arrays and vectors"));
                self.fresh(Slot::Free)
            }
        }
    }

    /// Checks that the left side of an assignment is something that can be written.
    fn place(&mut self, e: &Expr) {
        match e {
            // Assigning to an immutable binding is reported by rustc on the copy it checks.
            Expr::Path(_) => {}
            Expr::Index(ix) => match &*ix.expr {
                Expr::Path(_) => {}
                other => self.diag.error(
                    other.span(),
                    "assign through a parameter, binding or shared array by name",
                ),
            },
            Expr::Paren(p) => self.place(&p.expr),
            other => self.diag.error(
                other.span(),
                "the left side of an assignment is a binding or an indexed slice, array or vector",
            ),
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf) -> usize {
        if let Expr::Let(l) = &*i.cond {
            self.diag.error(
                l.span(),
                "`if let` is not in the kernel language; use a condition",
            );
        } else {
            let c = self.operand(&i.cond);
            let b = self.known(Ty::Prim(Prim::Bool));
            self.unify(b, c, i.cond.span());
        }
        let then = self.block(&i.then_branch);
        match &i.else_branch {
            Some((_, els)) => {
                let e = self.expr(els);
                self.unify(then, e, els.span());
                then
            }
            None => self.known(Ty::Unit),
        }
    }

    fn loop_body(&mut self, label: Option<&syn::Label>, body: &syn::Block) {
        self.loop_depth += 1;
        self.labels
            .push(label.map(|l| l.name.ident.to_string()).unwrap_or_default());
        self.block(body);
        self.labels.pop();
        self.loop_depth -= 1;
    }

    fn jump_target(&mut self, label: Option<&syn::Lifetime>, span: proc_macro2::Span, what: &str) {
        if self.loop_depth == 0 {
            self.diag.error(span, format!("`{what}` outside a loop"));
        } else if let Some(l) = label
            && !self.labels.iter().any(|n| l.ident == n)
        {
            self.diag
                .error(l.span(), format!("no enclosing loop is labelled `{l}`"));
        }
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) -> usize {
        let name = match &*f.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.to_string()),
            Pat::Wild(_) => Some("_".into()),
            other => {
                self.diag.error(
                    other.span(),
                    "a kernel `for` binds one name: `for i in a..b`",
                );
                None
            }
        };
        let elem = self.fresh(Slot::Int);
        match range_parts(&f.expr) {
            Some(parts) => {
                for bound in [parts.start, parts.end].into_iter().flatten() {
                    let v = self.operand(bound);
                    self.unify(elem, v, bound.span());
                }
                if parts.start.is_none() || parts.end.is_none() {
                    self.diag.error(f.expr.span(), "a kernel `for` runs over a bounded range `a..b` or `a..=b`");
                }
                if let Some(step) = parts.step {
                    let v = self.operand(step);
                    self.unify(elem, v, step.span());
                    if const_usize(step) == Some(0) {
                        self.diag.error(step.span(), "`step_by(0)` never advances; the step must be positive");
                    }
                }
                // The range expressions themselves are typed as their element for the lowering.
                self.record(&f.expr, elem);
                if let Expr::MethodCall(m) = &*f.expr {
                    self.record(&m.receiver, elem);
                    if let Expr::Paren(p) = &*m.receiver {
                        self.record(&p.expr, elem);
                    }
                }
            }
            None => self.diag.error(
                f.expr.span(),
                "a kernel `for` runs over a range: `for i in a..b`, `a..=b`, or `(a..b).step_by(s)`",
            ),
        }
        self.scopes.push(HashMap::new());
        if let Some(name) = name {
            self.scopes
                .last_mut()
                .map(|s| s.insert(name, Binding { var: elem }));
        }
        self.loop_body(f.label.as_ref(), &f.body);
        self.scopes.pop();
        self.known(Ty::Unit)
    }

    fn call(&mut self, call: &syn::ExprCall) -> usize {
        let Expr::Path(path) = &*call.func else {
            self.diag.error(
                call.func.span(),
                "only kernel-language functions can be called in a kernel",
            );
            return self.fresh(Slot::Free);
        };
        if path.qself.is_none() && !builtins::is_function(&path.path) {
            return self.device_call(call, path);
        }
        let builtin = builtins::lookup_call(&path.path);
        if let Ok(Builtin::Sync(SyncFn::TmaStore)) = builtin {
            // The coordinates are an array of any rank, not a vector value.
            return self.tma_store(call);
        }
        if let Ok(Builtin::Sync(f @ (SyncFn::Publish | SyncFn::PublishCta))) = builtin {
            // The array of handles is checked item by item; it is not a vector value.
            let v = self.sync_call(f, call, &[]);
            if let Some(arg) = call.args.first() {
                self.record(arg, v);
            }
            return v;
        }
        let args: Vec<usize> = call.args.iter().map(|a| self.operand(a)).collect();
        match builtin {
            Ok(builtin) => self.builtin_call(builtin, call, &args),
            Err(message) => {
                self.diag.error(path.span(), message);
                self.fresh(Slot::Free)
            }
        }
    }

    fn builtin_call(&mut self, builtin: Builtin, call: &syn::ExprCall, args: &[usize]) -> usize {
        let want = builtin.arity();
        if args.len() != want {
            self.diag.error(
                call.span(),
                format!(
                    "`{}` takes {want} argument(s), found {}",
                    builtin.name(),
                    args.len()
                ),
            );
            return self.fresh(Slot::Free);
        }
        match builtin {
            Builtin::Special(_) | Builtin::WarpId => self.known(Ty::Prim(Prim::U32)),
            Builtin::Clock64 => self.known(Ty::Prim(Prim::U64)),
            Builtin::SyncThreads => self.known(Ty::Unit),
            Builtin::Method(kind) => self.method_kind(kind, args[0], &args[1..], call.span()),
            Builtin::FromBits(p) => {
                let bits = if p.is_64() { Prim::U64 } else { Prim::U32 };
                let b = self.known(Ty::Prim(bits));
                self.unify(b, args[0], call.args[0].span());
                self.known(Ty::Prim(p))
            }
            Builtin::Sync(f) => self.sync_call(f, call, args),
            Builtin::SharedArray => {
                self.declares_memory(call.func.span(), "shared_array");
                match crate::params::shared_array_args(&call.func, &self.consts) {
                    Ok((elem, len)) => self.known(Ty::Shared { elem, len }),
                    Err(e) => {
                        self.diag.push(e);
                        self.fresh(Slot::Free)
                    }
                }
            }
        }
    }

    fn method(&mut self, m: &syn::ExprMethodCall) -> usize {
        if m.method == "step_by" {
            self.diag.error(
                m.method.span(),
                "`step_by` appears only on the range of a `for` loop",
            );
            return self.fresh(Slot::Free);
        }
        let recv = self.operand(&m.receiver);
        if let Some(Ty::Handle(Handle::Registers(from))) = self.ty(recv) {
            return self.register_role(from, m);
        }
        if let Some(Ty::Handle(Handle::Acc(acc))) = self.ty(recv) {
            // `wait::<K>()` takes its count as a generic argument.
            return self.acc_method(acc, m);
        }
        if let Some(Ty::Handle(Handle::Softmax(p))) = self.ty(recv) {
            return self.softmax_method(p, m);
        }
        if let Some(Ty::Handle(h @ Handle::Overlap { .. })) = self.ty(recv) {
            return self.overlap_method(h, m);
        }
        if let Some(t) = &m.turbofish {
            self.diag.error(
                t.span(),
                "kernel-language methods take no generic arguments",
            );
        }
        match self.ty(recv) {
            Some(Ty::Handle(h)) => return self.handle_method(h, m),
            Some(Ty::TensorMap(map)) => return self.map_method(map, m),
            Some(Ty::MapEdit(map)) => return self.map_edit_method(map, m),
            _ => {}
        }
        let args: Vec<usize> = m.args.iter().map(|a| self.operand(a)).collect();
        // A receiver whose type is unknown because an error was reported on it: its methods
        // are not scalar methods to complain about again (rustc's copy still checks them).
        if (self.lenient || self.diag.has_errors())
            && let Slot::Free = self.resolve(recv)
            && builtins::lookup_method(&m.method.to_string()).is_none()
        {
            return self.fresh(Slot::Free);
        }
        match builtins::lookup_method(&m.method.to_string()) {
            Some(kind) => {
                if args.len() + 1 != kind.arity() {
                    self.diag.error(
                        m.span(),
                        format!(
                            "`{}` takes {} argument(s), found {}",
                            m.method,
                            kind.arity() - 1,
                            args.len()
                        ),
                    );
                    return self.fresh(Slot::Free);
                }
                self.method_kind(kind, recv, &args, m.method.span())
            }
            None => {
                self.diag.error(
                    m.method.span(),
                    format!(
                        "`{}` is not a kernel-language method; methods: {}",
                        m.method,
                        builtins::METHOD_NAMES
                    ),
                );
                self.fresh(Slot::Free)
            }
        }
    }

    /// `m` names no method of `of`: the error on the method, listing `methods`; its arguments
    /// still checked (their own errors show too) and its value left free (no cascade).
    pub(super) fn not_a_method(
        &mut self,
        m: &syn::ExprMethodCall,
        of: &str,
        methods: &str,
    ) -> usize {
        self.diag.error(
            m.method.span(),
            format!(
                "`{}` is not a method of {of}; its methods: {methods}",
                m.method
            ),
        );
        for a in &m.args {
            self.expr(a);
        }
        self.fresh(Slot::Free)
    }

    /// Whether method call `m` has `want` arguments; if not, the error on the call (its
    /// arguments still checked, so their own errors show too).
    fn method_arity(&mut self, m: &syn::ExprMethodCall, want: usize) -> bool {
        if m.args.len() == want {
            return true;
        }
        self.diag.error(
            m.span(),
            format!(
                "`{}` takes {want} argument(s), found {}",
                m.method,
                m.args.len()
            ),
        );
        for a in &m.args {
            self.expr(a);
        }
        false
    }

    fn method_kind(
        &mut self,
        kind: MethodKind,
        recv: usize,
        args: &[usize],
        span: proc_macro2::Span,
    ) -> usize {
        for &a in args {
            self.unify(recv, a, span);
        }
        if self.narrow_arith(recv, span) {
            return self.fresh(Slot::Free);
        }
        let (ok, what): (fn(Prim) -> bool, &str) = match kind {
            MethodKind::Min | MethodKind::Max => (|p| p != Prim::Bool, "a number"),
            MethodKind::Abs => (
                |p| p.is_signed() || p.is_float(),
                "a signed integer or float",
            ),
            MethodKind::Sqrt | MethodKind::MulAdd => (Prim::is_float, "a float"),
            MethodKind::WrappingAdd | MethodKind::WrappingSub | MethodKind::WrappingMul => {
                (Prim::is_int, "an integer")
            }
            MethodKind::CountOnes | MethodKind::LeadingZeros | MethodKind::ReverseBits => {
                (Prim::is_int, "an integer")
            }
            MethodKind::ToBits => (Prim::is_float, "a float"),
        };
        self.expect_prim(recv, span, ok, what);
        match kind {
            MethodKind::CountOnes | MethodKind::LeadingZeros => self.known(Ty::Prim(Prim::U32)),
            MethodKind::ToBits => match self.ty(recv) {
                Some(Ty::Prim(Prim::F64)) => self.known(Ty::Prim(Prim::U64)),
                Some(Ty::Prim(Prim::F32)) => self.known(Ty::Prim(Prim::U32)),
                None if matches!(self.resolve(recv), Slot::Free) => self.fresh(Slot::Free),
                _ => {
                    self.diag.error(
                        span,
                        "`to_bits` needs the float's type to be known here; annotate it",
                    );
                    self.fresh(Slot::Free)
                }
            },
            _ => recv,
        }
    }
}

fn is_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// `let x`, `let mut x`, `let x: T` → (name, mutable, annotation).
/// Where a chain of method calls ends (its last method's name), else `e`.
fn last_method(e: &Expr) -> proc_macro2::Span {
    match e {
        Expr::MethodCall(m) => m.method.span(),
        Expr::Paren(p) => last_method(&p.expr),
        other => other.span(),
    }
}

/// Whether `e` is `map.published(..)`, the one way a kernel binds a tensor map.
fn is_published(e: &Expr) -> bool {
    match e {
        Expr::MethodCall(m) => m.method == "published",
        Expr::Paren(p) => is_published(&p.expr),
        Expr::Group(g) => is_published(&g.expr),
        _ => false,
    }
}

fn local_pattern(pat: &Pat) -> Result<(String, bool, Option<&syn::Type>), proc_macro2::Span> {
    match pat {
        Pat::Wild(_) => Ok(("_".into(), false, None)),
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Ok((p.ident.to_string(), p.mutability.is_some(), None))
        }
        Pat::Type(t) => {
            let (name, mutable, _) = local_pattern(&t.pat)?;
            Ok((name, mutable, Some(&t.ty)))
        }
        other => Err(other.span()),
    }
}

/// Whether `e` is a plain name, possibly parenthesised.
fn is_name(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Paren(p) => is_name(&p.expr),
        Expr::Group(g) => is_name(&g.expr),
        _ => false,
    }
}

/// Every name a pattern binds.
fn pattern_idents(pat: &Pat, out: &mut Vec<String>) {
    match pat {
        Pat::Ident(p) => out.push(p.ident.to_string()),
        Pat::Type(t) => pattern_idents(&t.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Slice(s) => s.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::TupleStruct(t) => t.elems.iter().for_each(|p| pattern_idents(p, out)),
        Pat::Struct(s) => s.fields.iter().for_each(|f| pattern_idents(&f.pat, out)),
        Pat::Reference(r) => pattern_idents(&r.pat, out),
        Pat::Paren(p) => pattern_idents(&p.pat, out),
        _ => {}
    }
}

/// The parts of a `for` loop's range: `a..b`, `a..=b`, `(a..b).step_by(s)`.
pub struct RangeParts<'a> {
    pub start: Option<&'a Expr>,
    pub end: Option<&'a Expr>,
    pub inclusive: bool,
    pub step: Option<&'a Expr>,
}

/// The range of a `for` loop, if it has a shape the language has: the checker decides which
/// ranges those are, and the lowering reads the loops it accepted with this same function.
pub fn range_parts(e: &Expr) -> Option<RangeParts<'_>> {
    match e {
        Expr::Range(r) => Some(RangeParts {
            start: r.start.as_deref(),
            end: r.end.as_deref(),
            inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
            step: None,
        }),
        Expr::Paren(p) => range_parts(&p.expr),
        Expr::Group(g) => range_parts(&g.expr),
        Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
            let mut parts = range_parts(&m.receiver)?;
            if parts.step.is_some() {
                return None;
            }
            parts.step = m.args.first();
            Some(parts)
        }
        _ => None,
    }
}
