//! The barrier vocabulary: named barriers (§9.7.13.1), mbarriers (§9.7.13.15) and the cluster
//! barrier (§9.7.13.2), each method lowered to exactly the PTX form the spec defines.
//!
//! The phase parity of a typed mbarrier handle lives in its Rust type; the lowering follows it
//! in [`HVal::MBar`], in step with the type, so a `try_wait.parity` gets the parity rustc
//! checked.

use super::{Lowerer, Val, strip};
use crate::handles::{ArriveForm, Method};
use crate::types::{Elem, Handle, PipeShape, Prim, RegClass, ScopeKind, Ty};
use phasegate_ptx::{
    Address, AddressBase, Imm, Instruction, Opcode, Operand, ScalarType, StateSpace, VarDecl,
};
use syn::Expr;

/// A handle during lowering.
#[derive(Clone, Debug, PartialEq)]
pub enum HVal {
    Named {
        id: Operand,
        threads: Option<Operand>,
        cta: bool,
    },
    /// A typed mbarrier: its shared symbol and the parity of its current phase.
    MBar {
        sym: String,
        parity: u8,
    },
    Arrival {
        sym: String,
        parity: u8,
        state: String,
    },
    Dropped,
    /// An mbarrier whose parity is in a `u32` register.
    DynMBar {
        sym: String,
        parity: String,
    },
    MBars(Vec<HVal>),
    /// A register budget (`warpgroup_registers`): nothing at run time.
    Registers,
    ClusterBar,
    ClusterArrival,
    Pipe(PipeVal),
    Producer(PipeVal, PipeState),
    /// An empty stage, with the addresses of its full barrier and its buffer.
    ProducerSlot(PipeVal, PipeState, SlotAddrs),
    Consumer(PipeVal, PipeState),
    /// A full stage, with the addresses of its empty barrier and its buffer.
    ConsumerSlot(PipeVal, PipeState, SlotAddrs),
    /// A retired stage: the address of its empty barrier.
    Retired {
        barrier: String,
        /// The CTAs whose empty barriers the release arrives on.
        ctas: u32,
    },
    /// A wgmma accumulator.
    Acc(super::wgmma::AccVal),
    /// A wgmma A operand in registers: one 32-bit register per pair of columns.
    Fragment(Vec<String>),
    /// An online softmax's registers.
    Softmax(super::attention::SoftmaxVal),
    /// The log-sum-exp of the thread's two rows.
    RowLse([String; 2]),
    /// A split sum's stored part (`store_partial`) and its arrival (`arrive`).
    Partial(super::split::PartVal),
    Split(super::split::SplitVal),
    /// A ping-pong handle or its turn: the first barrier id, the group, and the barriers this
    /// group waits on and passes to.
    PingPong {
        id: u32,
        group: String,
        mine: String,
        theirs: String,
    },
    /// Scores committed before an output (`commit_behind`).
    Overlap {
        s: super::wgmma::AccVal,
        o: super::wgmma::AccVal,
    },
    /// The dynamic shared memory from byte `offset` on.
    DynShared {
        elem: Elem,
        offset: u64,
    },
    /// A peer CTA's shared array at a `shared::cluster` address in a register.
    Peer {
        elem: Elem,
        base: String,
    },
    Sem(bool),
    Scope(ScopeKind),
    Parity(bool),
}

/// Which wait instruction a wait method is.
#[derive(Clone, Copy)]
struct WaitForm {
    test: bool,
    hinted: bool,
    with: bool,
}

/// A register two branches merge into: `(merged, from the then branch, from the else branch,
/// the move's type)`.
pub type RegMerge = (String, String, String, &'static str);

/// A pipeline's barriers and buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeVal {
    pub full: String,
    pub empty: String,
    /// Where its buffers start in the dynamic shared memory.
    pub data_offset: u64,
    pub shape: PipeShape,
}

/// The shared addresses a pipeline slot uses: the barrier it completes (a producer slot's full
/// barrier, a consumer slot's empty barrier) and its stage's buffer. They are computed before
/// the wait for the stage spins, so the first access after the wait needs no address
/// arithmetic: on the pipeline's critical path (stage full, consumers read it; stage empty,
/// the producer refills it) nothing but the wait itself.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotAddrs {
    pub barrier: String,
    pub buffer: String,
}

/// The registers of a producer's or consumer's position: stage and phase parity.
#[derive(Clone, Debug, PartialEq)]
pub struct PipeState {
    pub stage: String,
    pub phase: String,
}

pub(super) fn addr(sym: &str) -> Operand {
    Operand::Address(Address {
        base: AddressBase::Symbol(sym.to_string()),
        offset: 0,
    })
}

pub(super) fn reg_addr(reg: &str) -> Operand {
    Operand::Address(Address {
        base: AddressBase::Reg(reg.to_string()),
        offset: 0,
    })
}

fn mods(list: &[&str]) -> Vec<String> {
    list.iter()
        .filter(|m| !m.is_empty())
        .map(|m| m.to_string())
        .collect()
}

impl Lowerer<'_> {
    /// `mad.lo.u32 d, a, k, b` into a fresh register: the address arithmetic of stages,
    /// slots and tiles (`a * k + b`).
    pub(super) fn mad_u32(&mut self, a: &str, k: impl Into<i64>, b: &str) -> String {
        let d = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mad,
            &["lo", "u32"],
            vec![
                Operand::reg(&d),
                Operand::reg(a),
                Operand::int(k.into()),
                Operand::reg(b),
            ],
        );
        d
    }

    pub(super) fn inst(&mut self, opcode: Opcode, modifiers: &[&str], operands: Vec<Operand>) {
        self.emit(Instruction {
            guard: None,
            opcode,
            modifiers: mods(modifiers),
            operands,
        });
    }

    /// Declares a shared-memory variable of the kernel.
    pub(super) fn declare_shared(
        &mut self,
        name: &str,
        align: u32,
        ty: ScalarType,
        count: Option<u64>,
    ) -> String {
        let symbol = format!("{}_{}_{}", self.kernel, name, self.shared_decls.len());
        let mut decl = VarDecl::new(StateSpace::Shared, ty, symbol.clone());
        decl.align = Some(align);
        if let Some(n) = count {
            decl.array = vec![Some(n)];
        }
        self.shared_bytes = self.shared_bytes.next_multiple_of(align as u64) + decl.byte_size();
        self.shared_decls.push(decl);
        symbol
    }

    /// A `u32` operand: an immediate or a register.
    pub(super) fn u32_operand(&mut self, v: Val) -> Operand {
        match v {
            Val::Imm(_, imm) => Operand::Imm(imm),
            other => Operand::reg(self.in_reg(other)),
        }
    }

    /// `loop: <test> %p; @!%p bra loop;`: spins until the test instruction returns true.
    pub(super) fn spin(&mut self, opcode: Opcode, modifiers: &[&str], operands: Vec<Operand>) {
        let label = self.new_label();
        self.place_label(label.clone());
        let p = self.reg(RegClass::Pred);
        let mut all = vec![Operand::reg(&p)];
        all.extend(operands);
        self.inst(opcode, modifiers, all);
        self.emit_guarded(
            &p,
            true,
            Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&label)]),
        );
    }

    fn sem_scope(&self, sem: &Val, scope: &Val, release: bool) -> (&'static str, &'static str) {
        let sem = match sem {
            Val::Handle(h) if **h == HVal::Sem(true) => "relaxed",
            _ if release => "release",
            _ => "acquire",
        };
        // The checker has rejected the other scopes.
        let scope = match scope {
            Val::Handle(h) if **h == HVal::Scope(ScopeKind::Cluster) => "cluster",
            _ => "cta",
        };
        (sem, scope)
    }

    /// Constructors of the vocabulary's handles.
    pub(super) fn new_handle(&mut self, ty: Ty) -> Val {
        let h = match ty {
            Ty::Handle(Handle::Named {
                id,
                threads,
                cta_spelling,
                ..
            }) => HVal::Named {
                id: Operand::int(id as i64),
                threads: (threads > 0).then(|| Operand::int(threads as i64)),
                cta: cta_spelling,
            },
            Ty::Handle(Handle::MBar) => HVal::MBar {
                sym: self.declare_shared("mbar", 8, ScalarType::B64, None),
                parity: 0,
            },
            Ty::Handle(Handle::ClusterBar) => HVal::ClusterBar,
            _ => {
                self.internal("handle constructor");
                return Val::Unit;
            }
        };
        Val::Handle(Box::new(h))
    }

    pub(super) fn named_dyn(&mut self, id: Val, threads: Val) -> Val {
        let (id, threads) = (self.u32_operand(id), self.u32_operand(threads));
        Val::Handle(Box::new(HVal::Named {
            id,
            threads: Some(threads),
            cta: false,
        }))
    }

    /// Lowers the next argument of a call.
    pub(super) fn take<'e>(&mut self, args: &mut impl Iterator<Item = &'e Expr>) -> Val {
        match args.next() {
            Some(e) => self.expr(e),
            None => {
                self.internal("missing argument");
                Val::Unit
            }
        }
    }

    /// A method of a handle; its arguments are lowered here, in order, as the form needs them.
    pub(super) fn handle_method(&mut self, h: HVal, method: Method, arg_exprs: &[&Expr]) -> Val {
        use Method as M;
        let mut it = arg_exprs.iter().copied();
        match (method, h) {
            (M::PingTake, h) => self.ping_pong_method(h, "take"),
            (M::TurnPass, h) => self.ping_pong_method(h, "pass"),
            (M::PingEnd, h) => self.ping_pong_method(h, "end"),
            (M::LseStore, HVal::RowLse(lse)) => self.lse_store(lse, arg_exprs),
            (M::WaitScores, h) => self.overlap_method(h, "wait_scores", arg_exprs),
            (M::Scores, h) => self.overlap_method(h, "scores", arg_exprs),
            (M::OverlapSoftmax, h) => self.overlap_method(h, "softmax", arg_exprs),
            (M::BarSync { aligned }, HVal::Named { id, threads, cta }) => {
                let op = if aligned {
                    Opcode::Bar
                } else {
                    Opcode::Barrier
                };
                let mut operands = vec![id];
                operands.extend(threads);
                self.inst(op, &[if cta { "cta" } else { "" }, "sync"], operands);
                Val::Unit
            }
            (M::BarArrive { aligned }, HVal::Named { id, threads, cta }) => {
                let op = if aligned {
                    Opcode::Bar
                } else {
                    Opcode::Barrier
                };
                let mut operands = vec![id];
                operands.extend(threads);
                self.inst(op, &[if cta { "cta" } else { "" }, "arrive"], operands);
                Val::Unit
            }
            (M::BarRed { op, aligned }, HVal::Named { id, threads, cta }) => {
                let pred = self.predicate_operand(arg_exprs.first().copied());
                let popc = op == "popc";
                let d = if popc {
                    self.reg(RegClass::B32)
                } else {
                    self.reg(RegClass::Pred)
                };
                let mut operands = vec![Operand::reg(&d), id];
                operands.extend(threads);
                operands.push(pred);
                let opcode = if aligned {
                    Opcode::Bar
                } else {
                    Opcode::Barrier
                };
                self.inst(
                    opcode,
                    &[
                        if cta { "cta" } else { "" },
                        "red",
                        op,
                        if popc { "u32" } else { "pred" },
                    ],
                    operands,
                );
                Val::Reg(if popc { Prim::U32 } else { Prim::Bool }, d)
            }
            (M::Init, HVal::MBar { sym, .. }) => {
                let (leader, count) = (self.take(&mut it), self.take(&mut it));
                let count = self.u32_operand(count);
                self.guarded_by(
                    leader,
                    Instruction::new(
                        Opcode::Mbarrier,
                        &["init", "shared::cta", "b64"],
                        vec![addr(&sym), count],
                    ),
                );
                Val::Handle(Box::new(HVal::MBar { sym, parity: 0 }))
            }
            (M::Publish { fence }, HVal::MBar { sym, .. }) => {
                self.publish(fence);
                Val::Handle(Box::new(HVal::MBar { sym, parity: 0 }))
            }
            (M::Arrive { form, drop }, HVal::MBar { sym, parity }) => {
                let verb = if drop { "arrive_drop" } else { "arrive" };
                let (form_mod, sem, scope, extra) = match form {
                    ArriveForm::Plain => ("", "", "", None),
                    ArriveForm::Count => ("", "", "", Some(self.take(&mut it))),
                    ArriveForm::ExpectTx => ("expect_tx", "", "", Some(self.take(&mut it))),
                    ArriveForm::NoComplete => ("noComplete", "", "", Some(self.take(&mut it))),
                    ArriveForm::With => {
                        let (s, sc) = (self.take(&mut it), self.take(&mut it));
                        let (s, sc) = self.sem_scope(&s, &sc, true);
                        ("", s, sc, None)
                    }
                };
                let state = if drop {
                    None
                } else {
                    Some(self.reg(RegClass::B64))
                };
                let mut operands = vec![
                    state.as_ref().map(Operand::reg).unwrap_or(Operand::Sink),
                    addr(&sym),
                ];
                if let Some(v) = extra {
                    operands.push(self.u32_operand(v));
                }
                self.inst(
                    Opcode::Mbarrier,
                    &[verb, form_mod, sem, scope, "shared::cta", "b64"],
                    operands,
                );
                let h = match state {
                    Some(state) => HVal::Arrival { sym, parity, state },
                    None => HVal::Dropped,
                };
                Val::Handle(Box::new(h))
            }
            (M::Observe { test, hinted, with }, HVal::MBar { sym, parity }) => {
                let form = WaitForm { test, hinted, with };
                self.mbar_wait(&sym, Operand::int(parity as i64), true, form, &mut it);
                Val::Handle(Box::new(HVal::MBar {
                    sym,
                    parity: parity ^ 1,
                }))
            }
            (M::WaitParity, HVal::MBar { sym, parity }) => {
                self.spin(
                    Opcode::Mbarrier,
                    &["try_wait", "parity", "shared::cta", "b64"],
                    vec![addr(&sym), Operand::int(parity as i64)],
                );
                Val::Handle(Box::new(HVal::MBar {
                    sym,
                    parity: parity ^ 1,
                }))
            }
            (M::Inval, HVal::MBar { sym, .. }) => {
                let leader = self.take(&mut it);
                self.guarded_by(
                    leader,
                    Instruction::new(
                        Opcode::Mbarrier,
                        &["inval", "shared::cta", "b64"],
                        vec![addr(&sym)],
                    ),
                );
                Val::Handle(Box::new(HVal::MBar { sym, parity: 0 }))
            }
            (M::IntoDynamic, HVal::MBar { sym, parity }) => {
                let r = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Mov,
                    &["u32"],
                    vec![Operand::reg(&r), Operand::int(parity as i64)],
                );
                Val::Handle(Box::new(HVal::DynMBar { sym, parity: r }))
            }
            (M::ArriveLoad, HVal::MBar { sym, parity }) => {
                let state = self.reg(RegClass::B64);
                match self.bulk_load_operands(arg_exprs, 0) {
                    Some((dst, src, bytes)) => {
                        self.inst(
                            Opcode::Mbarrier,
                            &["arrive", "expect_tx", "shared::cta", "b64"],
                            vec![Operand::reg(&state), addr(&sym), Operand::int(bytes as i64)],
                        );
                        self.bulk_copy_to_shared(dst, src, bytes, &sym, None);
                    }
                    None => self.internal("arrive_load operands"),
                }
                Val::Handle(Box::new(HVal::Arrival { sym, parity, state }))
            }
            (M::ExpectTx { complete, with }, HVal::MBar { sym, .. }) => {
                let bytes = self.take(&mut it);
                let bytes = self.u32_operand(bytes);
                let (mut sem, mut scope) = ("", "");
                if with {
                    let (s, sc) = (self.take(&mut it), self.take(&mut it));
                    (sem, scope) = self.sem_scope(&s, &sc, false);
                }
                self.inst(
                    Opcode::Mbarrier,
                    &[
                        if complete { "complete_tx" } else { "expect_tx" },
                        sem,
                        scope,
                        "shared::cta",
                        "b64",
                    ],
                    vec![addr(&sym), bytes],
                );
                Val::Unit
            }
            (M::ArriveOnPeer { expect_tx, drop }, HVal::MBar { sym, .. }) => {
                let rank = self.take(&mut it);
                let remote = self.map_to_peer(&sym, rank);
                let mut operands = vec![Operand::Sink, reg_addr(&remote)];
                if expect_tx {
                    let b = self.take(&mut it);
                    operands.push(self.u32_operand(b));
                }
                let verb = if drop { "arrive_drop" } else { "arrive" };
                self.inst(
                    Opcode::Mbarrier,
                    &[
                        verb,
                        if expect_tx { "expect_tx" } else { "" },
                        "release",
                        "cluster",
                        "shared::cluster",
                        "b64",
                    ],
                    operands,
                );
                Val::Unit
            }
            (M::CpAsyncArrive { noinc }, HVal::MBar { sym, .. }) => {
                self.inst(
                    Opcode::Cp,
                    &[
                        "async",
                        "mbarrier",
                        "arrive",
                        if noinc { "noinc" } else { "" },
                        "shared::cta",
                        "b64",
                    ],
                    vec![addr(&sym)],
                );
                Val::Unit
            }
            (M::Wait { test, hinted, with }, HVal::Arrival { sym, parity, state }) => {
                let form = WaitForm { test, hinted, with };
                self.mbar_wait(&sym, Operand::reg(&state), false, form, &mut it);
                Val::Handle(Box::new(HVal::MBar {
                    sym,
                    parity: parity ^ 1,
                }))
            }
            (M::PendingCount, HVal::Arrival { state, .. }) => {
                let d = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Mbarrier,
                    &["pending_count", "b64"],
                    vec![Operand::reg(&d), Operand::reg(&state)],
                );
                Val::Reg(Prim::U32, d)
            }
            (M::DynArrive { expect_tx }, HVal::DynMBar { sym, .. }) => {
                let state = self.reg(RegClass::B64);
                let mut operands = vec![Operand::reg(&state), addr(&sym)];
                if expect_tx {
                    let b = self.take(&mut it);
                    operands.push(self.u32_operand(b));
                }
                self.inst(
                    Opcode::Mbarrier,
                    &[
                        "arrive",
                        if expect_tx { "expect_tx" } else { "" },
                        "shared::cta",
                        "b64",
                    ],
                    operands,
                );
                Val::Unit
            }
            (M::DynWait, HVal::DynMBar { sym, parity }) => {
                self.spin(
                    Opcode::Mbarrier,
                    &["try_wait", "parity", "shared::cta", "b64"],
                    vec![addr(&sym), Operand::reg(&parity)],
                );
                self.inst(
                    Opcode::Xor,
                    &["b32"],
                    vec![
                        Operand::reg(&parity),
                        Operand::reg(&parity),
                        Operand::int(1),
                    ],
                );
                Val::Unit
            }
            (M::DynParity, HVal::DynMBar { parity, .. }) => Val::Reg(Prim::U32, parity),
            (M::ClusterArrive { sem, aligned }, HVal::ClusterBar) => {
                self.inst(
                    Opcode::Barrier,
                    &[
                        "cluster",
                        "arrive",
                        sem.unwrap_or(""),
                        if aligned { "aligned" } else { "" },
                    ],
                    vec![],
                );
                Val::Handle(Box::new(HVal::ClusterArrival))
            }
            (M::ClusterWait { acquire, aligned }, HVal::ClusterArrival) => {
                self.inst(
                    Opcode::Barrier,
                    &[
                        "cluster",
                        "wait",
                        if acquire { "acquire" } else { "" },
                        if aligned { "aligned" } else { "" },
                    ],
                    vec![],
                );
                Val::Handle(Box::new(HVal::ClusterBar))
            }
            (method, h) => self.pipeline_method(method, h, arg_exprs),
        }
    }

    /// Spins on `mbarrier.{test,try}_wait{.parity}{.sem.scope}` until the phase named by
    /// `phase` (a parity, or the state an arrive returned) has completed; the hint and the
    /// semantics come from the next arguments.
    fn mbar_wait<'e>(
        &mut self,
        sym: &str,
        phase: Operand,
        parity: bool,
        form: WaitForm,
        args: &mut impl Iterator<Item = &'e Expr>,
    ) {
        let verb = if form.test { "test_wait" } else { "try_wait" };
        let mut operands = vec![addr(sym), phase];
        if form.hinted {
            let hint = self.take(args);
            operands.push(self.u32_operand(hint));
        }
        let (mut sem, mut scope) = ("", "");
        if form.with {
            let (s, sc) = (self.take(args), self.take(args));
            (sem, scope) = self.sem_scope(&s, &sc, false);
        }
        self.spin(
            Opcode::Mbarrier,
            &[
                verb,
                if parity { "parity" } else { "" },
                sem,
                scope,
                "shared::cta",
                "b64",
            ],
            operands,
        );
    }

    /// `fence.mbarrier_init.release.cluster` (if `fence`) and `bar.sync 0`.
    pub(super) fn publish(&mut self, fence: bool) {
        if fence {
            self.inst(
                Opcode::Fence,
                &["mbarrier_init", "release", "cluster"],
                vec![],
            );
        }
        self.inst(Opcode::Bar, &["sync"], vec![Operand::int(0)]);
    }

    /// Emits `inst` in the threads where `cond` holds (`@%p`), or always / never for constants.
    pub(super) fn guarded_by(&mut self, cond: Val, inst: Instruction) {
        self.guarded_all(cond, vec![inst]);
    }

    /// Emits `insts` in the threads where `cond` holds, or always / never for constants. One
    /// instruction is predicated (`@%p`); several go behind one branch (`@!%p bra skip`), since
    /// ptxas gives each predicated `mbarrier.init` a branch and a fence of its own (five
    /// `FENCE.VIEW.ASYNC.S` for a 4-stage pipeline's eight inits, where the branch form has one).
    pub(super) fn guarded_all(&mut self, cond: Val, insts: Vec<Instruction>) {
        match cond {
            Val::Imm(_, Imm::Int(0)) => {}
            Val::Imm(..) => insts.into_iter().for_each(|i| self.emit(i)),
            other => {
                let p = self.in_reg(other);
                if let [_] = insts.as_slice() {
                    insts
                        .into_iter()
                        .for_each(|i| self.emit_guarded(&p, false, i));
                    return;
                }
                let skip = self.new_label();
                self.emit_guarded(
                    &p,
                    true,
                    Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&skip)]),
                );
                insts.into_iter().for_each(|i| self.emit(i));
                self.place_label(skip);
            }
        }
    }

    /// The predicate operand of `bar.red`: an argument `!p` becomes the negated-operand form
    /// `!%p` of the spec's `{!}c` rather than a separate `not.pred`.
    fn predicate_operand(&mut self, e: Option<&Expr>) -> Operand {
        let Some(e) = e else {
            self.internal("bar.red without a predicate");
            return Operand::Sink;
        };
        if let Expr::Unary(u) = strip(e)
            && matches!(u.op, syn::UnOp::Not(_))
            && self.ty(&u.expr) == Ty::Prim(Prim::Bool)
        {
            let inner = self.expr(&u.expr);
            return Operand::Not(Box::new(Operand::reg(self.in_reg(inner))));
        }
        let v = self.expr(e);
        Operand::reg(self.in_reg(v))
    }

    /// `mapa.shared::cluster.u32 remote, local, rank`: the address of the same shared variable
    /// in the cluster's CTA of rank `rank`.
    pub(super) fn map_to_peer(&mut self, sym: &str, rank: Val) -> String {
        let local = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&local), Operand::sym(sym)],
        );
        let rank = self.u32_operand(rank);
        let remote = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mapa,
            &["shared::cluster", "u32"],
            vec![Operand::reg(&remote), Operand::reg(&local), rank],
        );
        remote
    }

    /// Merges the handles two branches of an `if` produce: equal handles stay; handles of one
    /// barrier that differ in registers get common registers, with the moves each branch makes;
    /// two accumulators (`let acc = if whole { acc } else { total }`) merge into the
    /// then-branch's registers. Otherwise the error to report on the `if`.
    pub(super) fn merge_handles(
        &mut self,
        a: HVal,
        b: HVal,
    ) -> Result<(HVal, Vec<RegMerge>), &'static str> {
        if a == b {
            return Ok((a, Vec::new()));
        }
        match (a, b) {
            // rustc has checked that both are the same type, so of one shape; moving registers
            // that a committed wgmma group may still write would read them early (§9.7.15.7.3).
            (HVal::Acc(x), HVal::Acc(y)) => {
                if x.open || y.open || x.in_flight || y.in_flight || x.regs.len() != y.regs.len() {
                    return Err(
                        "an `if` gives an accumulator only where both branches give a complete one: wait for its groups first (`.wait::<0>()`), so that no wgmma still writes the registers the branches merge",
                    );
                }
                let moves = x
                    .regs
                    .iter()
                    .zip(&y.regs)
                    .map(|(d, s)| (d.clone(), d.clone(), s.clone(), "f32"))
                    .collect();
                Ok((HVal::Acc(x), moves))
            }
            (
                HVal::Arrival {
                    sym,
                    parity,
                    state: s1,
                },
                HVal::Arrival {
                    sym: sym2,
                    parity: p2,
                    state: s2,
                },
            ) if sym == sym2 && parity == p2 => {
                let state = self.reg(RegClass::B64);
                Ok((
                    HVal::Arrival {
                        sym,
                        parity,
                        state: state.clone(),
                    },
                    vec![(state, s1, s2, "b64")],
                ))
            }
            _ => Err(
                "the two branches of this `if` give different barrier handles; give the same handle back from both",
            ),
        }
    }
}
