//! Tensor maps and the tensor copies that read them.
//!
//! A map parameter is `.param .align 64 .b8 name[128]`; the kernel takes its generic address
//! once (`mov.b64` of the parameter, then `cvta.param.u64`, as nvcc does for a
//! `__grid_constant__` map), and every copy names the map through that register. The sizes
//! of copies come from the map's type: the checker has made sure each box fits its stage.

use super::sync::{PipeState, PipeVal, SlotAddrs, reg_addr};
use super::{Binding, Lowerer, Val, strip};
use crate::params::memory_name;
use crate::types::{MapShape, RegClass};
use phasegate_ptx::{Address, AddressBase, Opcode, Operand};
use syn::Expr;

impl Lowerer<'_> {
    /// The generic address of map parameter `symbol`.
    pub(super) fn map_param(&mut self, symbol: &str, shape: MapShape) -> Binding {
        let param = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mov,
            &["b64"],
            vec![Operand::reg(&param), Operand::sym(symbol)],
        );
        let addr = self.reg(RegClass::B64);
        self.inst(
            Opcode::Cvta,
            &["param", "u64"],
            vec![Operand::reg(&addr), Operand::reg(&param)],
        );
        Binding::Map { shape, addr }
    }

    fn map_of(&mut self, e: &Expr) -> Option<(MapShape, String)> {
        match self.lookup(&memory_name(e)?)? {
            Binding::Map { shape, addr } => Some((shape, addr)),
            _ => None,
        }
    }

    /// `[map, {c0, c1, ..}]`, the coordinates as `.s32` registers.
    fn box_operand(&mut self, addr: &str, coords: &Expr) -> Option<Operand> {
        let values: Vec<Val> = match coords {
            Expr::Array(arr) => arr.elems.iter().map(|item| self.expr(item)).collect(),
            other => match self.expr(other) {
                Val::Vector(_, lanes) => lanes,
                _ => return None,
            },
        };
        let regs = values
            .into_iter()
            .map(|v| Operand::reg(self.in_reg(v)))
            .collect();
        Some(Operand::TensorAddress(
            Address {
                base: AddressBase::Reg(addr.into()),
                offset: 0,
            },
            regs,
        ))
    }

    /// Shared memory holding swizzled boxes must start on the swizzle's granule; the dynamic
    /// shared memory, where pipelines put their stages, is declared with that alignment.
    fn align_dynamic(&mut self, map: MapShape) {
        let sym = self.dynamic_smem();
        let want = map.box_alignment() as u32;
        if let Some(decl) = self.module_vars.iter_mut().find(|d| d.name == sym) {
            decl.align = Some(decl.align.unwrap_or(1).max(want));
        }
    }

    /// A shared array a tensor copy reads starts on the copy's granule (the checker has made
    /// sure a constant index keeps it there).
    fn align_shared_array(&mut self, e: &Expr, map: MapShape) {
        let Some(Binding::Shared { symbol, .. }) = memory_name(e).and_then(|n| self.lookup(&n))
        else {
            return;
        };
        let want = map.box_alignment() as u32;
        if let Some(decl) = self.shared_decls.iter_mut().find(|d| d.name == symbol)
            && decl.align.unwrap_or(1) < want
        {
            decl.align = Some(want);
            // The static total is an upper bound: the larger alignment may pad the array.
            self.shared_bytes += want as u64 - 16;
        }
    }

    /// `map.prefetch()`, or `map.published(..)` not bound to a name (its fence alone).
    pub(super) fn map_method(&mut self, m: &syn::ExprMethodCall) -> Val {
        if m.method == "published" {
            // Acquired and not bound: the fence is all there is to it.
            self.published(m);
            return Val::Unit;
        }
        let Some((_, addr)) = self.map_of(&m.receiver) else {
            return self.internal_val("tensor map receiver");
        };
        self.inst(
            Opcode::from_name("prefetch"),
            &["tensormap"],
            vec![reg_addr(&addr)],
        );
        Val::Unit
    }

    /// The address of `slots[index]`: generic (what copies and proxy fences take) or in the
    /// global window (what `tensormap.replace.global` and `st.global` take).
    fn slot(&mut self, slots: &Expr, index: &Expr, generic: bool) -> Option<String> {
        let Some(Binding::Slots { generic: g, global }) =
            memory_name(slots).and_then(|n| self.lookup(&n))
        else {
            self.internal("tensor-map slots");
            return None;
        };
        let index = self.expr(index);
        let index = self.in_reg(index);
        Some(self.wide_offset(if generic { &g } else { &global }, &index, 128))
    }

    /// `map.published(slots, i)`: `fence.proxy.tensormap::generic.acquire.gpu [slot], 128`
    /// (PTX ISA §9.7.13.4), after which this thread's copies read the bytes the release
    /// published; the map is then the slot's generic address.
    pub(super) fn published(&mut self, m: &syn::ExprMethodCall) -> Binding {
        let shape = self.map_of(&m.receiver).map(|(shape, _)| shape);
        let (Some(shape), Some(generic)) = (shape, self.slot(&m.args[0], &m.args[1], true)) else {
            self.internal("published map");
            return Binding::Value {
                val: Val::Unit,
                mutable: false,
            };
        };
        self.inst(
            Opcode::Fence,
            &["proxy", "tensormap::generic", "acquire", "gpu"],
            vec![reg_addr(&generic), Operand::int(128)],
        );
        Binding::Map {
            shape,
            addr: generic,
        }
    }

    /// `map.edit(slots, i)...release()`: the slot gets the map's 128 bytes, each link of
    /// the chain is a `tensormap.replace.tile` on it (§9.7.9.26), and the release fence
    /// publishes the writes to the tensormap proxy (§9.7.13.4).
    pub(super) fn release_map_edit(&mut self, m: &syn::ExprMethodCall) -> Val {
        if self.map_edit(&m.receiver).is_none() {
            return self.internal_val("map edit");
        }
        self.inst(
            Opcode::Fence,
            &["proxy", "tensormap::generic", "release", "gpu"],
            vec![],
        );
        Val::Unit
    }

    /// The links of an edit chain up to `e`, lowered in order; the slot's global-window
    /// address.
    fn map_edit(&mut self, e: &Expr) -> Option<String> {
        let Expr::MethodCall(m) = strip(e) else {
            return None;
        };
        let replace = |field: &'static str, ty: &'static str| {
            ["replace", "tile", field, "global", "b1024", ty]
        };
        match m.method.to_string().as_str() {
            "edit" => {
                let (_, map) = self.map_of(&m.receiver)?;
                let slot = self.slot(&m.args[0], &m.args[1], false)?;
                // The template's 128 bytes, 16 at a time (generic loads: a parameter map's
                // address is in the parameter window).
                for part in 0..8 {
                    let words = [self.reg(RegClass::B64), self.reg(RegClass::B64)];
                    let pair = Operand::Vector(words.iter().map(Operand::reg).collect());
                    let at = |base: &str| {
                        Operand::Address(Address {
                            base: AddressBase::Reg(base.to_string()),
                            offset: 16 * part,
                        })
                    };
                    self.inst(Opcode::Ld, &["v2", "b64"], vec![pair.clone(), at(&map)]);
                    self.inst(Opcode::St, &["global", "v2", "b64"], vec![at(&slot), pair]);
                }
                Some(slot)
            }
            "address" => {
                let slot = self.map_edit(&m.receiver)?;
                let index = self.expr(&m.args[1]);
                let Some((at, _)) = self.global_element(&m.args[0], index) else {
                    self.internal("map edit address");
                    return None;
                };
                self.inst(
                    Opcode::from_name("tensormap"),
                    &replace("global_address", "b64"),
                    vec![reg_addr(&slot), Operand::reg(&at)],
                );
                Some(slot)
            }
            "global_dim" => {
                let slot = self.map_edit(&m.receiver)?;
                let dim = crate::params::literal_u64(&m.args[0])?;
                let extent = self.expr(&m.args[1]);
                let extent = self.in_reg(extent);
                self.inst(
                    Opcode::from_name("tensormap"),
                    &replace("global_dim", "b32"),
                    vec![
                        reg_addr(&slot),
                        Operand::int(dim as i64),
                        Operand::reg(&extent),
                    ],
                );
                Some(slot)
            }
            _ => None,
        }
    }

    /// `slot.load_tile(&map, [..])` / `slot.load_tiles(&a, [..], &b, [..])`: arms the stage's
    /// full barrier with every box's bytes, then copies each box to its place in the stage.
    pub(super) fn load_tiles(
        &mut self,
        pipe: &PipeVal,
        state: &PipeState,
        addrs: &SlotAddrs,
        args: &[&Expr],
        multicast: bool,
    ) -> Val {
        let mut boxes = Vec::new();
        for pair in args.chunks(2) {
            let [map, coords] = pair else {
                return self.internal_val("tile load arguments");
            };
            let Some((shape, addr)) = self.map_of(map) else {
                return self.internal_val("tile load map");
            };
            let Some(operand) = self.box_operand(&addr, coords) else {
                return self.internal_val("tile load coordinates");
            };
            self.align_dynamic(shape);
            boxes.push((shape, operand));
        }
        // A multicast box arrives once from each CTA of the cluster, each at its rank's place.
        let copies = |i: usize| {
            if multicast && i == 1 {
                pipe.shape.ctas as u64
            } else {
                1
            }
        };
        let total: u64 = boxes
            .iter()
            .enumerate()
            .map(|(i, (s, _))| s.box_bytes() * copies(i))
            .sum();
        let token = self.reg(RegClass::B64);
        self.inst(
            Opcode::Mbarrier,
            &["arrive", "expect_tx", "shared::cta", "b64"],
            vec![
                Operand::reg(&token),
                reg_addr(&addrs.barrier),
                Operand::int(total as i64),
            ],
        );
        let mut offset = 0u64;
        for (i, (shape, operand)) in boxes.into_iter().enumerate() {
            let dims = format!("{}d", shape.rank);
            if copies(i) > 1 {
                self.multicast_box(
                    &addrs.buffer,
                    offset,
                    shape,
                    operand,
                    &addrs.barrier,
                    &dims,
                    pipe.shape.ctas,
                );
                offset += shape.box_bytes() * copies(i);
                continue;
            }
            let dst = self.offset_address(&addrs.buffer, offset);
            self.inst(
                Opcode::Cp,
                &[
                    "async",
                    "bulk",
                    "tensor",
                    &dims,
                    "shared::cluster",
                    "global",
                    "tile",
                    "mbarrier::complete_tx::bytes",
                ],
                vec![reg_addr(&dst), operand, reg_addr(&addrs.barrier)],
            );
            offset += shape.box_bytes();
        }
        self.advance(pipe, state);
        Val::Unit
    }

    /// This CTA's multicast box: to offset `offset + rank * box` of the stage in every CTA of
    /// the cluster (`.multicast::cluster`, mask of all `ctas`), completing on each CTA's barrier.
    #[allow(clippy::too_many_arguments)]
    fn multicast_box(
        &mut self,
        buffer: &str,
        offset: u64,
        shape: MapShape,
        operand: Operand,
        barrier: &str,
        dims: &str,
        ctas: u32,
    ) {
        let rank = self.reg(RegClass::B32);
        self.inst(
            Opcode::Mov,
            &["u32"],
            vec![
                Operand::reg(&rank),
                Operand::reg(phasegate_ptx::SpecialReg::ClusterCtaRank.name()),
            ],
        );
        let dst = self.mad_u32(&rank, shape.box_bytes() as i64, buffer);
        if offset > 0 {
            self.inst(
                Opcode::Add,
                &["u32"],
                vec![
                    Operand::reg(&dst),
                    Operand::reg(&dst),
                    Operand::int(offset as i64),
                ],
            );
        }
        let mask = self.reg(RegClass::B16);
        self.inst(
            Opcode::Mov,
            &["b16"],
            vec![
                Operand::reg(&mask),
                Operand::int(((1u32 << ctas) - 1) as i64),
            ],
        );
        self.inst(
            Opcode::Cp,
            &[
                "async",
                "bulk",
                "tensor",
                dims,
                "shared::cluster",
                "global",
                "tile",
                "mbarrier::complete_tx::bytes",
                "multicast::cluster",
            ],
            vec![
                reg_addr(&dst),
                operand,
                reg_addr(barrier),
                Operand::reg(&mask),
            ],
        );
    }

    /// `tma_store(&map, [..], &src, index)`.
    pub(super) fn tma_store(&mut self, args: &[&Expr]) -> Val {
        let [map, coords, src, index] = args else {
            return self.internal_val("tma_store arguments");
        };
        let Some((shape, addr)) = self.map_of(map) else {
            return self.internal_val("tma_store map");
        };
        let Some(operand) = self.box_operand(&addr, coords) else {
            return self.internal_val("tma_store coordinates");
        };
        let i = self.expr(index);
        self.align_shared_array(src, shape);
        let Some((src, _)) = self.shared_element(src, i) else {
            return self.internal_val("tma_store source");
        };
        let dims = format!("{}d", shape.rank);
        self.inst(
            Opcode::Cp,
            &[
                "async",
                "bulk",
                "tensor",
                &dims,
                "global",
                "shared::cta",
                "tile",
                "bulk_group",
            ],
            vec![operand, reg_addr(&src)],
        );
        Val::Unit
    }
}
