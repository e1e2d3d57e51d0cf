//! wgmma accumulators (PTX ISA §9.7.15): registers, matrix descriptors, the async groups.
//!
//! An accumulator is `N / 2` `.f32` registers per thread. `mma` builds a descriptor for each
//! box of the stage from its map's type and issues one `wgmma.mma_async` per K step, the
//! first of a batch behind `wgmma.fence.sync.aligned` (§9.7.15.7.1: before the first wgmma,
//! and after other instructions accessed the registers; the lowering follows whether a batch
//! is open in step with the accumulator's type, as it follows an mbarrier's parity).

use super::expr::{Arith, float_imm};
use super::sync::HVal;
use super::{Binding, Lowerer, Val};
use crate::params::memory_name;
use crate::types::{AccShape, Handle, MapShape, Prim, RegClass, Ty, WgmmaInput};
use phasegate_ptx::{Address, AddressBase, Imm, Opcode, Operand};
use syn::{Expr, GenericArgument};

/// An accumulator during lowering.
#[derive(Clone, Debug, PartialEq)]
pub struct AccVal {
    pub shape: AccShape,
    /// Element `i` of the thread's fragment is `regs[i]`.
    pub regs: Vec<String>,
    /// Whether a batch is open (issued, not committed): the next `mma` needs no fence.
    pub open: bool,
    /// Registers not yet written: `accumulator::<..>().mma(..)` in one expression, whose first
    /// wgmma overwrites them (scale-d 0, `D = A · B`) instead of adding to `N / 2` zeros.
    pub fresh: bool,
    /// A committed group may still write the registers (`commit()` until `wait::<0>()`): an
    /// `if` does not move them between branches (see `Lowerer::if_handle`).
    pub in_flight: bool,
}

/// The matrix descriptor's fixed bits for a K-major box of `map` (§9.7.15.5.1.2.2): leading
/// byte offset 1 (unused by swizzled K-major layouts), stride byte offset 8 rows of one swizzle
/// span (the distance between 8-row core-matrix groups), base offset 0 (boxes start on the
/// pattern's 8-span granule), the swizzle mode in bits 62–63.
pub fn descriptor_bits(map: MapShape) -> u64 {
    let mode: u64 = match map.swizzle {
        128 => 1,
        64 => 2,
        32 => 3,
        _ => 0,
    };
    let sbo = (8 * map.swizzle as u64) >> 4;
    (1 << 16) | (sbo << 32) | (mode << 62)
}

/// The modifiers of `wgmma.mma_async` for an accumulator of `n` columns and inputs `input`.
pub fn mma_modifiers(n: u32, input: WgmmaInput) -> Vec<String> {
    [
        "mma_async".to_string(),
        "sync".into(),
        "aligned".into(),
        format!("m64n{n}k{}", input.k),
        "f32".into(),
        input.ptx.into(),
        input.ptx.into(),
    ]
    .to_vec()
}

/// The immediate operands after the descriptors: scale-d 1 (accumulate; 0 overwrites, `D =
/// A · B`), imm-scale-a and imm-scale-b 1, and for 16-bit inputs imm-trans-a and imm-trans-b 0
/// (K-major).
pub fn mma_immediates(input: WgmmaInput, accumulate: bool) -> Vec<Operand> {
    let mut ops = vec![
        Operand::int(accumulate as i64),
        Operand::int(1),
        Operand::int(1),
    ];
    if input.has_transpose() {
        ops.extend([Operand::int(0), Operand::int(0)]);
    }
    ops
}

impl Lowerer<'_> {
    /// `accumulator::<f32, 64, N>()`: `N / 2` registers set to zero.
    pub(super) fn new_accumulator(&mut self, ty: Ty) -> Val {
        let Ty::Handle(Handle::Acc(shape)) = ty else {
            return self.internal_val("accumulator shape");
        };
        let regs = (0..shape.n / 2)
            .map(|_| {
                let r = self.reg(RegClass::F32);
                self.inst(
                    Opcode::Mov,
                    &["f32"],
                    vec![Operand::reg(&r), Operand::Imm(float_imm(Prim::F32, 0.0))],
                );
                r
            })
            .collect();
        Val::Handle(Box::new(HVal::Acc(AccVal {
            shape,
            regs,
            open: false,
            fresh: false,
            in_flight: false,
        })))
    }

    /// The methods of an accumulator.
    pub(super) fn acc_method(&mut self, m: &syn::ExprMethodCall) -> Val {
        let name = m.method.to_string();
        if matches!(name.as_str(), "mma" | "mma_block" | "mma_tiles")
            && let Some(reset) = reset_receiver(&m.receiver)
        {
            // `acc.reset().mma(..)`: the product overwrites the accumulator's own registers
            // (scale-d 0), nothing zeroes them first.
            let Val::Handle(h) = self.expr(reset) else {
                return self.internal_val("accumulator to reset");
            };
            let HVal::Acc(acc) = *h else {
                return self.internal_val("accumulator to reset");
            };
            let acc = AccVal {
                open: false,
                fresh: true,
                in_flight: false,
                ..acc
            };
            return match name.as_str() {
                "mma_tiles" => self.mma_tiles(acc, m),
                _ => self.mma(acc, m),
            };
        }
        if matches!(name.as_str(), "mma" | "mma_block" | "mma_tiles")
            && let Ty::Handle(Handle::Acc(shape)) = self.ty(&m.receiver)
            && is_accumulator_call(&m.receiver)
        {
            // A zeroed accumulator whose only use is this product: its registers are left
            // unwritten, and the product's first wgmma takes scale-d 0.
            let regs = (0..shape.n / 2).map(|_| self.reg(RegClass::F32)).collect();
            let acc = AccVal {
                shape,
                regs,
                open: false,
                fresh: true,
                in_flight: false,
            };
            return match name.as_str() {
                "mma_tiles" => self.mma_tiles(acc, m),
                _ => self.mma(acc, m),
            };
        }
        let acc = match self.expr(&m.receiver) {
            Val::Handle(h) => match *h {
                HVal::Acc(a) => a,
                _ => return self.internal_val("accumulator receiver"),
            },
            _ => return self.internal_val("accumulator receiver"),
        };
        match name.as_str() {
            "mma" | "mma_block" => self.mma(acc, m),
            "stage_columns" => self.stage_columns(&acc, m, 64),
            "stage_columns_transposed" => self.stage_columns_transposed(&acc, m, 64),
            "stage_columns_transposed_16" => self.stage_columns_transposed(&acc, m, 16),
            "stage_columns_transposed_32" => self.stage_columns_transposed(&acc, m, 32),
            "stage_columns_32" => self.stage_columns(&acc, m, 32),
            "stage_columns_16" => self.stage_columns(&acc, m, 16),
            "commit" => {
                self.inst(
                    Opcode::from_name("wgmma"),
                    &["commit_group", "sync", "aligned"],
                    vec![],
                );
                Val::Handle(Box::new(HVal::Acc(AccVal {
                    open: false,
                    in_flight: true,
                    ..acc
                })))
            }
            "wait" => {
                let k = self.turbofish_const(m).unwrap_or(0);
                self.inst(
                    Opcode::from_name("wgmma"),
                    &["wait_group", "sync", "aligned"],
                    vec![Operand::int(k as i64)],
                );
                // `wait::<0>()` completes every group; with K > 0 some may still write it.
                Val::Handle(Box::new(HVal::Acc(AccVal {
                    in_flight: acc.in_flight && k > 0,
                    ..acc
                })))
            }
            "wait_behind" => {
                // The checker proved the argument's group the newest: the receiver's is complete.
                self.inst(
                    Opcode::from_name("wgmma"),
                    &["wait_group", "sync", "aligned"],
                    vec![Operand::int(1)],
                );
                Val::Handle(Box::new(HVal::Acc(AccVal {
                    in_flight: false,
                    ..acc
                })))
            }
            "get" => {
                let i = self.acc_index(m, &acc);
                let d = self.reg(RegClass::F32);
                // A copy: the register is written again by the next wgmma.
                self.inst(
                    Opcode::Mov,
                    &["f32"],
                    vec![Operand::reg(&d), Operand::reg(&acc.regs[i])],
                );
                Val::Reg(Prim::F32, d)
            }
            "row" => {
                let i = self.acc_index(m, &acc) as u32;
                let (row, _) = self.fragment_origin();
                self.add_u32(row, 8 * ((i >> 1) & 1))
            }
            "col" => {
                let i = self.acc_index(m, &acc) as u32;
                let (_, col) = self.fragment_origin();
                self.add_u32(col, 8 * (i >> 2) + (i & 1))
            }
            "store" => self.acc_store(&acc, m),
            "store_partial" => self.store_partial(&acc, m),
            "mma_tiles" => self.mma_tiles(acc, m),
            "mma_regs" => self.mma_regs(acc, m),
            "mask_columns" => self.mask(&acc, m, false),
            "mask_causal" => self.mask(&acc, m, true),
            "scale" => {
                let factor = self.expr(&m.args[0]);
                let factor = self.in_reg(factor);
                for reg in &acc.regs {
                    self.inst(
                        Opcode::Mul,
                        &["rn", "f32"],
                        vec![Operand::reg(reg), Operand::reg(reg), Operand::reg(&factor)],
                    );
                }
                Val::Unit
            }
            "add" => {
                let Val::Handle(other) = self.expr(&m.args[0]) else {
                    return self.internal_val("accumulator to add");
                };
                let HVal::Acc(other) = *other else {
                    return self.internal_val("accumulator to add");
                };
                // `.rn`: a plain add, never contracted with the scale's multiply into an fma.
                for (reg, o) in acc.regs.iter().zip(&other.regs) {
                    self.inst(
                        Opcode::Add,
                        &["rn", "f32"],
                        vec![Operand::reg(reg), Operand::reg(reg), Operand::reg(o)],
                    );
                }
                Val::Unit
            }
            "reset" => {
                // Not followed by a product in the same expression: zeroed, as `accumulator()`.
                for reg in &acc.regs {
                    self.inst(
                        Opcode::Mov,
                        &["f32"],
                        vec![Operand::reg(reg), Operand::Imm(float_imm(Prim::F32, 0.0))],
                    );
                }
                Val::Handle(Box::new(HVal::Acc(acc)))
            }
            "commit_behind" => self.commit_behind(acc, m),
            _ => self.internal_val("accumulator method"),
        }
    }

    /// The constant of a method's turbofish: `K` of `wait::<K>()`, `LOG2` of
    /// `lazy_rescale::<LOG2>()`.
    pub(super) fn turbofish_const(&mut self, m: &syn::ExprMethodCall) -> Option<u64> {
        let arg = m.turbofish.as_ref()?.args.first()?;
        // The checker evaluated it without typing it: a literal, `{ expr }` or a kernel `const`.
        match arg {
            GenericArgument::Const(e) => self.const_generic_value(e),
            GenericArgument::Type(syn::Type::Path(p)) => {
                let name = p.path.get_ident()?.to_string();
                self.const_binding(&name)
            }
            _ => None,
        }
    }

    fn const_generic_value(&mut self, e: &Expr) -> Option<u64> {
        match e {
            Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => self.const_generic_value(inner),
                _ => None,
            },
            Expr::Paren(p) => self.const_generic_value(&p.expr),
            Expr::Path(p) => self.const_binding(&p.path.get_ident()?.to_string()),
            other => crate::params::const_usize(other),
        }
    }

    fn const_binding(&self, name: &str) -> Option<u64> {
        match self.lookup(name)? {
            super::Binding::Value {
                val: Val::Imm(_, Imm::Int(k)),
                ..
            } => Some(k as u64),
            _ => None,
        }
    }

    fn acc_index(&mut self, m: &syn::ExprMethodCall, acc: &AccVal) -> usize {
        let i = m.args.first().and_then(|e| self.const_arg(e)).unwrap_or(0) as usize;
        i.min(acc.regs.len().saturating_sub(1))
    }

    fn add_u32(&mut self, v: Val, k: u32) -> Val {
        if k == 0 {
            return v;
        }
        self.arith(
            Arith::Add,
            Prim::U32,
            v,
            Val::Imm(Prim::U32, Imm::Int(k as i64)),
        )
    }

    /// `(16 (warp % 4) + lane / 4, 2 (lane % 4))`: the row and column of the thread's element 0
    /// in the D fragment of `wgmma.m64nNk*` (§9.7.15.5.1.1); element `i` adds
    /// `8 ((i / 2) % 2)` to the row and `8 (i / 4) + i % 2` to the column.
    pub(super) fn fragment_origin(&mut self) -> (Val, Val) {
        let u = |v: i64| Val::Imm(Prim::U32, Imm::Int(v));
        let warp = self.warp_index();
        let q = self.arith(Arith::BitAnd, Prim::U32, warp, u(3));
        let q16 = self.arith(Arith::Shl, Prim::U32, q, u(4));
        let lane = self.special(phasegate_ptx::SpecialReg::LaneId);
        let g = self.arith(Arith::Shr, Prim::U32, lane.clone(), u(2));
        let row = self.arith(Arith::Add, Prim::U32, q16, g);
        let t = self.arith(Arith::BitAnd, Prim::U32, lane, u(3));
        let col = self.arith(Arith::Shl, Prim::U32, t, u(1));
        (row, col)
    }

    /// The addresses of the thread's two fragment rows in the row-major matrix `dst`, element
    /// `(r, c)` at `dst[index + r * ld + c]`: the upper row's, and the one 8 rows down.
    pub(super) fn fragment_rows(
        &mut self,
        dst: &syn::Expr,
        index: &syn::Expr,
        ld: &syn::Expr,
    ) -> Option<([String; 2], crate::types::Elem)> {
        let index = self.expr(index);
        let ld = self.expr(ld);
        let (row, col) = self.fragment_origin();
        let at = self.arith(Arith::Mul, Prim::U32, row, ld.clone());
        let at = self.arith(Arith::Add, Prim::U32, at, col);
        let at = self.arith(Arith::Add, Prim::U32, at, index);
        let (upper, elem) = self.global_element(dst, at)?;
        let ld = self.in_reg(ld);
        let eight_rows = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mul,
            &["wide", "u32"],
            vec![
                Operand::reg(&eight_rows),
                Operand::reg(&ld),
                Operand::int(8 * elem.size() as i64),
            ],
        );
        let lower = self.reg(RegClass::B64);
        self.inst(
            Opcode::Add,
            &["s64"],
            vec![
                Operand::reg(&lower),
                Operand::reg(&upper),
                Operand::reg(&eight_rows),
            ],
        );
        Some(([upper, lower], elem))
    }

    /// `acc.store(&mut dst, index, ld)`: element `(r, c)` to `dst[index + r * ld + c]`, each
    /// thread its `N / 2` elements, two rows 8 apart per 8 columns.
    fn acc_store(&mut self, acc: &AccVal, m: &syn::ExprMethodCall) -> Val {
        let Some((rows, elem)) = self.fragment_rows(&m.args[0], &m.args[1], &m.args[2]) else {
            return self.internal_val("accumulator store destination");
        };
        for (i, r) in acc.regs.iter().enumerate() {
            let (row, offset) = fragment_place(i, elem.size() as i64);
            self.inst(
                Opcode::St,
                &["global", "f32"],
                vec![
                    Operand::Address(Address {
                        base: AddressBase::Reg(rows[row].clone()),
                        offset,
                    }),
                    Operand::reg(r),
                ],
            );
        }
        Val::Unit
    }

    /// The operands both staging methods share: the constant block, the tile's shared base,
    /// whether it holds f16, and the thread's lane and warp within its warpgroup.
    fn staging(&mut self, m: &syn::ExprMethodCall) -> Option<Staging> {
        let block = crate::params::const_usize(&m.args[2])
            .or_else(|| self.const_generic_value(&m.args[2]))?;
        let Some(Binding::Shared { base, .. }) =
            memory_name(&m.args[0]).and_then(|n| self.lookup(&n))
        else {
            return None;
        };
        let f16 = matches!(self.ty(&m.args[0]), Ty::Shared { elem, .. } if elem.prim == Prim::F16);
        let lane = self.special(phasegate_ptx::SpecialReg::LaneId);
        let lane = self.in_reg(lane);
        let warp = self.warp_index();
        let warp = self.arith(
            Arith::BitAnd,
            Prim::U32,
            warp,
            Val::Imm(Prim::U32, Imm::Int(3)),
        );
        let warp = self.in_reg(warp);
        Some(Staging {
            block,
            base,
            f16,
            lane,
            warp,
        })
    }

    /// `acc.stage_columns(&mut tile, index, block)` (`width` 64), `stage_columns_32` (`width`
    /// 32) and `stage_columns_16` (`width` 16): each pair of neighbouring columns of the block
    /// (registers `i`, `i + 1` with `i = width / 2 · block + 4 q + 2 h`, `q < width / 8`: row
    /// `r = 16 w + l / 4 + 8 h`,
    /// columns `8 q + 2 (l % 4)` and the next, §9.7.15.5.1.1) as one `cvt.rn.bf16x2.f32` word
    /// (`f16x2` for a tile of f16), stored where the swizzle of rows of `2 · width` bytes puts
    /// it: row `r` at byte `2 · width · r`, its 16-byte chunk `q` at chunk `q ^ x`, where `x`
    /// is `r % 8` for 128-byte rows (the 128-byte swizzle), `r / 2 % 4` for 64-byte ones (the
    /// 64-byte swizzle) and `r / 4 % 2` for 32-byte ones (the 32-byte swizzle) — `l / 4`, `l / 8`
    /// and `l / 16` (`16 w` and `8 h` are multiples of 8 rows: they leave it as it is).
    fn stage_columns(&mut self, acc: &AccVal, m: &syn::ExprMethodCall, width: u64) -> Val {
        let Some(Staging {
            block,
            base,
            f16,
            lane,
            warp,
        }) = self.staging(m)
        else {
            return self.internal_val("stage_columns operands");
        };
        let pair_type = if f16 { "f16x2" } else { "bf16x2" };
        let row_bytes = 2 * width;
        let shifted = |this: &mut Self, by: i64| {
            let r = this.reg(RegClass::B32);
            this.inst(
                Opcode::Shr,
                &["u32"],
                vec![Operand::reg(&r), Operand::reg(&lane), Operand::int(by)],
            );
            r
        };
        // The thread's byte in the tile for h = 0, q = 0, before the chunk: row_bytes (16 w +
        // l / 4) + 4 (l % 4); and x, the row's swizzle.
        let g = shifted(self, 2);
        let x = match width {
            64 => g.clone(),
            32 => shifted(self, 3),
            _ => shifted(self, 4),
        };
        let row = self.mad_u32(&warp, 16, &g);
        let index = self.expr(&m.args[1]);
        let index = self.in_reg(index);
        let tile = self.mad_u32(&index, 4, &base);
        let quad = self.reg(RegClass::B32);
        self.inst(
            Opcode::And,
            &["b32"],
            vec![Operand::reg(&quad), Operand::reg(&lane), Operand::int(3)],
        );
        let at = self.mad_u32(&row, row_bytes as u32, &tile);
        let at2 = self.mad_u32(&quad, 4, &at);
        for q in 0..width / 8 {
            let chunk = self.reg(RegClass::B32);
            self.inst(
                Opcode::Xor,
                &["b32"],
                vec![
                    Operand::reg(&chunk),
                    Operand::reg(&x),
                    Operand::int(q as i64),
                ],
            );
            let addr = self.mad_u32(&chunk, 16, &at2);
            for h in 0..2u64 {
                let i = (width / 2 * block + 4 * q + 2 * h) as usize;
                let (Some(lo), Some(hi)) = (acc.regs.get(i), acc.regs.get(i + 1)) else {
                    return self.internal_val("stage_columns register");
                };
                let word = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Cvt,
                    &["rn", pair_type, "f32"],
                    vec![Operand::reg(&word), Operand::reg(hi), Operand::reg(lo)],
                );
                self.inst(
                    Opcode::St,
                    &["shared", "b32"],
                    vec![
                        Operand::Address(Address {
                            base: AddressBase::Reg(addr.clone()),
                            offset: (8 * row_bytes * h) as i64,
                        }),
                        Operand::reg(&word),
                    ],
                );
            }
        }
        Val::Unit
    }

    /// `acc.stage_columns_transposed(&mut tile, index, block)` (`width` 64),
    /// `stage_columns_transposed_32` (`width` 32) and `stage_columns_transposed_16` (`width` 16): element `(r, c)` of the block (register
    /// `i = width / 2 · block + 4 q + 2 h + b`, `q < width / 8`: row `r = 16 w + g + 8 h`, column
    /// `c = 8 q + 2 t + b`, with `g = l / 4` and `t = l % 4`, §9.7.15.5.1.1) to the tile's row
    /// `c` (a tile of `width` rows of 64 elements), position
    /// `r`: byte `128 c + 16 ((r / 8) ^ (c % 8)) + 2 (r % 8)` of the 128-byte swizzle, which is
    /// `1024 q + 128 b + 256 t + 16 ((2 w + h) ^ (2 t + b)) + 2 g`. Each element is rounded
    /// alone (`cvt.rn.bf16.f32`) and stored alone (`st.shared.b16`).
    fn stage_columns_transposed(
        &mut self,
        acc: &AccVal,
        m: &syn::ExprMethodCall,
        width: usize,
    ) -> Val {
        let Some(Staging {
            block,
            base,
            f16,
            lane,
            warp,
        }) = self.staging(m)
        else {
            return self.internal_val("stage_columns_transposed operands");
        };
        let half = if f16 { "f16" } else { "bf16" };
        let g = self.reg(RegClass::B32);
        self.inst(
            Opcode::Shr,
            &["u32"],
            vec![Operand::reg(&g), Operand::reg(&lane), Operand::int(2)],
        );
        let t = self.reg(RegClass::B32);
        self.inst(
            Opcode::And,
            &["b32"],
            vec![Operand::reg(&t), Operand::reg(&lane), Operand::int(3)],
        );
        // The thread's bytes before the swizzled chunk: tile + 2 g + 256 t.
        let index = self.expr(&m.args[1]);
        let index = self.in_reg(index);
        let tile = self.mad_u32(&index, 4, &base);
        let at = self.mad_u32(&g, 2, &tile);
        let at = self.mad_u32(&t, 256, &at);
        // The chunks' two sides: 2 w + h and 2 t + b.
        let twice_plus = |this: &mut Self, x: &str, k: i64| {
            let d = this.reg(RegClass::B32);
            this.inst(
                Opcode::Mad,
                &["lo", "u32"],
                vec![
                    Operand::reg(&d),
                    Operand::reg(x),
                    Operand::int(2),
                    Operand::int(k),
                ],
            );
            d
        };
        let rows = [twice_plus(self, &warp, 0), twice_plus(self, &warp, 1)];
        let cols = [twice_plus(self, &t, 0), twice_plus(self, &t, 1)];
        let mut addrs = Vec::new();
        for row in &rows {
            for (b, col) in cols.iter().enumerate() {
                let chunk = self.reg(RegClass::B32);
                self.inst(
                    Opcode::Xor,
                    &["b32"],
                    vec![Operand::reg(&chunk), Operand::reg(row), Operand::reg(col)],
                );
                let addr = self.mad_u32(&chunk, 16, &at);
                addrs.push((addr, 128 * b as i64));
            }
        }
        for q in 0..width / 8 {
            for h in 0..2usize {
                for b in 0..2usize {
                    let i = width / 2 * block as usize + 4 * q + 2 * h + b;
                    let Some(value) = acc.regs.get(i) else {
                        return self.internal_val("stage_columns_transposed register");
                    };
                    let (addr, column) = &addrs[2 * h + b];
                    let element = self.reg(RegClass::B16);
                    self.inst(
                        Opcode::Cvt,
                        &["rn", half, "f32"],
                        vec![Operand::reg(&element), Operand::reg(value)],
                    );
                    self.inst(
                        Opcode::St,
                        &["shared", "b16"],
                        vec![
                            Operand::Address(Address {
                                base: AddressBase::Reg(addr.clone()),
                                offset: 1024 * q as i64 + column,
                            }),
                            Operand::reg(&element),
                        ],
                    );
                }
            }
        }
        Val::Unit
    }

    /// `acc.mma(&slot, &a, &b)`.
    fn mma(&mut self, acc: AccVal, m: &syn::ExprMethodCall) -> Val {
        let buffer = match self.expr(&m.args[0]) {
            Val::Handle(h) => match *h {
                HVal::ConsumerSlot(_, _, addrs) => addrs.buffer,
                _ => return self.internal_val("mma slot"),
            },
            _ => return self.internal_val("mma slot"),
        };
        let (Some(a), Some(b)) = (self.map_shape(&m.args[1]), self.map_shape(&m.args[2])) else {
            return self.internal_val("mma maps");
        };
        let Some(input) = WgmmaInput::of(a.elem) else {
            return self.internal_val("mma element type");
        };
        // `mma_block`: this warpgroup's 64 rows of a taller A box (rows of one swizzle span,
        // whole 8-row swizzle atoms, so the block starts where the pattern does).
        let a_start = if m.method == "mma_block" {
            let block = self.expr(&m.args[3]);
            let row_bytes = (a.dims[0] * input.bytes) as i64;
            let block = self.in_reg(block);
            self.mad_u32(&block, 64 * row_bytes, &buffer)
        } else {
            buffer.clone()
        };
        let a_desc = self.descriptor(&a_start, 0, a);
        let b_desc = self.descriptor(&buffer, a.box_bytes(), b);
        if !acc.open {
            self.inst(
                Opcode::from_name("wgmma"),
                &["fence", "sync", "aligned"],
                vec![],
            );
        }
        let step = (input.k * input.bytes) as i64 >> 4;
        for j in 0..(a.dims[0] / input.k) as i64 {
            let (da, db) = if j == 0 {
                (a_desc.clone(), b_desc.clone())
            } else {
                (
                    self.advance_desc(&a_desc, j * step),
                    self.advance_desc(&b_desc, j * step),
                )
            };
            self.emit_mma(&acc, input, &da, &db, j == 0);
        }
        Val::Handle(Box::new(HVal::Acc(AccVal {
            open: true,
            fresh: false,
            ..acc
        })))
    }

    /// One `wgmma.mma_async` of A and B in shared memory (descriptors `da`, `db`) into the
    /// accumulator; the `first` of a fresh accumulator's product overwrites it (scale-d 0).
    pub(super) fn emit_mma(
        &mut self,
        acc: &AccVal,
        input: WgmmaInput,
        da: &str,
        db: &str,
        first: bool,
    ) {
        let regs = Operand::Vector(acc.regs.iter().map(Operand::reg).collect());
        let mut operands = vec![regs, Operand::reg(da), Operand::reg(db)];
        operands.extend(mma_immediates(input, !(acc.fresh && first)));
        self.emit(phasegate_ptx::Instruction {
            guard: None,
            opcode: Opcode::from_name("wgmma"),
            modifiers: mma_modifiers(acc.shape.n, input),
            operands,
        });
    }

    pub(super) fn map_shape(&mut self, e: &Expr) -> Option<MapShape> {
        match self.lookup(&memory_name(e)?)? {
            super::Binding::Map { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The descriptor of the box at byte `offset` of the stage at `buffer`: the start address
    /// field is the shared address / 16, the rest [`descriptor_bits`].
    pub(super) fn descriptor(&mut self, buffer: &str, offset: u64, map: MapShape) -> String {
        let at = self.offset_address(buffer, offset);
        self.descriptor_at(&at, descriptor_bits(map))
    }

    /// A matrix descriptor: the shared address `at` / 16 in the start address field, `bits`
    /// (offsets, swizzle) in the others.
    pub(super) fn descriptor_at(&mut self, at: &str, bits: u64) -> String {
        let field = self.reg(RegClass::B32);
        self.inst(
            Opcode::Shr,
            &["u32"],
            vec![Operand::reg(&field), Operand::reg(at), Operand::int(4)],
        );
        let wide = self.reg(RegClass::B64);
        self.inst(
            Opcode::Cvt,
            &["u64", "u32"],
            vec![Operand::reg(&wide), Operand::reg(&field)],
        );
        let desc = self.reg(RegClass::B64);
        self.inst(
            Opcode::Or,
            &["b64"],
            vec![
                Operand::reg(&desc),
                Operand::reg(&wide),
                Operand::int(bits as i64),
            ],
        );
        desc
    }

    /// The descriptor `fields` 16-byte units further along K (within the swizzled rows the
    /// hardware applies the swizzle to the address, so a K step is a plain add).
    pub(super) fn advance_desc(&mut self, desc: &str, fields: i64) -> String {
        let d = self.reg(RegClass::B64);
        self.inst(
            Opcode::Add,
            &["s64"],
            vec![Operand::reg(&d), Operand::reg(desc), Operand::int(fields)],
        );
        d
    }
}

/// The accumulator `acc` of `acc.reset()`, if `e` is that call.
fn reset_receiver(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Paren(p) => reset_receiver(&p.expr),
        Expr::Group(g) => reset_receiver(&g.expr),
        Expr::MethodCall(m) if m.method == "reset" && m.args.is_empty() => Some(&m.receiver),
        _ => None,
    }
}

/// Whether `e` is a call of `accumulator::<..>()` (a fresh zeroed accumulator).
fn is_accumulator_call(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_accumulator_call(&p.expr),
        Expr::Group(g) => is_accumulator_call(&g.expr),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "accumulator"),
            _ => false,
        },
        _ => false,
    }
}

/// What `stage_columns` and `stage_columns_transposed` start from ([`Lowerer::staging`]).
struct Staging {
    block: u64,
    base: String,
    f16: bool,
    lane: String,
    warp: String,
}

/// The byte offset of fragment element `i` from its row's address, and which row (0: the
/// upper, 1: eight rows down): element `i` is at column `8 (i / 4) + i % 2` of row
/// `8 ((i / 2) % 2)` (§9.7.15.5.1.1).
fn fragment_place(i: usize, size: i64) -> (usize, i64) {
    let i = i as i64;
    (((i >> 1) & 1) as usize, (8 * (i >> 2) + (i & 1)) * size)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(swizzle: u32) -> MapShape {
        MapShape {
            elem: Prim::F32,
            rank: 2,
            dims: [swizzle / 4, 64, 1, 1, 1],
            swizzle,
        }
    }

    #[test]
    fn descriptor_bits_follow_the_isa_fields() {
        // 128-byte swizzle: LBO field 1, SBO 1024 bytes (field 64), mode 1 in bits 62-63.
        assert_eq!(
            descriptor_bits(map(128)),
            (1 << 16) | (64 << 32) | (1 << 62)
        );
        assert_eq!(descriptor_bits(map(64)), (1 << 16) | (32 << 32) | (2 << 62));
        assert_eq!(descriptor_bits(map(32)), (1 << 16) | (16 << 32) | (3 << 62));
    }

    #[test]
    fn tf32_and_16_bit_inputs_take_their_instruction_forms() {
        let tf32 = WgmmaInput::of(Prim::F32).unwrap();
        assert_eq!(
            mma_modifiers(64, tf32).join("."),
            "mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"
        );
        assert_eq!(mma_immediates(tf32, true).len(), 3);
        // The form a 16-bit element gets once its Prim maps to it (see `WgmmaInput::of`): K 16,
        // the same 32 bytes per K step, and the two transpose immediates (0: K-major).
        let bf16 = WgmmaInput {
            ptx: "bf16",
            k: 16,
            bytes: 2,
        };
        assert_eq!(
            mma_modifiers(256, bf16).join("."),
            "mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"
        );
        assert_eq!(mma_immediates(bf16, true).len(), 5);
        assert_eq!(tf32.k * tf32.bytes, bf16.k * bf16.bytes);
    }
}
