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
        let (producers, consumers) = (self.u32_operand(producers), self.u32_operand(consumers));
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
        self.publish(true);
        Val::Handle(Box::new(HVal::Pipe(PipeVal {
            full,
            empty,
            data_offset,
            shape,
        })))
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
        let d = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mad,
            &["lo", "u32"],
            vec![
                Operand::reg(&d),
                Operand::reg(&state.stage),
                Operand::int(8),
                Operand::reg(&base),
            ],
        );
        d
    }

    /// The address of the current stage's buffer.
    fn stage_buffer(&mut self, pipe: &PipeVal, state: &PipeState) -> String {
        let base = self.dynamic_base(pipe.data_offset);
        let tile_bytes = pipe.shape.tile as i64 * pipe.shape.elem.size() as i64;
        let d = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mad,
            &["lo", "u32"],
            vec![
                Operand::reg(&d),
                Operand::reg(&state.stage),
                Operand::int(tile_bytes),
                Operand::reg(&base),
            ],
        );
        d
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
            (Method::LoadTiles, HVal::ProducerSlot(p, state, addrs)) => {
                let args: Vec<&Expr> = it.collect();
                self.load_tiles(&p, &state, &addrs, &args)
            }
            (Method::SlotAddress, HVal::ConsumerSlot(p, _, addrs)) => {
                let index = self.take(&mut it);
                let index = self.in_reg(index);
                let at = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Mad,
                    &["lo", "u32"],
                    vec![
                        Operand::reg(&at),
                        Operand::reg(&index),
                        Operand::int(p.shape.elem.size() as i64),
                        Operand::reg(&addrs.buffer),
                    ],
                );
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
            (Method::SlotGet, HVal::ConsumerSlot(p, _, addrs)) => {
                let index = self.take(&mut it);
                let elem = p.shape.elem;
                let index = self.in_reg(index);
                let at = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Mad,
                    &["lo", "u32"],
                    vec![
                        Operand::reg(&at),
                        Operand::reg(&index),
                        Operand::int(elem.size() as i64),
                        Operand::reg(&addrs.buffer),
                    ],
                );
                self.load_elem("shared", false, elem, reg_addr(&at))
            }
            (Method::Release, HVal::ConsumerSlot(p, state, addrs)) => {
                let token = self.reg(RegClass::B64);
                self.inst(
                    Opcode::Mbarrier,
                    &["arrive", "shared::cta", "b64"],
                    vec![Operand::reg(&token), reg_addr(&addrs.barrier)],
                );
                self.advance(&p, &state);
                Val::Unit
            }
            (Method::Retire, HVal::ConsumerSlot(p, state, addrs)) => {
                self.advance(&p, &state);
                Val::Handle(Box::new(HVal::Retired {
                    barrier: addrs.barrier,
                }))
            }
            (Method::RetiredRelease, HVal::Retired { barrier }) => self.retired_release(&barrier),
            _ => self.internal_val("handle method on a handle of another kind"),
        }
    }
}
