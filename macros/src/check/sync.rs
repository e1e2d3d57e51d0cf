//! Checking the barrier vocabulary: handle constructors, their compile-time arguments (barrier
//! ids, thread counts, pipeline shapes, copy sizes), and the methods of handles.
//!
//! Violations of the spec's static rules are reported here on the user's tokens, before ptxas
//! ever sees the PTX: a barrier id outside 0..15, a thread count that is not a positive multiple
//! of the warp size, a bulk copy whose size is not a multiple of 16 bytes.

use super::{Binding, Checker, Slot};
use crate::builtins::SyncFn;
use crate::handles::{self, Arg};
use crate::types::{Elem, Handle, PipeShape, Prim, ScopeKind, Ty};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::{Expr, GenericArgument, PathArguments};

/// `Sem::Ordered`, `Scope::Cluster`, `EVEN`, ...: the constant arguments of the vocabulary.
pub fn constant(path: &syn::Path) -> Option<Handle> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    Some(match names.as_slice() {
        ["Sem", "Ordered"] => Handle::Sem(false),
        ["Sem", "Relaxed"] => Handle::Sem(true),
        ["Scope", "Cta"] => Handle::Scope(ScopeKind::Cta),
        ["Scope", "Cluster"] => Handle::Scope(ScopeKind::Cluster),
        ["Scope", "Gpu"] => Handle::Scope(ScopeKind::Gpu),
        ["Scope", "Sys"] => Handle::Scope(ScopeKind::Sys),
        ["EVEN"] => Handle::Parity(false),
        ["ODD"] => Handle::Parity(true),
        _ => return None,
    })
}

/// The largest CTA: no barrier can have more participants.
const MAX_THREADS: u64 = 1024;

impl Checker<'_> {
    pub(super) fn sync_call(&mut self, f: SyncFn, call: &syn::ExprCall, args: &[usize]) -> usize {
        let u32_ty = Ty::Prim(Prim::U32);
        let span = call.span();
        match f {
            SyncFn::Named {
                counted,
                cta_spelling,
                reduction,
            } => {
                let generics = self.generic_args(&call.func);
                let want = if counted { 2 } else { 1 };
                if generics.len() != want {
                    let form = if counted { "::<ID, THREADS>" } else { "::<ID>" };
                    self.diag.error(
                        call.func.span(),
                        format!(
                            "this barrier takes its id{} as generic arguments: `{form}()`",
                            if counted { " and thread count" } else { "" }
                        ),
                    );
                    return self.fresh(Slot::Free);
                }
                let id = self.const_generic(generics[0], "barrier id");
                if let Some(id) = id
                    && id > 15
                {
                    self.diag.error(generics[0].span(), format!("barrier id {id} is out of range: a CTA has named barriers 0..15 (PTX ISA §9.7.13.1)"));
                }
                let threads = if counted {
                    self.const_generic(generics[1], "thread count")
                } else {
                    Some(0)
                };
                if counted && let Some(n) = threads {
                    if n == 0 || n % 32 != 0 {
                        self.diag.error(generics[1].span(), format!("thread count {n} is not a positive multiple of the warp size 32 (PTX ISA §9.7.13.1)"));
                    } else if n > MAX_THREADS {
                        self.diag.error(
                            generics[1].span(),
                            format!("thread count {n} exceeds the 1024 threads a CTA can have"),
                        );
                    }
                }
                match (id, threads) {
                    (Some(id), Some(threads)) => self.known(Ty::Handle(Handle::Named {
                        id: id as u32,
                        threads: threads as u32,
                        cta_spelling,
                        reduction,
                    })),
                    _ => self.fresh(Slot::Free),
                }
            }
            SyncFn::NamedDyn => {
                self.expect_args(call, args, &[u32_ty, u32_ty]);
                self.known(Ty::Handle(Handle::DynNamed))
            }
            SyncFn::MBarrier => {
                self.declares_memory(call.func.span(), "mbarrier");
                self.known(Ty::Handle(Handle::MBar))
            }
            SyncFn::ClusterBarrier => self.known(Ty::Handle(Handle::ClusterBar)),
            SyncFn::Publish | SyncFn::PublishCta => match call.args.first() {
                Some(Expr::Array(arr))
                    if call.args.len() == 1 && !arr.elems.is_empty() && arr.elems.len() <= 16 =>
                {
                    for (item, &v) in arr.elems.iter().zip(&self.array_items(arr)) {
                        if self.ty(v) != Some(Ty::Handle(Handle::MBar)) && self.ty(v).is_some() {
                            self.diag.error(
                                item.span(),
                                "`publish` takes an array of initialised mbarriers",
                            );
                        }
                    }
                    self.known(Ty::Handle(Handle::MBarArray(arr.elems.len() as u8)))
                }
                _ => {
                    self.diag.error(span, "`publish` takes an array literal of initialised mbarriers: `let [a, b] = publish([a, b]);`");
                    self.fresh(Slot::Free)
                }
            },
            SyncFn::Pipeline | SyncFn::PipelineCluster => {
                self.declares_memory(call.func.span(), "pipeline");
                self.expect_args(call, args, &[Ty::Prim(Prim::Bool), u32_ty, u32_ty]);
                let cluster = f == SyncFn::PipelineCluster;
                match self.pipeline_shape(&call.func, cluster) {
                    Some(shape) => {
                        if cluster {
                            self.cluster_pipelines.push((call.func.span(), shape.ctas));
                        }
                        self.known(Ty::Handle(Handle::Pipeline(shape)))
                    }
                    None => self.fresh(Slot::Free),
                }
            }
            SyncFn::OnlineSoftmax => self.attention_call(true, call, args),
            SyncFn::PingPong => self.attention_call(false, call, args),
            SyncFn::Accumulator => match self.accumulator_shape(&call.func) {
                Some(shape) => self.known(Ty::Handle(Handle::Acc(shape))),
                None => self.fresh(Slot::Free),
            },
            SyncFn::PeerShared => {
                let u = self.known(u32_ty);
                self.unify(u, args[1], call.args[1].span());
                match self.ty(args[0]) {
                    Some(Ty::Shared { elem, len }) => {
                        self.known(Ty::Handle(Handle::Peer(elem, len)))
                    }
                    Some(other) => {
                        self.diag.error(
                            call.args[0].span(),
                            format!("`peer_shared` maps a shared array, not `{other}`"),
                        );
                        self.fresh(Slot::Free)
                    }
                    None => {
                        if self.is_number(args[0]) {
                            self.diag.error(
                                call.args[0].span(),
                                "`peer_shared` maps a shared array, not a number",
                            );
                        }
                        self.fresh(Slot::Free)
                    }
                }
            }
            SyncFn::DynamicShared => {
                let generics = self.generic_args(&call.func);
                match generics.as_slice() {
                    [GenericArgument::Type(t)] => match crate::params::elem_type(t) {
                        Some(elem) if elem.prim != Prim::Bool => {
                            self.known(Ty::Handle(Handle::DynShared(elem)))
                        }
                        _ => {
                            self.diag.error(t.span(), "dynamic shared memory holds u32, i32, u64, i64, f32, f64, or [T; 2] / [T; 4] vectors");
                            self.fresh(Slot::Free)
                        }
                    },
                    _ => {
                        self.diag.error(
                            call.func.span(),
                            "`dynamic_shared` takes its element type: `dynamic_shared::<f32>()`",
                        );
                        self.fresh(Slot::Free)
                    }
                }
            }
            SyncFn::BulkLoad | SyncFn::BulkLoadMulticast => {
                if self
                    .ty(args[0])
                    .is_some_and(|t| t != Ty::Handle(Handle::MBar))
                {
                    self.diag.error(
                        call.args[0].span(),
                        "a bulk load completes on an mbarrier: pass `&bar`",
                    );
                }
                self.copy_args(call, &args[1..6], 1, true);
                if f == SyncFn::BulkLoadMulticast {
                    let u = self.known(u32_ty);
                    self.unify(u, args[6], call.args[6].span());
                }
                self.known(Ty::Unit)
            }
            SyncFn::BulkStore => {
                self.copy_args(call, args, 0, false);
                self.known(Ty::Unit)
            }
            // Checked before its arguments are typed: see `Checker::call`.
            SyncFn::TmaStore => self.tma_store(call),
            SyncFn::Registers => self.register_budget(call),
            SyncFn::BulkWait | SyncFn::BulkWaitRead => {
                self.const_u32_arg(&call.args[0], args[0], "the number of pending groups");
                self.known(Ty::Unit)
            }
            SyncFn::CpAsync => {
                let (dst, src) = (
                    self.shared_elem(args[0], &call.args[0]),
                    self.global_elem(args[2], &call.args[2]),
                );
                self.expect_u32(args[1], &call.args[1]);
                self.expect_u32(args[3], &call.args[3]);
                if let (Some(d), Some(s)) = (dst, src) {
                    if d != s {
                        self.diag.error(span, format!("`cp_async` copies between equal element types, found `{d}` and `{s}`"));
                    } else if !matches!(d.size(), 4 | 8 | 16) {
                        self.diag.error(span, format!("`cp.async` copies 4, 8 or 16 bytes; `{d}` has {} (PTX ISA §9.7.9.25)", d.size()));
                    }
                }
                self.known(Ty::Unit)
            }
            SyncFn::FenceAcqRel | SyncFn::FenceSc => {
                if !matches!(self.ty(args[0]), Some(Ty::Handle(Handle::Scope(_))) | None) {
                    self.diag.error(call.args[0].span(), "expected a scope: `Scope::Cta`, `Scope::Cluster`, `Scope::Gpu` or `Scope::Sys`");
                }
                self.known(Ty::Unit)
            }
            SyncFn::Nanosleep => {
                self.expect_u32(args[0], &call.args[0]);
                self.known(Ty::Unit)
            }
            SyncFn::ElectOne => self.known(Ty::Prim(Prim::Bool)),
            SyncFn::BulkCommit
            | SyncFn::FenceProxyAsync
            | SyncFn::FenceMbarrierInit
            | SyncFn::Membar(_) => self.known(Ty::Unit),
        }
    }

    /// The checked variables of an array literal's items (already recorded by the caller).
    fn array_items(&mut self, arr: &syn::ExprArray) -> Vec<usize> {
        arr.elems.iter().map(|e| self.expr(e)).collect()
    }

    /// Arguments `(dst, dst_index, src, src_index, elements)` of a bulk copy; `to_shared` says
    /// which side is shared memory.
    fn copy_args(&mut self, call: &syn::ExprCall, args: &[usize], first: usize, to_shared: bool) {
        let a = |i: usize| &call.args[first + i];
        let (shared, global) = if to_shared { (0, 2) } else { (2, 0) };
        let s = self.shared_elem(args[shared], a(shared));
        let g = self.global_elem(args[global], a(global));
        self.expect_u32(args[1], a(1));
        self.expect_u32(args[3], a(3));
        let elements = self.const_u32_arg(a(4), args[4], "the element count of a bulk copy");
        if let (Some(s), Some(g)) = (s, g) {
            if s != g {
                self.diag.error(
                    call.span(),
                    format!("a bulk copy moves elements of one type, found `{s}` and `{g}`"),
                );
            } else if let Some(n) = elements {
                let bytes = n * s.size() as u64;
                if n == 0 || !bytes.is_multiple_of(16) {
                    self.diag.error(a(4).span(), format!("a bulk copy moves a positive multiple of 16 bytes; {n} × {s} is {bytes} (PTX ISA §9.7.9.25.4)"));
                }
            }
        }
    }

    /// Whether `v` is a literal whose number type is not settled yet (not an error's result).
    pub(super) fn is_number(&mut self, v: usize) -> bool {
        matches!(self.resolve(v), Slot::Int | Slot::Float)
    }

    pub(super) fn shared_elem(&mut self, v: usize, e: &Expr) -> Option<Elem> {
        match self.ty(v) {
            Some(Ty::Shared { elem, .. }) | Some(Ty::Handle(Handle::DynShared(elem))) => Some(elem),
            None if self.is_number(v) => {
                self.diag.error(
                    e.span(),
                    "expected shared memory (a shared array or `dynamic_shared`), found a number",
                );
                None
            }
            None => None,
            Some(other) => {
                self.diag.error(e.span(), format!("expected shared memory (a shared array or `dynamic_shared`), found `{other}`"));
                None
            }
        }
    }

    pub(super) fn global_elem(&mut self, v: usize, e: &Expr) -> Option<Elem> {
        match self.ty(v) {
            Some(Ty::Global { elem, .. }) => Some(elem),
            None if self.is_number(v) => {
                self.diag
                    .error(e.span(), "expected a global slice, found a number");
                None
            }
            None => None,
            Some(other) => {
                self.diag.error(
                    e.span(),
                    format!("expected a global slice, found `{other}`"),
                );
                None
            }
        }
    }

    pub(super) fn expect_u32(&mut self, v: usize, e: &Expr) {
        let u = self.known(Ty::Prim(Prim::U32));
        self.unify(u, v, e.span());
    }

    fn expect_args(&mut self, call: &syn::ExprCall, args: &[usize], tys: &[Ty]) {
        for ((&v, ty), e) in args.iter().zip(tys).zip(&call.args) {
            let t = self.known(*ty);
            self.unify(t, v, e.span());
        }
    }

    /// A `u32` argument that must be known at compile time.
    fn const_u32_arg(&mut self, e: &Expr, v: usize, what: &str) -> Option<u64> {
        self.expect_u32(v, e);
        let value = crate::params::const_value(e, &self.consts);
        if value.is_none() {
            self.diag.error(
                e.span(),
                format!(
                    "{what} must be known at compile time: an integer literal or a kernel `const`"
                ),
            );
        }
        value
    }

    /// The generic arguments of the last segment of a call's path.
    pub(super) fn generic_args<'e>(&self, func: &'e Expr) -> Vec<&'e GenericArgument> {
        match func {
            Expr::Path(p) => match p.path.segments.last().map(|s| &s.arguments) {
                Some(PathArguments::AngleBracketed(a)) => a.args.iter().collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// A constant generic argument: a literal, `{ expr }` or a kernel `const`.
    pub(super) fn const_generic(&mut self, arg: &GenericArgument, what: &str) -> Option<u64> {
        let value = match arg {
            GenericArgument::Const(e) => crate::params::const_value(e, &self.consts),
            GenericArgument::Type(syn::Type::Path(p)) => p
                .path
                .get_ident()
                .and_then(|i| self.consts.get(&i.to_string()))
                .and_then(|v| u64::try_from(*v).ok()),
            _ => None,
        };
        if value.is_none() && !self.lenient {
            self.diag.error(
                arg.span(),
                format!("the {what} must be an integer literal or a kernel `const`"),
            );
        }
        value
    }

    /// `pipeline::<T, STAGES, TILE>` / `pipeline_cluster::<T, STAGES, TILE, CTAS>`.
    fn pipeline_shape(&mut self, func: &Expr, cluster: bool) -> Option<PipeShape> {
        let generics = self.generic_args(func);
        let (t, stages, tile, ctas) = match (generics.as_slice(), cluster) {
            ([GenericArgument::Type(t), stages, tile], false) => (t, *stages, *tile, None),
            ([GenericArgument::Type(t), stages, tile, ctas], true) => {
                (t, *stages, *tile, Some(*ctas))
            }
            (_, false) => {
                self.diag.error(func.span(), "`pipeline` takes its element type, stage count and tile length: `pipeline::<f32, 4, 4096>(leader, 1, 128)`");
                return None;
            }
            (_, true) => {
                self.diag.error(func.span(), "`pipeline_cluster` takes its element type, stage count, tile length and the CTAs of the cluster: `pipeline_cluster::<f32, 4, 4096, 2>(leader, 1, 128)`");
                return None;
            }
        };
        let ctas = match ctas {
            None => 1,
            Some(c) => {
                let n = self.const_generic(c, "number of CTAs")?;
                if !(2..=16).contains(&n) {
                    self.diag.error(c.span(), format!("a cluster pipeline spans 2 to 16 CTAs (a multicast's mask has 16 bits), not {n}"));
                    return None;
                }
                n as u32
            }
        };
        let elem = match crate::params::elem_type(t) {
            Some(e) if e.prim != Prim::Bool => e,
            _ => {
                self.diag.error(
                    t.span(),
                    "pipeline tiles hold u32, i32, u64, i64, f32, f64, or [T; 2] / [T; 4] vectors",
                );
                return None;
            }
        };
        let (s, n) = (
            self.const_generic(stages, "stage count")?,
            self.const_generic(tile, "tile length")?,
        );
        if !(1..=32).contains(&s) {
            self.diag.error(
                stages.span(),
                format!("a pipeline has 1 to 32 stages, not {s}"),
            );
            return None;
        }
        let bytes = n * elem.size() as u64;
        if n == 0 || !bytes.is_multiple_of(16) {
            self.diag.error(tile.span(), format!("a tile is a positive multiple of 16 bytes for its bulk copy; {n} × {elem} is {bytes} (PTX ISA §9.7.9.25.4)"));
            return None;
        }
        if bytes * s > 227 * 1024 {
            self.diag.error(
                func.span(),
                format!(
                    "{s} stages of {bytes} bytes exceed the 227 KiB of shared memory a CTA can have"
                ),
            );
            return None;
        }
        Some(PipeShape {
            elem,
            stages: s as u32,
            tile: n as u32,
            ctas,
        })
    }

    pub(super) fn handle_method(&mut self, h: Handle, m: &syn::ExprMethodCall) -> usize {
        let name = m.method.to_string();
        if let (Handle::ProducerSlot(shape), "load_tile" | "load_tiles" | "load_tiles_multicast") =
            (h, name.as_str())
        {
            return self.tile_load(shape, m);
        }
        if let Handle::Acc(acc) = h {
            return self.acc_method(acc, m);
        }
        if let (Handle::Partial(acc), "arrive") = (h, name.as_str()) {
            return self.partial_arrive(acc, m);
        }
        let Some((_, params, out)) = handles::lookup(h, &name) else {
            return self.not_a_method(m, &format!("`{h}`"), handles::names(h));
        };
        if params.len() != m.args.len() {
            self.diag.error(
                m.span(),
                format!(
                    "`{name}` takes {} argument(s), found {}",
                    params.len(),
                    m.args.len()
                ),
            );
            return self.fresh(Slot::Free);
        }
        for (arg, param) in m.args.iter().zip(params.iter()) {
            let v = self.operand(arg);
            match param {
                Arg::U32 => self.expect_u32(v, arg),
                Arg::ConstU32 => {
                    self.const_u32_arg(arg, v, "the element count of a bulk copy");
                }
                Arg::Bool => {
                    let b = self.known(Ty::Prim(Prim::Bool));
                    self.unify(b, v, arg.span());
                }
                Arg::Sem | Arg::Scope | Arg::Parity => {
                    // mbarrier operations are `.cta` or `.cluster` scoped; expect_tx and
                    // complete_tx are `.relaxed` only (§9.7.13.15.11-13).
                    match (param, self.ty(v)) {
                        (
                            Arg::Scope,
                            Some(Ty::Handle(Handle::Scope(ScopeKind::Gpu | ScopeKind::Sys))),
                        ) => {
                            self.diag.error(arg.span(), "mbarrier operations have scope `Scope::Cta` or `Scope::Cluster` (PTX ISA §9.7.13.15)");
                        }
                        (Arg::Sem, Some(Ty::Handle(Handle::Sem(false))))
                            if name.ends_with("_tx_with") =>
                        {
                            self.diag.error(arg.span(), "expect_tx and complete_tx are `.relaxed` only: pass `Sem::Relaxed` (PTX ISA §9.7.13.15.11)");
                        }
                        _ => {}
                    }
                    let ok = matches!(
                        (param, self.ty(v)),
                        (_, None)
                            | (Arg::Sem, Some(Ty::Handle(Handle::Sem(_))))
                            | (Arg::Scope, Some(Ty::Handle(Handle::Scope(_))))
                            | (Arg::Parity, Some(Ty::Handle(Handle::Parity(_))))
                    );
                    if !ok {
                        let want = match param {
                            Arg::Sem => "`Sem::Ordered` or `Sem::Relaxed`",
                            Arg::Scope => "`Scope::Cta` or `Scope::Cluster`",
                            _ => "`EVEN` or `ODD`",
                        };
                        self.diag.error(arg.span(), format!("expected {want}"));
                    }
                }
                Arg::Shared => {
                    self.shared_elem(v, arg);
                }
                Arg::Global => {
                    self.global_elem(v, arg);
                }
            }
        }
        self.known(handles::result_type(h, out))
    }

    /// `let [a, b] = publish([a, b]);`
    pub(super) fn destructure_publish(&mut self, slice: &syn::PatSlice, init: &Expr) {
        let v = self.expr(init);
        let names: Vec<Option<String>> = slice
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    Some(i.ident.to_string())
                }
                _ => None,
            })
            .collect();
        match self.ty(v) {
            Some(Ty::Handle(Handle::MBarArray(n)))
                if n as usize == names.len() && names.iter().all(Option::is_some) => {}
            Some(_) => self.diag.error(
                slice.span(),
                "an array pattern binds the mbarriers of `publish([...])`, one name each",
            ),
            None => {}
        }
        let mut scope_items = HashMap::new();
        for name in names.into_iter().flatten() {
            let var = self.known(Ty::Handle(Handle::MBar));
            scope_items.insert(name, Binding { var });
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.extend(scope_items);
        }
    }
}
