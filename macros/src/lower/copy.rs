//! Asynchronous copies (`cp.async.bulk`, `cp.async`), fences, `elect.sync`, `nanosleep`,
//! distributed and dynamic shared memory.

use super::sync::{HVal, addr, reg_addr};
use super::{Binding, Lowerer, Val};
use crate::builtins::SyncFn;
use crate::params::{const_usize, memory_name};
use crate::types::{Elem, Handle, Prim, RegClass, ScopeKind, Ty};
use phasegate_ptx::{Linkage, Opcode, Operand, ScalarType, StateSpace, VarDecl};
use syn::Expr;

impl Lowerer<'_> {
    /// The symbol of the kernel's dynamic shared memory, declared on first use.
    pub(super) fn dynamic_smem(&mut self) -> String {
        let sym = format!("{}_dynamic_smem", self.kernel);
        if !self.module_vars.iter().any(|d| d.name == sym) {
            let mut decl = VarDecl::new(StateSpace::Shared, ScalarType::B8, sym.clone());
            decl.linkage = Some(Linkage::Extern);
            decl.align = Some(128);
            decl.array = vec![None];
            self.module_vars.push(decl);
        }
        sym
    }

    /// The shared-window address of element `index` of the shared memory that `e` names.
    pub(super) fn shared_element(&mut self, e: &Expr, index: Val) -> Option<(String, Elem)> {
        let name = memory_name(e)?;
        let (base, elem) = match self.lookup(&name)? {
            Binding::Shared { elem, base, .. } => (base, elem),
            Binding::Value {
                val: Val::Handle(h),
                ..
            } => match *h {
                HVal::DynShared { elem, offset } => (self.dynamic_base(offset), elem),
                _ => return None,
            },
            _ => return None,
        };
        let index = self.in_reg(index);
        let d = self.mad_u32(&index, elem.size() as i64, &base);
        Some((d, elem))
    }

    /// The address of byte `offset` of the dynamic shared memory, in a register.
    pub(super) fn dynamic_base(&mut self, offset: u64) -> String {
        let sym = self.dynamic_smem();
        let base = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&base), Operand::sym(&sym)],
        );
        self.offset_address(&base, offset)
    }

    /// The shared address `offset` bytes past `base` (`base` itself when `offset` is 0).
    pub(super) fn offset_address(&mut self, base: &str, offset: u64) -> String {
        if offset == 0 {
            return base.to_string();
        }
        let d = self.reg(RegClass::B32);
        self.inst(
            Opcode::Add,
            &["u32"],
            vec![
                Operand::reg(&d),
                Operand::reg(base),
                Operand::int(offset as i64),
            ],
        );
        d
    }

    /// The global address of element `index` of the slice that `e` names.
    pub(super) fn global_element(&mut self, e: &Expr, index: Val) -> Option<(String, Elem)> {
        let name = memory_name(e)?;
        let Binding::Global { elem, base, .. } = self.lookup(&name)? else {
            return None;
        };
        let index = self.in_reg(index);
        Some((self.wide_offset(&base, &index, elem.size() as i64), elem))
    }

    /// `base + index · size` in a 64-bit register (`mad.wide.u32`), `index` a `u32` register.
    pub(super) fn wide_offset(&mut self, base: &str, index: &str, size: i64) -> String {
        let d = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mad,
            &["wide", "u32"],
            vec![
                Operand::reg(&d),
                Operand::reg(index),
                Operand::int(size),
                Operand::reg(base),
            ],
        );
        d
    }

    /// `(dst, dst_index, src, src_index, elements)` of a load into shared memory, starting at
    /// argument `first`: the two addresses and the byte count.
    pub(super) fn bulk_load_operands(
        &mut self,
        args: &[&Expr],
        first: usize,
    ) -> Option<(String, String, u64)> {
        let a = args.get(first..first + 5)?;
        let di = self.expr(a[1]);
        let (dst, elem) = self.shared_element(a[0], di)?;
        let si = self.expr(a[3]);
        let (src, _) = self.global_element(a[2], si)?;
        let elements = self.const_arg(a[4])?;
        Some((dst, src, elements * elem.size() as u64))
    }

    /// A compile-time `u32` argument (the checker has made sure it is one).
    pub(super) fn const_arg(&mut self, e: &Expr) -> Option<u64> {
        match self.expr(e) {
            Val::Imm(_, phasegate_ptx::Imm::Int(v)) => Some(v as u64),
            _ => const_usize(e).or_else(|| {
                self.internal("compile-time argument");
                None
            }),
        }
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}`.
    pub(super) fn bulk_copy_to_shared(
        &mut self,
        dst: String,
        src: String,
        bytes: u64,
        bar: &str,
        mask: Option<Operand>,
    ) {
        let mut operands = vec![
            reg_addr(&dst),
            reg_addr(&src),
            Operand::int(bytes as i64),
            addr(bar),
        ];
        let multicast = mask.is_some();
        operands.extend(mask);
        self.inst(
            Opcode::Cp,
            &[
                "async",
                "bulk",
                "shared::cluster",
                "global",
                "mbarrier::complete_tx::bytes",
                if multicast { "multicast::cluster" } else { "" },
            ],
            operands,
        );
    }

    /// The free functions of the vocabulary.
    pub(super) fn sync_fn(&mut self, f: SyncFn, call: &syn::ExprCall, ty: Ty) -> Val {
        let args: Vec<&Expr> = call.args.iter().collect();
        let mut it = call.args.iter();
        match f {
            SyncFn::Named { .. } | SyncFn::MBarrier | SyncFn::ClusterBarrier => self.new_handle(ty),
            SyncFn::NamedDyn => {
                let (id, threads) = (self.take(&mut it), self.take(&mut it));
                self.named_dyn(id, threads)
            }
            SyncFn::Publish | SyncFn::PublishCta => {
                let Some(Expr::Array(arr)) = call.args.first() else {
                    self.internal("publish argument");
                    return Val::Unit;
                };
                let bars: Vec<HVal> = arr
                    .elems
                    .iter()
                    .filter_map(|e| match self.expr(e) {
                        Val::Handle(h) => Some(*h),
                        _ => None,
                    })
                    .collect();
                self.publish(f == SyncFn::Publish);
                Val::Handle(Box::new(HVal::MBars(bars)))
            }
            SyncFn::Pipeline | SyncFn::PipelineCluster => self.new_pipeline(call, ty),
            SyncFn::Accumulator => self.new_accumulator(ty),
            SyncFn::OnlineSoftmax => self.new_softmax(&call.args[0], ty),
            SyncFn::PingPong => self.new_ping_pong(&call.args[0], ty),
            SyncFn::PeerShared => {
                let (Some(name), Ty::Handle(Handle::Peer(elem, _))) =
                    (call.args.first().and_then(memory_name), ty)
                else {
                    self.internal("peer_shared operands");
                    return Val::Unit;
                };
                let Some(Binding::Shared { symbol, .. }) = self.lookup(&name) else {
                    self.internal("peer_shared of a non-array");
                    return Val::Unit;
                };
                let _ = it.next();
                let rank = self.take(&mut it);
                let base = self.map_to_peer(&symbol, rank);
                Val::Handle(Box::new(HVal::Peer { elem, base }))
            }
            SyncFn::DynamicShared => {
                let Ty::Handle(Handle::DynShared(elem)) = ty else {
                    self.internal("dynamic_shared type");
                    return Val::Unit;
                };
                let offset = self.dynamic_bytes.next_multiple_of(128);
                self.dynamic_smem();
                self.dynamic_user = true;
                Val::Handle(Box::new(HVal::DynShared { elem, offset }))
            }
            SyncFn::BulkLoad | SyncFn::BulkLoadMulticast => {
                let bar = match self.take(&mut it) {
                    Val::Handle(h) => match *h {
                        HVal::MBar { sym, .. } => sym,
                        _ => return self.internal_val("bulk_load barrier"),
                    },
                    _ => return self.internal_val("bulk_load barrier"),
                };
                let Some((dst, src, bytes)) = self.bulk_load_operands(&args, 1) else {
                    return self.internal_val("bulk_load operands");
                };
                let mask = if f == SyncFn::BulkLoadMulticast {
                    let m = self.expr(args[6]);
                    let m = self.u32_operand(m);
                    let r = self.reg(RegClass::B16);
                    self.inst(Opcode::Cvt, &["u16", "u32"], vec![Operand::reg(&r), m]);
                    Some(Operand::reg(r))
                } else {
                    None
                };
                self.bulk_copy_to_shared(dst, src, bytes, &bar, mask);
                Val::Unit
            }
            SyncFn::BulkStore => {
                let di = self.expr(args[1]);
                let Some((dst, elem)) = self.global_element(args[0], di) else {
                    return self.internal_val("bulk_store destination");
                };
                let si = self.expr(args[3]);
                let Some((src, _)) = self.shared_element(args[2], si) else {
                    return self.internal_val("bulk_store source");
                };
                let Some(n) = self.const_arg(args[4]) else {
                    return Val::Unit;
                };
                let bytes = n * elem.size() as u64;
                self.inst(
                    Opcode::Cp,
                    &["async", "bulk", "global", "shared::cta", "bulk_group"],
                    vec![reg_addr(&dst), reg_addr(&src), Operand::int(bytes as i64)],
                );
                Val::Unit
            }
            SyncFn::TmaStore => self.tma_store(&args),
            // A budget is a compile-time count; only the roles emit instructions.
            SyncFn::Registers => Val::Handle(Box::new(HVal::Registers)),
            SyncFn::BulkCommit => {
                self.inst(Opcode::Cp, &["async", "bulk", "commit_group"], vec![]);
                Val::Unit
            }
            SyncFn::BulkWait | SyncFn::BulkWaitRead => {
                let Some(n) = self.const_arg(args[0]) else {
                    return Val::Unit;
                };
                self.inst(
                    Opcode::Cp,
                    &[
                        "async",
                        "bulk",
                        "wait_group",
                        if f == SyncFn::BulkWaitRead {
                            "read"
                        } else {
                            ""
                        },
                    ],
                    vec![Operand::int(n as i64)],
                );
                Val::Unit
            }
            SyncFn::CpAsync => {
                let di = self.expr(args[1]);
                let Some((dst, elem)) = self.shared_element(args[0], di) else {
                    return self.internal_val("cp_async destination");
                };
                let si = self.expr(args[3]);
                let Some((src, _)) = self.global_element(args[2], si) else {
                    return self.internal_val("cp_async source");
                };
                // `.cg` (bypassing L1) exists for 16-byte copies only; `.ca` for all sizes.
                let cache = if elem.size() == 16 { "cg" } else { "ca" };
                self.inst(
                    Opcode::Cp,
                    &["async", cache, "shared", "global"],
                    vec![
                        reg_addr(&dst),
                        reg_addr(&src),
                        Operand::int(elem.size() as i64),
                    ],
                );
                Val::Unit
            }
            SyncFn::FenceProxyAsync => {
                self.inst(Opcode::Fence, &["proxy", "async", "shared::cta"], vec![]);
                Val::Unit
            }
            SyncFn::FenceMbarrierInit => {
                self.inst(
                    Opcode::Fence,
                    &["mbarrier_init", "release", "cluster"],
                    vec![],
                );
                Val::Unit
            }
            SyncFn::FenceAcqRel | SyncFn::FenceSc => {
                let scope = match self.take(&mut it) {
                    Val::Handle(h) => match *h {
                        HVal::Scope(s) => s,
                        _ => ScopeKind::Cta,
                    },
                    _ => ScopeKind::Cta,
                };
                self.inst(
                    Opcode::Fence,
                    &[
                        if f == SyncFn::FenceSc {
                            "sc"
                        } else {
                            "acq_rel"
                        },
                        scope.name(),
                    ],
                    vec![],
                );
                Val::Unit
            }
            SyncFn::Membar(level) => {
                self.inst(Opcode::Membar, &[level], vec![]);
                Val::Unit
            }
            SyncFn::ElectOne => {
                let (r, p) = (self.reg(RegClass::B32), self.reg(RegClass::Pred));
                self.inst(
                    Opcode::Elect,
                    &["sync"],
                    vec![
                        Operand::Pair(Box::new(Operand::reg(&r)), Box::new(Operand::reg(&p))),
                        Operand::int(0xffff_ffff),
                    ],
                );
                Val::Reg(Prim::Bool, p)
            }
            SyncFn::Nanosleep => {
                let ns = self.take(&mut it);
                let ns = self.u32_operand(ns);
                self.inst(Opcode::Nanosleep, &["u32"], vec![ns]);
                Val::Unit
            }
        }
    }

    pub(super) fn internal_val(&mut self, what: &str) -> Val {
        self.internal(what);
        Val::Unit
    }

    /// `let [a, b] = publish([a, b]);`
    pub(super) fn bind_published(&mut self, slice: &syn::PatSlice, init: &Expr) {
        let bars = match self.expr(init) {
            Val::Handle(h) => match *h {
                HVal::MBars(bars) => bars,
                _ => return self.internal("publish result"),
            },
            _ => return self.internal("publish result"),
        };
        for (pat, bar) in slice.elems.iter().zip(bars) {
            if let syn::Pat::Ident(i) = pat {
                self.bind(
                    i.ident.to_string(),
                    Binding::Value {
                        val: Val::Handle(Box::new(bar)),
                        mutable: false,
                    },
                );
            }
        }
    }
}

/// Loads and stores through a peer CTA's shared array or the dynamic shared memory.
impl Lowerer<'_> {
    /// The address of `handle[index]` and its state space, for the memory lowering.
    pub(super) fn handle_element(
        &mut self,
        h: &HVal,
        index: Val,
    ) -> Option<(String, Elem, &'static str)> {
        match h {
            HVal::DynShared { elem, offset } => {
                let base = self.dynamic_base(*offset);
                let index = self.in_reg(index);
                let d = self.mad_u32(&index, elem.size() as i64, &base);
                Some((d, *elem, "shared"))
            }
            HVal::Peer { elem, base } => {
                let index = self.in_reg(index);
                let d = self.mad_u32(&index, elem.size() as i64, base);
                Some((d, *elem, "shared::cluster"))
            }
            _ => None,
        }
    }
}
