//! The typed pipeline: `STAGES` buffers in dynamic shared memory, a full and an empty mbarrier
//! per stage, and producer/consumer positions (stage, phase parity) in registers.
//!
//! The producer starts at phase 0 and waits on `empty[stage]` for parity `phase ^ 1`: in the
//! first round that is the parity of the phase before the empty barrier's current one, for
//! which `try_wait.parity` returns at once (§9.7.13.15.16), so every buffer starts empty. From
//! the second round on it waits for the consumers' release of the round before.

use super::sync::{HVal, PipeState, PipeVal, SlotAddrs, reg_addr};
use super::{Lowerer, Val};
use crate::handles::Method;
use crate::types::{Handle, Prim, RegClass, Ty};
use phasegate_ptx::{Opcode, Operand, ScalarType};
use syn::Expr;

impl Lowerer<'_> {
    /// `pipeline::<T, STAGES, TILE>(leader, producer_arrivals, consumer_arrivals)`.
    pub(super) fn new_pipeline(&mut self, call: &syn::ExprCall, ty: Ty) -> Val {
        let Ty::Handle(Handle::Pipeline(shape)) = ty else {
            return self.internal_val("pipeline shape");
        };
        let mut it = call.args.iter();
        let (leader, producers, consumers) =
            (self.take(&mut it), self.take(&mut it), self.take(&mut it));
        let stages = shape.stages as u64;
        let full = self.declare_shared("full", 8, ScalarType::B64, Some(stages));
        let empty = self.declare_shared("empty", 8, ScalarType::B64, Some(stages));
        if self.dynamic_user {
            let span = self.span;
            self.diag.error(span, "declare pipelines before `dynamic_shared`: the pipeline's buffers come first in the dynamic shared memory");
        }
        let data_offset = self.dynamic_bytes.next_multiple_of(128);
        self.dynamic_bytes = data_offset + stages * shape.tile as u64 * shape.elem.size() as u64;
        self.dynamic_smem();
        let (producers, mut consumers) = (self.u32_operand(producers), self.u32_operand(consumers));
        if shape.ctas > 1 {
            // The consumers of every CTA of the cluster release each stage: a peer's multicast
            // writes this CTA's stage, and this CTA's writes the peers'.
            consumers = match consumers {
                Operand::Imm(phasegate_ptx::Imm::Int(n)) => Operand::int(n * shape.ctas as i64),
                other => {
                    let d = self.reg(RegClass::B32);
                    self.inst(
                        Opcode::Mul,
                        &["lo", "u32"],
                        vec![Operand::reg(&d), other, Operand::int(shape.ctas as i64)],
                    );
                    Operand::reg(&d)
                }
            };
        }
        let leader = match leader {
            Val::Imm(..) => leader,
            other => Val::Reg(Prim::Bool, self.in_reg(other)),
        };
        let mut inits = Vec::new();
        for s in 0..stages {
            for (sym, count) in [(&full, &producers), (&empty, &consumers)] {
                let at = Operand::Address(phasegate_ptx::Address {
                    base: phasegate_ptx::AddressBase::Symbol(sym.clone()),
                    offset: 8 * s as i64,
                });
                inits.push(phasegate_ptx::Instruction::new(
                    Opcode::Mbarrier,
                    &["init", "shared::cta", "b64"],
                    vec![at, count.clone()],
                ));
            }
        }
        self.guarded_all(leader, inits);
        if shape.ctas > 1 {
            // Peers arrive on these barriers and multicast into these stages: the inits must be
            // visible cluster-wide first (`fence.mbarrier_init` and the cluster barrier).
            self.inst(
                Opcode::Fence,
                &["mbarrier_init", "release", "cluster"],
                vec![],
            );
            self.cluster_sync(true);
        } else {
            self.publish(true);
        }
        Val::Handle(Box::new(HVal::Pipe(PipeVal {
            full,
            empty,
            data_offset,
            shape,
        })))
    }

    /// Arrives on a stage's empty barrier. On a cluster pipeline the stage is free in every CTA's
    /// eyes only when every CTA's consumers released it: this arrives on the empty barrier of
    /// each CTA of the cluster (a remote arrive sinks its state, PTX ISA §9.7.13.15.13). The
    /// arrive keeps the default `.release.cta` semantics, as CUTLASS's cluster barrier does:
    /// what it orders is this thread's reads of its own CTA's stage. `.release.cluster` makes
    /// ptxas put `MEMBAR.ALL.GPU` before every arrive, which cost a GEMM 40 % on an H100
    /// (book/src/performance/pipeline.md).
    pub(super) fn release_stage(&mut self, barrier: &str, ctas: u32) {
        if ctas <= 1 {
            let token = self.reg(RegClass::B64);
            self.inst(
                Opcode::Mbarrier,
                &["arrive", "shared::cta", "b64"],
                vec![Operand::reg(&token), reg_addr(barrier)],
            );
            return;
        }
        for rank in 0..ctas {
            let remote = self.reg(RegClass::B32);
            self.inst(
                Opcode::Mapa,
                &["shared::cluster", "u32"],
                vec![
                    Operand::reg(&remote),
                    Operand::reg(barrier),
                    Operand::int(rank as i64),
                ],
            );
            self.inst(
                Opcode::Mbarrier,
                &["arrive", "shared::cluster", "b64"],
                vec![Operand::Sink, reg_addr(&remote)],
            );
        }
    }

    /// `barrier.cluster.arrive.release` + `barrier.cluster.wait.acquire`, `.aligned` where every
    /// thread of each warp executes it together.
    pub(super) fn cluster_sync(&mut self, aligned: bool) {
        let a = if aligned { "aligned" } else { "" };
        self.inst(
            Opcode::Barrier,
            &["cluster", "arrive", "release", a],
            vec![],
        );
        self.inst(Opcode::Barrier, &["cluster", "wait", "acquire", a], vec![]);
    }

    /// Before a thread of a kernel with a cluster pipeline exits: its CTA's barriers and stages
    /// must outlive the peers' last remote arrives and multicasts, so every thread of the
    /// cluster meets at the cluster barrier first (not `.aligned`: threads of a warp may leave
    /// by different `return`s).
    pub(super) fn before_exit(&mut self) {
        if !self.types.cluster_pipelines.is_empty() {
            self.cluster_sync(false);
        }
    }

    fn new_position(&mut self) -> PipeState {
        let (stage, phase) = (self.reg(RegClass::B32), self.reg(RegClass::B32));
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&stage), Operand::int(0)],
        );
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&phase), Operand::int(0)],
        );
        PipeState { stage, phase }
    }

    /// The address of `barriers[stage]`.
    fn stage_barrier(&mut self, barriers: &str, state: &PipeState) -> String {
        let base = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&base), Operand::sym(barriers)],
        );
        self.mad_u32(&state.stage, 8, &base)
    }

    /// The address of the current stage's buffer.
    fn stage_buffer(&mut self, pipe: &PipeVal, state: &PipeState) -> String {
        let base = self.dynamic_base(pipe.data_offset);
        let tile_bytes = pipe.shape.tile as i64 * pipe.shape.elem.size() as i64;
        self.mad_u32(&state.stage, tile_bytes, &base)
    }

    /// Next stage; the phase parity flips when the stage wraps around.
    pub(super) fn advance(&mut self, pipe: &PipeVal, state: &PipeState) {
        self.inst(
            Opcode::Add,
            &["u32"],
            vec![
                Operand::reg(&state.stage),
                Operand::reg(&state.stage),
                Operand::int(1),
            ],
        );
        let wrap = self.reg(RegClass::Pred);
        self.inst(
            Opcode::Setp,
            &["eq", "u32"],
            vec![
                Operand::reg(&wrap),
                Operand::reg(&state.stage),
                Operand::int(pipe.shape.stages as i64),
            ],
        );
        let reset = phasegate_ptx::Instruction::new(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&state.stage), Operand::int(0)],
        );
        self.emit_guarded(&wrap, false, reset);
        let flip = phasegate_ptx::Instruction::new(
            Opcode::Xor,
            &["b32"],
            vec![
                Operand::reg(&state.phase),
                Operand::reg(&state.phase),
                Operand::int(1),
            ],
        );
        self.emit_guarded(&wrap, false, flip);
    }

    /// `count` stages on: the stage is `(stage + count) % STAGES`, and the parity flips if the
    /// ring wrapped an odd number of times (`(stage + count) / STAGES` odd).
    fn skip_stages(&mut self, pipe: &PipeVal, state: &PipeState, count: &str) {
        let stages = pipe.shape.stages as i64;
        let ahead = self.reg(RegClass::B32);
        self.inst(
            Opcode::Add,
            &["u32"],
            vec![
                Operand::reg(&ahead),
                Operand::reg(&state.stage),
                Operand::reg(count),
            ],
        );
        let wraps = self.reg(RegClass::B32);
        self.inst(
            Opcode::Div,
            &["u32"],
            vec![
                Operand::reg(&wraps),
                Operand::reg(&ahead),
                Operand::int(stages),
            ],
        );
        self.inst(
            Opcode::Rem,
            &["u32"],
            vec![
                Operand::reg(&state.stage),
                Operand::reg(&ahead),
                Operand::int(stages),
            ],
        );
        self.inst(
            Opcode::And,
            &["b32"],
            vec![Operand::reg(&wraps), Operand::reg(&wraps), Operand::int(1)],
        );
        self.inst(
            Opcode::Xor,
            &["b32"],
            vec![
                Operand::reg(&state.phase),
                Operand::reg(&state.phase),
                Operand::reg(&wraps),
            ],
        );
    }

    pub(super) fn pipeline_method(&mut self, method: Method, h: HVal, args: &[&Expr]) -> Val {
        let mut it = args.iter().copied();
        match (method, h) {
            (Method::Producer, HVal::Pipe(p)) => {
                let state = self.new_position();
                Val::Handle(Box::new(HVal::Producer(p, state)))
            }
            (Method::Consumer, HVal::Pipe(p)) => {
                let state = self.new_position();
                Val::Handle(Box::new(HVal::Consumer(p, state)))
            }
            (Method::Acquire, HVal::Producer(p, state)) => {
                let addrs = SlotAddrs {
                    barrier: self.stage_barrier(&p.full, &state),
                    buffer: self.stage_buffer(&p, &state),
                };
                let bar = self.stage_barrier(&p.empty, &state);
                let parity = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Xor,
                    &["b32"],
                    vec![
                        Operand::reg(&parity),
                        Operand::reg(&state.phase),
                        Operand::int(1),
                    ],
                );
                self.spin(
                    Opcode::Mbarrier,
                    &["try_wait", "parity", "shared::cta", "b64"],
                    vec![reg_addr(&bar), Operand::reg(&parity)],
                );
                Val::Handle(Box::new(HVal::ProducerSlot(p, state, addrs)))
            }
            (
                Method::SlotStage,
                HVal::ProducerSlot(_, state, _) | HVal::ConsumerSlot(_, state, _),
            ) => Val::Reg(Prim::U32, state.stage),
            (Method::Load, HVal::ProducerSlot(p, state, addrs)) => {
                let bytes = p.shape.tile as i64 * p.shape.elem.size() as i64;
                let token = self.reg(RegClass::B64);
                self.inst(
                    Opcode::Mbarrier,
                    &["arrive", "expect_tx", "shared::cta", "b64"],
                    vec![
                        Operand::reg(&token),
                        reg_addr(&addrs.barrier),
                        Operand::int(bytes),
                    ],
                );
                let (Some(src_expr), _) = (it.next(), ()) else {
                    return self.internal_val("load source");
                };
                let index = self.take(&mut it);
                let Some((src, _)) = self.global_element(src_expr, index) else {
                    return self.internal_val("load source");
                };
                self.inst(
                    Opcode::Cp,
                    &[
                        "async",
                        "bulk",
                        "shared::cluster",
                        "global",
                        "mbarrier::complete_tx::bytes",
                    ],
                    vec![
                        reg_addr(&addrs.buffer),
                        reg_addr(&src),
                        Operand::int(bytes),
                        reg_addr(&addrs.barrier),
                    ],
                );
                self.advance(&p, &state);
                Val::Unit
            }
            (Method::LoadTiles { multicast }, HVal::ProducerSlot(p, state, addrs)) => {
                let args: Vec<&Expr> = it.collect();
                self.load_tiles(&p, &state, &addrs, &args, multicast)
            }
            (Method::SlotAddress, HVal::ConsumerSlot(p, _, addrs)) => {
                let index = self.take(&mut it);
                let index = self.in_reg(index);
                let at = self.mad_u32(&index, p.shape.elem.size() as i64, &addrs.buffer);
                Val::Reg(Prim::U32, at)
            }
            (Method::ConsumerWait, HVal::Consumer(p, state)) => {
                let addrs = SlotAddrs {
                    barrier: self.stage_barrier(&p.empty, &state),
                    buffer: self.stage_buffer(&p, &state),
                };
                let bar = self.stage_barrier(&p.full, &state);
                self.spin(
                    Opcode::Mbarrier,
                    &["try_wait", "parity", "shared::cta", "b64"],
                    vec![reg_addr(&bar), Operand::reg(&state.phase)],
                );
                Val::Handle(Box::new(HVal::ConsumerSlot(p, state, addrs)))
            }
            (Method::ConsumerSkip, HVal::Consumer(p, state)) => {
                let count = self.take(&mut it);
                let count = self.in_reg(count);
                self.skip_stages(&p, &state, &count);
                Val::Unit
            }
            (Method::SlotGet, HVal::ConsumerSlot(p, _, addrs)) => {
                let index = self.take(&mut it);
                let elem = p.shape.elem;
                let index = self.in_reg(index);
                let at = self.mad_u32(&index, elem.size() as i64, &addrs.buffer);
                self.load_elem("shared", false, elem, reg_addr(&at))
            }
            (Method::Release, HVal::ConsumerSlot(p, state, addrs)) => {
                self.release_stage(&addrs.barrier, p.shape.ctas);
                self.advance(&p, &state);
                Val::Unit
            }
            (Method::ReleaseElected, HVal::ConsumerSlot(p, state, addrs)) => {
                // Every caller moves on; only the elected threads arrive.
                let elected = self.take(&mut it);
                let elected = self.in_reg(elected);
                let skip = self.new_label();
                self.emit_guarded(
                    &elected,
                    true,
                    phasegate_ptx::Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&skip)]),
                );
                self.release_stage(&addrs.barrier, p.shape.ctas);
                self.place_label(skip);
                self.advance(&p, &state);
                Val::Unit
            }
            (Method::Retire, HVal::ConsumerSlot(p, state, addrs)) => {
                self.advance(&p, &state);
                Val::Handle(Box::new(HVal::Retired {
                    barrier: addrs.barrier,
                    ctas: p.shape.ctas,
                }))
            }
            (Method::RetiredRelease, HVal::Retired { barrier, ctas }) => {
                self.release_stage(&barrier, ctas);
                Val::Unit
            }
            _ => self.internal_val("handle method on a handle of another kind"),
        }
    }
}
