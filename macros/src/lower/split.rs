//! A sum split across CTAs (split-K): `store_partial`, `arrive`, `last` and `total`.
//!
//! Each warp group that computed part of a sum stores it into its part's slice of an `f32`
//! buffer, in the order its threads hold the elements (element `i` of the warp group's thread
//! `t` at `4 · 128 · (i / 4) + 4 t + i % 4`: each `st.global.v4.f32` of a warp writes 512
//! contiguous bytes, where the matrix's row-major order took 8 rows of 32 bytes an
//! instruction and made the split slower than no split), then takes a ticket from a counter with
//! `atom.acq_rel.gpu.global.add.u32` (PTX ISA §9.7.13.5). The warp group that draws the last
//! ticket reads the parts, which every other arrival released before it took its ticket, and
//! adds them in the order of their index, so the total does not depend on which CTA came last.
//! As many parts as the thread's registers hold beside the total ([`PART_REGISTERS`]) are read
//! in one block without branches, each load and add guarded by `part < splits`, so that their
//! loads are in flight together; any further parts one at a time in a loop. Two syncs on the warp group's named barrier make the release and the acquire the whole warp
//! group's: the first orders every thread's stores before the ticket (a release is cumulative
//! over what the barrier made visible to the ticket's thread, PTX ISA §8.9), the second hands
//! the ticket's outcome and its acquire to every thread. The last arrival sets the counter back
//! to zero, so the next launch finds it as the first did.
//!
//! The total is readable only where the arrival was the last: `total()` must be inside
//! `if arrival.last() { .. }` (or `if last { .. }` with `let last = arrival.last()`), which
//! this file checks, so no warp group reads parts other CTAs are still storing.

use super::expr::Arith;
use super::sync::HVal;
use super::wgmma::AccVal;
use super::{Lowerer, Val};
use crate::types::{AccShape, Elem, Prim, RegClass};
use phasegate_ptx::{Address, AddressBase, Imm, Instruction, Opcode, Operand, ScalarType};

/// A stored part during lowering.
#[derive(Clone, Debug, PartialEq)]
pub struct PartVal {
    /// The address of the thread's first four elements in part 0.
    pub base: String,
    /// The bytes from one part to the next (64-bit).
    pub stride: String,
    pub shape: AccShape,
}

/// The bytes from one group of four elements of a part to the next: a warp group's 128
/// threads, 16 bytes each.
const GROUP_BYTES: i64 = 128 * 16;

/// The registers a thread gives the parts `total()` loads in one block, part 0 (loaded into the
/// total's own registers) and as many more as fit, at most eight in all: their loads are in
/// flight together; any further parts are read one at a time. More made ptxas spill under the
/// consumers' 232 registers (a 64 × 128 accumulator, 64 registers, with three more parts
/// beside it; a 64 × 256 one, 128 registers, with one).
const PART_REGISTERS: usize = 192;

/// An arrival during lowering.
#[derive(Clone, Debug, PartialEq)]
pub struct SplitVal {
    /// Which `arrive` made it (for the `last` check).
    pub id: u32,
    /// The predicate `last()` gives: the same in every thread of the warp group.
    pub last: String,
    pub part: PartVal,
    /// How many parts (a `u32` register or immediate).
    pub splits: Operand,
}

impl Lowerer<'_> {
    /// `acc.store_partial(partials, index, part, stride)`: `st.global.v4.f32` of elements
    /// `4 j .. 4 j + 4` to `partials[index + part · stride + 512 j + 4 t ..]`, `t` the thread
    /// in its warp group.
    pub(super) fn store_partial(&mut self, acc: &AccVal, m: &syn::ExprMethodCall) -> Val {
        let a = &m.args;
        let u = |v: i64| Val::Imm(Prim::U32, Imm::Int(v));
        let index = self.expr(&a[1]);
        let part = self.expr(&a[2]);
        let stride = self.expr(&a[3]);
        let (thread, _) = self.group_thread();
        let first = self.arith(Arith::Shl, Prim::U32, thread, u(2));
        let first = self.arith(Arith::Add, Prim::U32, first, index);
        let Some((base, _)) = self.global_element(&a[0], first) else {
            return self.internal_val("split parts");
        };
        let stride_reg = self.in_reg(stride.clone());
        let stride_bytes = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mul,
            &["wide", "u32"],
            vec![
                Operand::reg(&stride_bytes),
                Operand::reg(&stride_reg),
                Operand::int(4),
            ],
        );
        let skip = self.arith(Arith::Mul, Prim::U32, part, stride);
        let skip = self.in_reg(skip);
        let mine = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mad,
            &["wide", "u32"],
            vec![
                Operand::reg(&mine),
                Operand::reg(&skip),
                Operand::int(4),
                Operand::reg(&base),
            ],
        );
        for (j, four) in acc.regs.chunks(4).enumerate() {
            self.inst(
                Opcode::St,
                &["global", "v4", "f32"],
                vec![
                    group_address(&mine, j),
                    Operand::Vector(four.iter().map(Operand::reg).collect()),
                ],
            );
        }
        Val::Handle(Box::new(HVal::Partial(PartVal {
            base,
            stride: stride_bytes,
            shape: acc.shape,
        })))
    }

    /// `part.arrive(arrivals, counter, splits, &barrier)`.
    fn arrive(&mut self, part: PartVal, m: &syn::ExprMethodCall) -> Val {
        let a = &m.args;
        let counter = self.expr(&a[1]);
        let Some((ticket, _)) = self.global_element(&a[0], counter) else {
            return self.internal_val("arrival counters");
        };
        let splits = self.expr(&a[2]);
        let splits = self.u32_operand(splits);
        let Val::Handle(barrier) = self.expr(&a[3]) else {
            return self.internal_val("arrive barrier");
        };
        if !matches!(*barrier, HVal::Named { .. }) {
            return self.internal_val("arrive barrier");
        }
        // The barrier's own `sync` (`bar.sync id, threads`).
        let sync = |l: &mut Self| {
            l.handle_method(
                (*barrier).clone(),
                crate::handles::Method::BarSync { aligned: true },
                &[],
            );
        };
        // Every thread's stores, then the ticket.
        sync(self);
        let u = |v: i64| Val::Imm(Prim::U32, Imm::Int(v));
        let (thread, group) = self.group_thread();
        let leader = self.compare("eq", Prim::U32, thread, u(0));
        let old = self.reg(RegClass::B32);
        self.emit_guarded(
            &leader,
            false,
            Instruction::new(
                Opcode::Atom,
                &["acq_rel", "gpu", "global", "add", "u32"],
                vec![
                    Operand::reg(&old),
                    super::sync::reg_addr(&ticket),
                    Operand::int(1),
                ],
            ),
        );
        let last_ticket = match &splits {
            Operand::Imm(Imm::Int(k)) => Operand::int(k - 1),
            Operand::Reg(r) => {
                let v = Val::Reg(Prim::U32, r.clone());
                let v = self.arith(Arith::Sub, Prim::U32, v, u(1));
                self.u32_operand(v)
            }
            _ => return self.internal_val("arrive splits"),
        };
        let drew_last = self.reg(RegClass::Pred);
        let flag = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&flag), Operand::int(0)],
        );
        self.emit_guarded(
            &leader,
            false,
            Instruction::new(
                Opcode::Setp,
                &["eq", "u32"],
                vec![Operand::reg(&drew_last), Operand::reg(&old), last_ticket],
            ),
        );
        self.emit_guarded(
            &leader,
            false,
            Instruction::new(
                Opcode::Selp,
                &["u32"],
                vec![
                    Operand::reg(&flag),
                    Operand::int(1),
                    Operand::int(0),
                    Operand::reg(&drew_last),
                ],
            ),
        );
        // The warp group's slot for the outcome: warp groups of a CTA at most 8.
        let flags = self.split_flags();
        let base = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&base), Operand::sym(&flags)],
        );
        let slot = self.element_address(&base, group, Elem::scalar(Prim::U32), false);
        self.emit_guarded(
            &leader,
            false,
            Instruction::new(
                Opcode::St,
                &["shared", "u32"],
                vec![Operand::Address(slot.clone()), Operand::reg(&flag)],
            ),
        );
        // The last arrival sets the counter back for the next launch: every other arrival
        // has taken its ticket.
        let reset = self.compare("ne", Prim::U32, Val::Reg(Prim::U32, flag.clone()), u(0));
        self.emit_guarded(
            &reset,
            false,
            Instruction::new(
                Opcode::St,
                &["global", "u32"],
                vec![super::sync::reg_addr(&ticket), Operand::int(0)],
            ),
        );
        // The outcome, and the ticket's acquire, to every thread of the warp group.
        sync(self);
        let seen = self.reg(RegClass::B32);
        self.inst(
            Opcode::Ld,
            &["shared", "u32"],
            vec![Operand::reg(&seen), Operand::Address(slot)],
        );
        let last = self.compare("ne", Prim::U32, Val::Reg(Prim::U32, seen), u(0));
        let id = self.split_arrivals;
        self.split_arrivals += 1;
        self.split_lasts.insert(last.clone(), id);
        Val::Handle(Box::new(HVal::Split(SplitVal {
            id,
            last,
            part,
            splits,
        })))
    }

    /// The thread's index in its warp group (`32 (warp % 4) + lane`) and its warp group's in
    /// the CTA (`warp / 4`).
    fn group_thread(&mut self) -> (Val, Val) {
        let u = |v: i64| Val::Imm(Prim::U32, Imm::Int(v));
        let warp = self.warp_index();
        let in_group = self.arith(Arith::BitAnd, Prim::U32, warp.clone(), u(3));
        let lane = self.special(phasegate_ptx::SpecialReg::LaneId);
        let thread = self.arith(Arith::Shl, Prim::U32, in_group, u(5));
        let thread = self.arith(Arith::BitOr, Prim::U32, thread, lane);
        (thread, self.arith(Arith::Shr, Prim::U32, warp, u(2)))
    }

    /// The shared words where each warp group's leader leaves its ticket's outcome.
    fn split_flags(&mut self) -> String {
        if let Some(sym) = &self.split_flag_symbol {
            return sym.clone();
        }
        let sym = self.declare_shared("split_last", 4, ScalarType::U32, Some(8));
        self.split_flag_symbol = Some(sym.clone());
        sym
    }

    /// `part.arrive(..)`, `arrival.last()` and `arrival.total()`.
    pub(super) fn split_method(&mut self, h: HVal, m: &syn::ExprMethodCall) -> Val {
        let s = match h {
            HVal::Partial(part) => return self.arrive(part, m),
            HVal::Split(s) => s,
            _ => return self.internal_val("split receiver"),
        };
        if m.method == "last" {
            return Val::Reg(Prim::Bool, s.last);
        }
        if !self.proven_last.contains(&s.id) {
            self.diag.error(
                m.method.span(),
                "the parts are all stored only where the arrival was the last: read `total()` inside `if arrival.last() { .. }`",
            );
        }
        let n = s.part.shape.n as usize / 2;
        // An instruction, under `guard` where there is one.
        let guarded = |l: &mut Self, guard: Option<&String>, inst: Instruction| match guard {
            Some(g) => l.emit_guarded(g, false, inst),
            None => l.emit(inst),
        };
        // Group `j` of a part at `at` into `into`.
        let load = |l: &mut Self, at: &str, j: usize, into: &[String], guard: Option<&String>| {
            let inst = Instruction::new(
                Opcode::Ld,
                &["relaxed", "gpu", "global", "v4", "f32"],
                vec![
                    Operand::Vector(into.iter().map(Operand::reg).collect()),
                    group_address(at, j),
                ],
            );
            guarded(l, guard, inst);
        };
        // `x` added into the total's `four`.
        let accumulate = |l: &mut Self, four: &[String], x: &[String], guard: Option<&String>| {
            for (r, y) in four.iter().zip(x) {
                let inst = Instruction::new(
                    Opcode::Add,
                    &["rn", "f32"],
                    vec![Operand::reg(r), Operand::reg(r), Operand::reg(y)],
                );
                guarded(l, guard, inst);
            }
        };
        // The next part's address: `from` plus the parts' stride.
        let advance = |l: &mut Self, to: &str, from: &str| {
            l.inst(
                Opcode::Add,
                &["s64"],
                vec![
                    Operand::reg(to),
                    Operand::reg(from),
                    Operand::reg(&s.part.stride),
                ],
            );
        };
        // Part 0 as it is, then parts 1.. added in order.
        let regs: Vec<String> = (0..n).map(|_| self.reg(RegClass::F32)).collect();
        for (j, four) in regs.chunks(4).enumerate() {
            load(self, &s.part.base, j, four, None);
        }
        // Parts 1 .. `unrolled` in one block without branches, each load and add guarded
        // by `part < splits` (or not emitted, for a constant `splits`): the loads of every
        // part can be in flight together, where a loop over the parts waited for an L2 round
        // trip a part.
        let u = |v: i64| Val::Imm(Prim::U32, Imm::Int(v));
        let unrolled = (PART_REGISTERS / n).clamp(1, 8) as i64;
        let unrolled = match &s.splits {
            Operand::Imm(Imm::Int(k)) => (*k).clamp(1, unrolled),
            _ => unrolled,
        };
        let mut at = s.part.base.clone();
        let mut parts: Vec<(String, Option<String>)> = Vec::new();
        for p in 1..unrolled {
            let next = self.reg(RegClass::B64);
            advance(self, &next, &at);
            at = next;
            let guard = match &s.splits {
                Operand::Reg(splits) => {
                    let splits = Val::Reg(Prim::U32, splits.clone());
                    Some(self.compare("gt", Prim::U32, splits, u(p)))
                }
                _ => None,
            };
            parts.push((at.clone(), guard));
        }
        for (j, four) in regs.chunks(4).enumerate() {
            let loaded: Vec<Vec<String>> = parts
                .iter()
                .map(|(at, guard)| {
                    let x: Vec<String> = (0..4).map(|_| self.reg(RegClass::F32)).collect();
                    load(self, at, j, &x, guard.as_ref());
                    x
                })
                .collect();
            for ((_, guard), x) in parts.iter().zip(&loaded) {
                accumulate(self, four, x, guard.as_ref());
            }
        }
        // Parts from `unrolled` on, if there can be more: one at a time.
        let beyond = match &s.splits {
            Operand::Imm(Imm::Int(k)) => *k > unrolled,
            _ => true,
        };
        if beyond {
            let k = self.reg(RegClass::B32);
            self.inst(
                Opcode::Mov,
                &["u32"],
                vec![Operand::reg(&k), Operand::int(unrolled)],
            );
            let (top, done) = (self.new_label(), self.new_label());
            let more = self.reg(RegClass::Pred);
            let test = |l: &mut Self| {
                l.inst(
                    Opcode::Setp,
                    &["lt", "u32"],
                    vec![Operand::reg(&more), Operand::reg(&k), s.splits.clone()],
                );
            };
            test(self);
            self.emit_guarded(
                &more,
                true,
                Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&done)]),
            );
            self.place_label(top.clone());
            advance(self, &at, &at);
            let x: Vec<String> = (0..4).map(|_| self.reg(RegClass::F32)).collect();
            for (j, four) in regs.chunks(4).enumerate() {
                load(self, &at, j, &x, None);
                accumulate(self, four, &x, None);
            }
            self.inst(
                Opcode::Add,
                &["u32"],
                vec![Operand::reg(&k), Operand::reg(&k), Operand::int(1)],
            );
            test(self);
            self.emit_guarded(
                &more,
                false,
                Instruction::new(Opcode::Bra, &[], vec![Operand::sym(&top)]),
            );
            self.place_label(done);
        }
        Val::Handle(Box::new(HVal::Acc(AccVal {
            shape: s.part.shape,
            regs,
            open: false,
            fresh: false,
            in_flight: false,
        })))
    }
}

/// `[at + 2048 j]`: group `j` of four elements of the thread's part.
fn group_address(at: &str, j: usize) -> Operand {
    Operand::Address(Address {
        base: AddressBase::Reg(at.to_string()),
        offset: GROUP_BYTES * j as i64,
    })
}
