//! Attention's vocabulary: wgmma over two stages and from registers, masks, the online
//! softmax, and the ping-pong of two consumer warpgroups.
//!
//! Every element a thread holds of a `wgmma` accumulator is a register of its own, so the
//! softmax is straight-line code over them: no loop, no index arithmetic, only the two
//! shuffles a quad needs to agree on its rows' maxima (and, at the end, on their sums).

use super::expr::float_imm;
use super::sync::HVal;
use super::wgmma::{AccVal, descriptor_bits, mma_modifiers};
use super::{Lowerer, Val};
use crate::types::{Handle, MapShape, Prim, RegClass, Ty, WgmmaInput};
use phasegate_ptx::{Imm, Instruction, Opcode, Operand};
use syn::Expr;

/// The online softmax's registers: per row of the thread (`h` = 0, 1) the running maximum and
/// the thread's part of the running sum, and the scale (`scale · log2 e`).
#[derive(Clone, Debug, PartialEq)]
pub struct SoftmaxVal {
    pub max: [String; 2],
    pub sum: [String; 2],
    pub scale: String,
    /// What P is rounded to: `bf16` or `f16`.
    pub round: Prim,
    /// `lazy_rescale::<LOG2>()`: a row's maximum moves only when a tile's passes it by more
    /// than `LOG2` in the exponent.
    pub lazy: Option<u32>,
}

/// What the first half of a softmax step leaves for the second: the exponentials of the
/// scores and the two rows' corrections.
pub struct ScoresStep {
    exps: Vec<String>,
    corrections: Vec<String>,
    /// What P is rounded to.
    round: Prim,
    /// A lazy softmax's predicate: some row of this thread moved its maximum (the output needs
    /// rescaling).
    moved: Option<String>,
}

/// `−∞` as an `.f32` immediate.
fn neg_inf() -> Operand {
    Operand::Imm(Imm::F32(f32::NEG_INFINITY.to_bits()))
}

fn r(name: &str) -> Operand {
    Operand::reg(name)
}

impl Lowerer<'_> {
    fn op(&mut self, name: &str, mods: &[&str], operands: Vec<Operand>) {
        self.inst(Opcode::from_name(name), mods, operands);
    }

    fn f32_reg(&mut self, name: &str, mods: &[&str], mut operands: Vec<Operand>) -> String {
        let d = self.reg(RegClass::F32);
        operands.insert(0, r(&d));
        self.op(name, mods, operands);
        d
    }

    /// `online_softmax(scale_log2)`: maxima −∞, sums 0.
    pub(super) fn new_softmax(&mut self, scale: &Expr, ty: Ty) -> Val {
        let Ty::Handle(Handle::Softmax(round)) = ty else {
            return self.internal_val("online_softmax type");
        };
        let scale = self.expr(scale);
        let scale = self.in_reg(scale);
        let reg_of = |this: &mut Self, v: Operand| {
            let d = this.reg(RegClass::F32);
            this.op("mov", &["f32"], vec![r(&d), v]);
            d
        };
        let zero = Operand::Imm(float_imm(Prim::F32, 0.0));
        let max = [reg_of(self, neg_inf()), reg_of(self, neg_inf())];
        let sum = [reg_of(self, zero.clone()), reg_of(self, zero)];
        Val::Handle(Box::new(HVal::Softmax(SoftmaxVal {
            max,
            sum,
            scale,
            round,
            lazy: None,
        })))
    }

    /// `ping_pong::<ID, GROUPS>(group)`: this group's barrier `ID + group`, the next group's
    /// `ID + (group + 1) % GROUPS`; the last group passes the first turn to group 0.
    pub(super) fn new_ping_pong(&mut self, group: &Expr, ty: Ty) -> Val {
        let Ty::Handle(Handle::PingPong(id, groups)) = ty else {
            return self.internal_val("ping_pong id");
        };
        let group = self.expr(group);
        let group = self.in_reg(group);
        let mine = self.reg(RegClass::B32);
        self.op(
            "add",
            &["u32"],
            vec![r(&mine), r(&group), Operand::int(id as i64)],
        );
        let next = self.reg(RegClass::B32);
        self.op("add", &["u32"], vec![r(&next), r(&group), Operand::int(1)]);
        let wrapped = self.reg(RegClass::B32);
        self.op(
            "rem",
            &["u32"],
            vec![r(&wrapped), r(&next), Operand::int(groups as i64)],
        );
        let theirs = self.reg(RegClass::B32);
        self.op(
            "add",
            &["u32"],
            vec![r(&theirs), r(&wrapped), Operand::int(id as i64)],
        );
        let last = self.reg(RegClass::Pred);
        self.op(
            "setp",
            &["eq", "u32"],
            vec![r(&last), r(&group), Operand::int(groups as i64 - 1)],
        );
        let first_turn = Instruction::new(
            Opcode::Bar,
            &["arrive"],
            vec![Operand::int(id as i64), Operand::int(256)],
        );
        self.guarded_all(Val::Reg(Prim::Bool, last), vec![first_turn]);
        Val::Handle(Box::new(HVal::PingPong {
            id,
            group,
            mine,
            theirs,
        }))
    }

    /// The methods of a ping-pong handle and its turn.
    pub(super) fn ping_pong_method(&mut self, h: HVal, name: &str) -> Val {
        let HVal::PingPong {
            id,
            group,
            mine,
            theirs,
        } = h
        else {
            return self.internal_val("ping-pong receiver");
        };
        match name {
            "take" => self.op("bar", &["sync"], vec![r(&mine), Operand::int(256)]),
            "pass" => self.op("bar", &["arrive"], vec![r(&theirs), Operand::int(256)]),
            _ => {
                // `end`: group 0 takes the turn the last group passed last.
                let first = self.reg(RegClass::Pred);
                self.op(
                    "setp",
                    &["eq", "u32"],
                    vec![r(&first), r(&group), Operand::int(0)],
                );
                let take = Instruction::new(
                    Opcode::Bar,
                    &["sync"],
                    vec![Operand::int(id as i64), Operand::int(256)],
                );
                self.guarded_all(Val::Reg(Prim::Bool, first), vec![take]);
                return Val::Unit;
            }
        }
        Val::Handle(Box::new(HVal::PingPong {
            id,
            group,
            mine,
            theirs,
        }))
    }

    /// The consumer slot's buffer an argument names.
    fn slot_buffer(&mut self, e: &Expr) -> Option<String> {
        match self.expr(e) {
            Val::Handle(h) => match *h {
                HVal::ConsumerSlot(_, _, addrs) => Some(addrs.buffer),
                _ => None,
            },
            _ => None,
        }
    }

    /// `acc.mma_tiles(&a_slot, &a, a_block, &b_slot, &b, b_offset)`: per 16 of K, the A and B
    /// descriptors of the K-major tiles, stepping 32 bytes within a 128-byte row and a whole
    /// tile (`rows · 128` bytes) from one chunk of K to the next.
    pub(super) fn mma_tiles(&mut self, acc: AccVal, m: &syn::ExprMethodCall) -> Val {
        let (Some(a_buf), Some(b_buf)) =
            (self.slot_buffer(&m.args[0]), self.slot_buffer(&m.args[3]))
        else {
            return self.internal_val("mma_tiles slots");
        };
        let (Some(a), Some(b)) = (self.map_shape(&m.args[1]), self.map_shape(&m.args[4])) else {
            return self.internal_val("mma_tiles maps");
        };
        let Some(input) = WgmmaInput::of(a.elem) else {
            return self.internal_val("mma_tiles element type");
        };
        let block = self.expr(&m.args[2]);
        let block = self.in_reg(block);
        let a_start = self.mad_u32(&block, 64 * 128, &a_buf);
        let b_offset = self.const_arg(&m.args[5]).unwrap_or(0) * input.bytes as u64;
        let a_desc = self.descriptor(&a_start, 0, a);
        let b_desc = self.descriptor(&b_buf, b_offset, b);
        self.fence_unless_open(&acc);
        let k = a.dims[0] as u64 * chunks(a);
        for j in 0..k / input.k as u64 {
            let within = (j * input.k as u64 * input.bytes as u64) % 128;
            let chunk = j * input.k as u64 / a.dims[0] as u64;
            let da = self.advance_desc(
                &a_desc,
                ((chunk * a.dims[1] as u64 * 128 + within) >> 4) as i64,
            );
            let db = self.advance_desc(
                &b_desc,
                ((chunk * b.dims[1] as u64 * 128 + within) >> 4) as i64,
            );
            self.emit_mma(&acc, input, &da, &db, j == 0);
        }
        Val::Handle(Box::new(HVal::Acc(AccVal {
            open: true,
            fresh: false,
            ..acc
        })))
    }

    /// `acc.mma_regs(&p, &b_slot, &b, b_offset)`: A from the fragment's registers, four a
    /// k-step; B N-major through a descriptor whose leading byte offset is the distance between
    /// 64-column tiles (`rows · 128` bytes) and stride byte offset the 1024 bytes of 8 rows
    /// (the MN-major swizzled layout of §9.7.15.5.1.2.1.3), stepping 16 rows (2048 bytes) a
    /// k-step. The fragment was just written by other instructions, so a `wgmma.fence` comes
    /// first whatever the accumulator's batch.
    pub(super) fn mma_regs(&mut self, acc: AccVal, m: &syn::ExprMethodCall) -> Val {
        let frag = match self.expr(&m.args[0]) {
            Val::Handle(h) => match *h {
                HVal::Fragment(regs) => regs,
                _ => return self.internal_val("mma_regs fragment"),
            },
            _ => return self.internal_val("mma_regs fragment"),
        };
        let Some(buf) = self.slot_buffer(&m.args[1]) else {
            return self.internal_val("mma_regs slot");
        };
        let Some(b) = self.map_shape(&m.args[2]) else {
            return self.internal_val("mma_regs map");
        };
        let Some(input) = WgmmaInput::of(b.elem) else {
            return self.internal_val("mma_regs element type");
        };
        let offset = self.const_arg(&m.args[3]).unwrap_or(0) * input.bytes as u64;
        let at = self.offset_address(&buf, offset);
        let desc = self.n_major_descriptor(&at, b);
        self.op("wgmma", &["fence", "sync", "aligned"], vec![]);
        let regs = Operand::Vector(acc.regs.iter().map(Operand::reg).collect());
        for (j, a) in frag.chunks(4).enumerate() {
            let db = self.advance_desc(&desc, (j as i64 * 16 * 128) >> 4);
            self.emit(Instruction {
                guard: None,
                opcode: Opcode::from_name("wgmma"),
                modifiers: mma_modifiers(acc.shape.n, input),
                operands: vec![
                    regs.clone(),
                    Operand::Vector(a.iter().map(Operand::reg).collect()),
                    r(&db),
                    Operand::int(1),
                    Operand::int(1),
                    Operand::int(1),
                    Operand::int(1),
                ],
            });
        }
        Val::Handle(Box::new(HVal::Acc(AccVal {
            open: true,
            fresh: false,
            ..acc
        })))
    }

    /// The descriptor of an N-major 128-byte-swizzled box at `at`: the leading byte offset is
    /// the distance between its 64-column tiles.
    fn n_major_descriptor(&mut self, at: &str, map: MapShape) -> String {
        let lbo = (map.dims[1] as u64 * 128) >> 4;
        let bits = (descriptor_bits(map) & !(0x3fff << 16)) | (lbo << 16);
        self.descriptor_at(at, bits)
    }

    fn fence_unless_open(&mut self, acc: &AccVal) {
        if !acc.open {
            self.op("wgmma", &["fence", "sync", "aligned"], vec![]);
        }
    }

    /// [`Self::fragment_origin`] in registers: the row and column of the thread's element 0.
    fn origin_regs(&mut self) -> (String, String) {
        let (row, col) = self.fragment_origin();
        (self.in_reg(row), self.in_reg(col))
    }

    /// `acc.mask_columns(limit)` / `acc.mask_causal(offset)`: element `i` (row `row0 + 8 h`,
    /// column `col0 + c`, `h = (i / 2) % 2`, `c = 8 (i / 4) + i % 2`) is kept where a signed
    /// bound `d` computed once is at least a constant of its own: `d = limit − col0 − 1 ≥ c`,
    /// or `d = row0 + offset − col0 ≥ c − 8 h`.
    pub(super) fn mask(&mut self, acc: &AccVal, m: &syn::ExprMethodCall, causal: bool) -> Val {
        let bound = self.expr(&m.args[0]);
        let bound = self.in_reg(bound);
        let (row0, col0) = self.origin_regs();
        let d = self.reg(RegClass::B32);
        if causal {
            let sum = self.reg(RegClass::B32);
            self.op("add", &["u32"], vec![r(&sum), r(&row0), r(&bound)]);
            self.op("sub", &["s32"], vec![r(&d), r(&sum), r(&col0)]);
        } else {
            let last = self.reg(RegClass::B32);
            self.op("sub", &["s32"], vec![r(&last), r(&bound), r(&col0)]);
            self.op("sub", &["s32"], vec![r(&d), r(&last), Operand::int(1)]);
        }
        for (i, reg) in acc.regs.iter().enumerate() {
            let i = i as i64;
            let c = 8 * (i >> 2) + (i & 1);
            let k = if causal { c - 8 * ((i >> 1) & 1) } else { c };
            let keep = self.reg(RegClass::Pred);
            self.op(
                "setp",
                &["ge", "s32"],
                vec![r(&keep), r(&d), Operand::int(k)],
            );
            self.op("selp", &["f32"], vec![r(reg), r(reg), neg_inf(), r(&keep)]);
        }
        Val::Unit
    }

    /// `values` combined by `op` in order. A chain, not a tree: on the H200 the chain's
    /// attention kernel measured up to 3 % faster (book/src/performance/attention.md); ptxas
    /// interleaves the two rows' chains and the exponentials feeding them.
    fn chain(&mut self, values: Vec<String>, op: &str, mods: &[&str]) -> String {
        let mut values = values.into_iter();
        let mut acc = values.next().unwrap_or_default();
        for v in values {
            acc = self.f32_reg(op, mods, vec![r(&acc), r(&v)]);
        }
        acc
    }

    /// `x` combined with the values of the other three threads of its quad (`shfl.sync.bfly`
    /// by 1 and 2) by `combine` (`max` or `add`).
    fn quad_reduce(&mut self, x: &str, combine: &str) -> String {
        let mut acc = x.to_string();
        for lane_mask in [1, 2] {
            let other = self.reg(RegClass::B32);
            self.op(
                "shfl",
                &["sync", "bfly", "b32"],
                vec![
                    r(&other),
                    r(&acc),
                    Operand::int(lane_mask),
                    Operand::int(0x1f),
                    Operand::int(0xffff_ffff),
                ],
            );
            let mods: &[&str] = if combine == "add" {
                &["rn", "f32"]
            } else {
                &["f32"]
            };
            acc = self.f32_reg(combine, mods, vec![r(&acc), r(&other)]);
        }
        acc
    }

    /// The accumulator an argument names (`&s`, `&mut o`).
    fn acc_arg(&mut self, e: &Expr) -> Option<AccVal> {
        match self.expr(e) {
            Val::Handle(h) => match *h {
                HVal::Acc(a) => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    /// The methods of an online softmax.
    pub(super) fn softmax_method(&mut self, m: &syn::ExprMethodCall) -> Val {
        let Val::Handle(h) = self.expr(&m.receiver) else {
            return self.internal_val("softmax receiver");
        };
        let HVal::Softmax(sm) = *h else {
            return self.internal_val("softmax receiver");
        };
        if m.method == "lazy_rescale" {
            let Some(log2) = self.turbofish_const(m) else {
                return self.internal_val("lazy_rescale threshold");
            };
            return Val::Handle(Box::new(HVal::Softmax(SoftmaxVal {
                lazy: Some(log2 as u32),
                ..sm
            })));
        }
        if m.method == "step" {
            let (Some(s), Some(o)) = (self.acc_arg(&m.args[0]), self.acc_arg(&m.args[1])) else {
                return self.internal_val("softmax step operands");
            };
            return self.softmax_step(&sm, &s, &o);
        }
        let Some(o) = self.acc_arg(&m.args[0]) else {
            return self.internal_val("softmax finish operand");
        };
        self.softmax_finish(&sm, &o)
    }

    /// One step of the recurrence (see `OnlineSoftmax::step`): P into new registers.
    fn softmax_step(&mut self, sm: &SoftmaxVal, s: &AccVal, o: &AccVal) -> Val {
        let scores = self.softmax_scores(sm, s);
        let frag = (0..s.regs.len() / 2)
            .map(|_| self.reg(RegClass::B32))
            .collect::<Vec<_>>();
        self.softmax_apply(&scores, o, &frag);
        Val::Handle(Box::new(HVal::Fragment(frag)))
    }

    /// The part of a step that reads only the scores: each row's maximum over the tile and
    /// the quad, the new running maximum, the correction `exp2((m − m') · scale)` (applied to
    /// the sums here, to the output later), and the exponentials, summed into the sums.
    fn softmax_scores(&mut self, sm: &SoftmaxVal, s: &AccVal) -> ScoresStep {
        let in_row = |i: usize, h: usize| (i >> 1) & 1 == h;
        let mut exps = vec![String::new(); s.regs.len()];
        let mut corrections = Vec::new();
        let mut moved = Vec::new();
        for h in 0..2 {
            // The row's maximum over the tile, then over the quad.
            let row: Vec<&String> = s
                .regs
                .iter()
                .enumerate()
                .filter(|(i, _)| in_row(*i, h))
                .map(|(_, r)| r)
                .collect();
            let row: Vec<String> = row.into_iter().cloned().collect();
            let mx = self.chain(row, "max", &["f32"]);
            let mx = self.quad_reduce(&mx, "max");
            let mut new_max = self.f32_reg("max", &["f32"], vec![r(&sm.max[h]), r(&mx)]);
            // Lazy: the maximum moves only past the threshold, `(mx − m) · scale > LOG2`
            // (true from −∞, false for a tile of −∞ on a row still at −∞: NaN compares false).
            let move_row = sm.lazy.map(|log2| {
                let rise = self.f32_reg("sub", &["rn", "f32"], vec![r(&mx), r(&sm.max[h])]);
                let rise = self.f32_reg("mul", &["rn", "f32"], vec![r(&rise), r(&sm.scale)]);
                let moves = self.reg(RegClass::Pred);
                let threshold = Operand::Imm(float_imm(Prim::F32, f64::from(log2)));
                self.op("setp", &["gt", "f32"], vec![r(&moves), r(&rise), threshold]);
                new_max = self.f32_reg(
                    "selp",
                    &["f32"],
                    vec![r(&new_max), r(&sm.max[h]), r(&moves)],
                );
                moves
            });
            // A row still at −∞ subtracts 0 (its exponentials are 0, not NaN).
            let scaled = self.f32_reg("mul", &["rn", "f32"], vec![r(&new_max), r(&sm.scale)]);
            let empty = self.reg(RegClass::Pred);
            self.op(
                "setp",
                &["eq", "f32"],
                vec![r(&empty), r(&new_max), neg_inf()],
            );
            let zero = Operand::Imm(float_imm(Prim::F32, 0.0));
            let shift = self.f32_reg("selp", &["f32"], vec![zero, r(&scaled), r(&empty)]);
            let old = self.f32_reg("mul", &["rn", "f32"], vec![r(&sm.max[h]), r(&sm.scale)]);
            let diff = self.f32_reg("sub", &["rn", "f32"], vec![r(&old), r(&shift)]);
            let mut correction = self.f32_reg("ex2", &["approx", "ftz", "f32"], vec![r(&diff)]);
            if let Some(moves) = move_row {
                // A row that kept its maximum is corrected by exactly 1.
                let one = Operand::Imm(float_imm(Prim::F32, 1.0));
                correction = self.f32_reg("selp", &["f32"], vec![r(&correction), one, r(&moves)]);
                moved.push(moves);
            }
            self.op("mov", &["f32"], vec![r(&sm.max[h]), r(&new_max)]);
            let neg_shift = self.f32_reg("neg", &["f32"], vec![r(&shift)]);
            let mut row_exps = Vec::new();
            for (i, reg) in s.regs.iter().enumerate().filter(|(i, _)| in_row(*i, h)) {
                let t = self.f32_reg(
                    "fma",
                    &["rn", "f32"],
                    vec![r(reg), r(&sm.scale), r(&neg_shift)],
                );
                let e = self.f32_reg("ex2", &["approx", "ftz", "f32"], vec![r(&t)]);
                row_exps.push(e.clone());
                exps[i] = e;
            }
            let row_sum = self.chain(row_exps, "add", &["rn", "f32"]);
            self.op(
                "fma",
                &["rn", "f32"],
                vec![r(&sm.sum[h]), r(&sm.sum[h]), r(&correction), r(&row_sum)],
            );
            corrections.push(correction);
        }
        // Either row of the thread moved.
        let moved = match moved.as_slice() {
            [a, b] => {
                let either = self.reg(RegClass::Pred);
                self.op("or", &["pred"], vec![r(&either), r(a), r(b)]);
                Some(either)
            }
            _ => None,
        };
        ScoresStep {
            exps,
            corrections,
            round: sm.round,
            moved,
        }
    }

    /// The part of a step that writes registers a wgmma may be reading: P rounded to bf16 or
    /// f16 pairs into `frag`, and the output rescaled by the corrections.
    fn softmax_apply(&mut self, step: &ScoresStep, o: &AccVal, frag: &[String]) {
        let pair_type = if step.round == Prim::F16 {
            "f16x2"
        } else {
            "bf16x2"
        };
        for (word, pair) in frag.iter().zip(step.exps.chunks(2)) {
            self.op(
                "cvt",
                &["rn", pair_type, "f32"],
                vec![r(word), r(&pair[1]), r(&pair[0])],
            );
        }
        // A lazy softmax skips the rescaling when no row of the warp moved its maximum: every
        // correction is 1. The vote makes the branch uniform across the warp.
        let skip = step.moved.as_ref().map(|moved| {
            let any = self.reg(RegClass::Pred);
            self.op(
                "vote",
                &["sync", "any", "pred"],
                vec![r(&any), r(moved), Operand::int(0xffff_ffff)],
            );
            let skip = self.new_label();
            self.emit_guarded(
                &any,
                true,
                Instruction::new(Opcode::Bra, &["uni"], vec![Operand::sym(&skip)]),
            );
            skip
        });
        for (i, reg) in o.regs.iter().enumerate() {
            let correction = &step.corrections[(i >> 1) & 1];
            self.op("mul", &["rn", "f32"], vec![r(reg), r(reg), r(correction)]);
        }
        if let Some(skip) = skip {
            self.place_label(skip);
        }
    }

    /// `o.commit_behind(s)`: commits the output's batch; the scores' group is the older.
    pub(super) fn commit_behind(&mut self, o: AccVal, m: &syn::ExprMethodCall) -> Val {
        let Some(s) = self.acc_arg(&m.args[0]) else {
            return self.internal_val("commit_behind scores");
        };
        self.op("wgmma", &["commit_group", "sync", "aligned"], vec![]);
        Val::Handle(Box::new(HVal::Overlap {
            s,
            o: AccVal {
                open: false,
                in_flight: true,
                ..o
            },
        }))
    }

    /// The methods of an overlap.
    pub(super) fn overlap_method(&mut self, h: HVal, name: &str, args: &[&Expr]) -> Val {
        let HVal::Overlap { s, o } = h else {
            return self.internal_val("overlap receiver");
        };
        match name {
            "wait_scores" => {
                self.op(
                    "wgmma",
                    &["wait_group", "sync", "aligned"],
                    vec![Operand::int(1)],
                );
                Val::Handle(Box::new(HVal::Overlap { s, o }))
            }
            "scores" => Val::Handle(Box::new(HVal::Acc(s))),
            _ => {
                let (Some(HVal::Softmax(sm)), Some(HVal::Fragment(frag))) = (
                    args.first().and_then(|e| self.handle_arg(e)),
                    args.get(1).and_then(|e| self.handle_arg(e)),
                ) else {
                    return self.internal_val("overlap softmax operands");
                };
                let step = self.softmax_scores(&sm, &s);
                // The output's group reads P's registers and writes the output's.
                self.op(
                    "wgmma",
                    &["wait_group", "sync", "aligned"],
                    vec![Operand::int(0)],
                );
                self.softmax_apply(&step, &o, &frag);
                Val::Handle(Box::new(HVal::Acc(AccVal {
                    in_flight: false,
                    ..o
                })))
            }
        }
    }

    fn handle_arg(&mut self, e: &Expr) -> Option<HVal> {
        match self.expr(e) {
            Val::Handle(h) => Some(*h),
            _ => None,
        }
    }

    /// The end of the recurrence (see `OnlineSoftmax::finish`).
    fn softmax_finish(&mut self, sm: &SoftmaxVal, o: &AccVal) -> Val {
        let mut lse = Vec::new();
        for h in 0..2 {
            let sum = self.quad_reduce(&sm.sum[h], "add");
            let empty = self.reg(RegClass::Pred);
            let zero = Operand::Imm(float_imm(Prim::F32, 0.0));
            self.op(
                "setp",
                &["eq", "f32"],
                vec![r(&empty), r(&sum), zero.clone()],
            );
            let inv = self.f32_reg("rcp", &["approx", "ftz", "f32"], vec![r(&sum)]);
            let inv = self.f32_reg("selp", &["f32"], vec![zero, r(&inv), r(&empty)]);
            for (_, reg) in o.regs.iter().enumerate().filter(|(i, _)| (i >> 1) & 1 == h) {
                self.op("mul", &["rn", "f32"], vec![r(reg), r(reg), r(&inv)]);
            }
            let log = self.f32_reg("lg2", &["approx", "ftz", "f32"], vec![r(&sum)]);
            let total = self.f32_reg(
                "fma",
                &["rn", "f32"],
                vec![r(&sm.max[h]), r(&sm.scale), r(&log)],
            );
            let ln2 = Operand::Imm(float_imm(Prim::F32, std::f64::consts::LN_2));
            let value = self.f32_reg("mul", &["rn", "f32"], vec![r(&total), ln2]);
            let value = self.f32_reg("selp", &["f32"], vec![neg_inf(), r(&value), r(&empty)]);
            lse.push(value);
        }
        let [a, b]: [String; 2] = lse.try_into().unwrap_or_default();
        Val::Handle(Box::new(HVal::RowLse([a, b])))
    }

    /// `lse.store(dst, index, rows)`: the quad's first thread stores its two rows below `rows`.
    pub(super) fn lse_store(&mut self, lse: [String; 2], args: &[&Expr]) -> Val {
        let [dst, index, rows] = args else {
            return self.internal_val("lse store operands");
        };
        let index = self.expr(index);
        let index = self.in_reg(index);
        let rows = self.expr(rows);
        let rows = self.in_reg(rows);
        let (row0, col0) = self.origin_regs();
        let at = self.reg(RegClass::B32);
        self.op("add", &["u32"], vec![r(&at), r(&index), r(&row0)]);
        let Some((addr, _)) = self.global_element(dst, Val::Reg(Prim::U32, at)) else {
            return self.internal_val("lse store destination");
        };
        let first = self.reg(RegClass::Pred);
        self.op(
            "setp",
            &["eq", "u32"],
            vec![r(&first), r(&col0), Operand::int(0)],
        );
        for (h, value) in lse.iter().enumerate() {
            let row = self.reg(RegClass::B32);
            self.op(
                "add",
                &["u32"],
                vec![r(&row), r(&row0), Operand::int(8 * h as i64)],
            );
            let inside = self.reg(RegClass::Pred);
            self.op("setp", &["lt", "u32"], vec![r(&inside), r(&row), r(&rows)]);
            let both = self.reg(RegClass::Pred);
            self.op("and", &["pred"], vec![r(&both), r(&inside), r(&first)]);
            let store = Instruction::new(
                Opcode::St,
                &["global", "f32"],
                vec![
                    Operand::Address(phasegate_ptx::Address {
                        base: phasegate_ptx::AddressBase::Reg(addr.clone()),
                        offset: 32 * h as i64,
                    }),
                    r(value),
                ],
            );
            self.guarded_all(Val::Reg(Prim::Bool, both), vec![store]);
        }
        Val::Unit
    }
}

/// The tiles of K a box holds one after another (dimension 2; 1 for a rank-2 box).
fn chunks(map: MapShape) -> u64 {
    if map.rank >= 3 { map.dims[2] as u64 } else { 1 }
}
