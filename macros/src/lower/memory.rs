//! Memory: loads and stores through global slices, shared arrays and vector lanes.
//!
//! Read-only slices (`&[T]`) are loaded with `ld.global.nc`: Rust guarantees that nothing
//! writes the memory a shared reference points to while the kernel runs, which is exactly the
//! condition of the non-coherent read-only path.

use super::{Binding, Lowerer, Val, strip};
use crate::params::const_usize;
use crate::types::{Elem, RegClass};
use phasegate_ptx::{Address, AddressBase, Imm, Instruction, Opcode, Operand, StateSpace, VarDecl};
use syn::Expr;
use syn::spanned::Spanned;

/// Where an element lives.
struct Location {
    /// `global`, `shared` or `shared::cluster`.
    space: &'static str,
    read_only: bool,
    elem: Elem,
    address: Address,
}

impl Lowerer<'_> {
    /// Declares a shared array (`let tile = shared_array::<f32, 1024>();`) and puts its
    /// address in a register.
    pub(super) fn shared_array(&mut self, name: &str, init: &Expr) -> Binding {
        let crate::types::Ty::Shared { elem, len } = self.ty(init) else {
            self.internal("shared array of unknown type");
            return Binding::Value {
                val: Val::Unit,
                mutable: false,
            };
        };
        let symbol = format!(
            "{}_{}_{}",
            self.kernel,
            sanitize(name),
            self.shared_decls.len()
        );
        let bytes = len * elem.size() as u64;
        let mut decl = VarDecl::new(
            StateSpace::Shared,
            phasegate_ptx::ScalarType::B8,
            symbol.clone(),
        );
        decl.align = Some(16);
        decl.array = vec![Some(bytes)];
        self.shared_decls.push(decl);
        self.shared_bytes = self.shared_bytes.next_multiple_of(16) + bytes;
        let base = self.reg(RegClass::B32);
        self.emit(Instruction::new(
            Opcode::Mov,
            &["u32"],
            vec![Operand::reg(&base), Operand::sym(&symbol)],
        ));
        Binding::Shared {
            elem,
            symbol,
            base,
            len,
        }
    }

    /// The address of `base[index]`.
    fn locate(&mut self, ix: &syn::ExprIndex) -> Option<Location> {
        let Expr::Path(path) = strip(&ix.expr) else {
            self.internal("indexing something other than a name");
            return None;
        };
        let name = path
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let binding = self.lookup(&name)?;
        match binding {
            Binding::Global {
                elem,
                base,
                mutable,
            } => {
                let index = self.expr(&ix.index);
                let address = self.element_address(&base, index, elem, true);
                Some(Location {
                    space: "global",
                    read_only: !mutable,
                    elem,
                    address,
                })
            }
            Binding::Shared {
                elem,
                symbol,
                base,
                len,
            } => {
                let index = self.expr(&ix.index);
                if let Val::Imm(_, Imm::Int(k)) = index {
                    if k as u64 >= len {
                        let span = ix.index.span();
                        self.diag.error(
                            span,
                            format!(
                                "index {k} is out of bounds for a shared array of {len} elements"
                            ),
                        );
                        return None;
                    }
                    let offset = k * elem.size() as i64;
                    return Some(Location {
                        space: "shared",
                        read_only: false,
                        elem,
                        address: Address {
                            base: AddressBase::Symbol(symbol),
                            offset,
                        },
                    });
                }
                let address = self.element_address(&base, index, elem, false);
                Some(Location {
                    space: "shared",
                    read_only: false,
                    elem,
                    address,
                })
            }
            Binding::Value {
                val: Val::Handle(h),
                ..
            } => {
                let index = self.expr(&ix.index);
                let (at, elem, space) = self.handle_element(&h, index)?;
                Some(Location {
                    space,
                    read_only: false,
                    elem,
                    address: Address {
                        base: AddressBase::Reg(at),
                        offset: 0,
                    },
                })
            }
            Binding::Value { .. } | Binding::Map { .. } | Binding::Slots { .. } => {
                self.internal("memory index on a value");
                None
            }
        }
    }

    /// `base + index * size`: `mad.wide.u32` into a 64-bit global address, `mad.lo.u32` into a
    /// 32-bit shared-window address. A constant index becomes an address offset.
    pub(super) fn element_address(
        &mut self,
        base: &str,
        index: Val,
        elem: Elem,
        wide: bool,
    ) -> Address {
        let size = elem.size() as i64;
        if let Val::Imm(_, Imm::Int(k)) = index {
            let k = k as u32 as i64;
            return Address {
                base: AddressBase::Reg(base.to_string()),
                offset: k * size,
            };
        }
        let index = self.in_reg(index);
        let (d, mods) = if wide {
            (self.reg(RegClass::B64), ["wide", "u32"])
        } else {
            (self.reg(RegClass::B32), ["lo", "u32"])
        };
        self.emit(Instruction::new(
            Opcode::Mad,
            &mods,
            vec![
                Operand::reg(&d),
                Operand::reg(&index),
                Operand::int(size),
                Operand::reg(base),
            ],
        ));
        Address {
            base: AddressBase::Reg(d),
            offset: 0,
        }
    }

    /// `base[index]` as a value; `v[k]` reads a vector lane.
    pub(super) fn index_load(&mut self, ix: &syn::ExprIndex) -> Val {
        if let Some(crate::types::Ty::Vector(..)) = Some(self.ty(&ix.expr)) {
            let v = self.expr(&ix.expr);
            let lane = const_usize(&ix.index).unwrap_or(0) as usize;
            return match v {
                Val::Vector(_, mut lanes) if lane < lanes.len() => lanes.swap_remove(lane),
                _ => {
                    self.internal("vector lane");
                    Val::Unit
                }
            };
        }
        let Some(loc) = self.locate(ix) else {
            return Val::Unit;
        };
        self.load_elem(
            loc.space,
            loc.read_only,
            loc.elem,
            Operand::Address(loc.address),
        )
    }

    /// `ld.<space>{.nc}{.vN}.<type>` of one element at `address`.
    pub(super) fn load_elem(
        &mut self,
        space: &str,
        read_only: bool,
        elem: Elem,
        address: Operand,
    ) -> Val {
        let prim = elem.prim;
        if let Some(words) = packed_words(elem) {
            return self.load_packed(space, read_only, elem, words, address);
        }
        let dst: Vec<String> = (0..elem.lanes).map(|_| self.reg(prim.class())).collect();
        let mut mods = vec![space];
        if read_only {
            mods.push("nc");
        }
        let vec_mod = format!("v{}", elem.lanes);
        if elem.lanes > 1 {
            mods.push(&vec_mod);
        }
        mods.push(prim.mem().name());
        let dst_op = if elem.lanes > 1 {
            Operand::Vector(dst.iter().map(Operand::reg).collect())
        } else {
            Operand::reg(&dst[0])
        };
        self.emit(Instruction::new(Opcode::Ld, &mods, vec![dst_op, address]));
        if elem.lanes > 1 {
            Val::Vector(prim, dst.into_iter().map(|r| Val::Reg(prim, r)).collect())
        } else {
            Val::Reg(prim, dst.into_iter().next().unwrap_or_default())
        }
    }

    /// A vector of 16-bit lanes wider than `ld.v4.b16` moves: `words` 32-bit words in one
    /// `ld.v{words}.b32`, each unpacked into its two lanes (`mov.b32 {lo, hi}`, low lane first,
    /// as memory holds them), which is what nvcc emits for a 16-byte tile of halves.
    fn load_packed(
        &mut self,
        space: &str,
        read_only: bool,
        elem: Elem,
        words: u8,
        address: Operand,
    ) -> Val {
        let prim = elem.prim;
        let regs: Vec<String> = (0..words).map(|_| self.reg(RegClass::B32)).collect();
        let mut mods = vec![space];
        if read_only {
            mods.push("nc");
        }
        let vec_mod = format!("v{words}");
        mods.push(&vec_mod);
        mods.push("b32");
        let dst = Operand::Vector(regs.iter().map(Operand::reg).collect());
        self.emit(Instruction::new(Opcode::Ld, &mods, vec![dst, address]));
        let mut lanes = Vec::new();
        for word in regs {
            let (lo, hi) = (self.reg(RegClass::B16), self.reg(RegClass::B16));
            self.emit(Instruction::new(
                Opcode::Mov,
                &["b32"],
                vec![
                    Operand::Vector(vec![Operand::reg(&lo), Operand::reg(&hi)]),
                    Operand::reg(&word),
                ],
            ));
            for half in [lo, hi] {
                if prim.is_fp8() {
                    // Two fp8 lanes a half: the low byte is the first (an fp8 value is the low
                    // byte of its register, whatever the high byte holds), the second shifted
                    // down.
                    let second = self.reg(RegClass::B16);
                    self.emit(Instruction::new(
                        Opcode::Shr,
                        &["u16"],
                        vec![Operand::reg(&second), Operand::reg(&half), Operand::int(8)],
                    ));
                    lanes.push(Val::Reg(prim, half));
                    lanes.push(Val::Reg(prim, second));
                } else {
                    lanes.push(Val::Reg(prim, half));
                }
            }
        }
        Val::Vector(prim, lanes)
    }

    /// The 32-bit words of a packed vector value, each made of two 16-bit lanes (fp8 lanes
    /// first paired into 16 bits: the first's low byte, the second's above it).
    fn pack_words(&mut self, prim: crate::types::Prim, lanes: Vec<Val>) -> Vec<Operand> {
        let mut regs: Vec<String> = lanes.into_iter().map(|l| self.in_reg(l)).collect();
        if prim.is_fp8() {
            regs = regs
                .chunks(2)
                .map(|pair| {
                    let (low, high, both) = (
                        self.reg(RegClass::B16),
                        self.reg(RegClass::B16),
                        self.reg(RegClass::B16),
                    );
                    self.emit(Instruction::new(
                        Opcode::And,
                        &["b16"],
                        vec![
                            Operand::reg(&low),
                            Operand::reg(&pair[0]),
                            Operand::int(0xff),
                        ],
                    ));
                    self.emit(Instruction::new(
                        Opcode::Shl,
                        &["b16"],
                        vec![Operand::reg(&high), Operand::reg(&pair[1]), Operand::int(8)],
                    ));
                    self.emit(Instruction::new(
                        Opcode::Or,
                        &["b16"],
                        vec![Operand::reg(&both), Operand::reg(&low), Operand::reg(&high)],
                    ));
                    both
                })
                .collect();
        }
        regs.chunks(2)
            .map(|pair| {
                let word = self.reg(RegClass::B32);
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &["b32"],
                    vec![
                        Operand::reg(&word),
                        Operand::Vector(pair.iter().map(Operand::reg).collect()),
                    ],
                ));
                Operand::reg(&word)
            })
            .collect()
    }

    /// Writes `value` to a place: a binding, a vector lane, or an element of memory.
    pub(super) fn store_place(&mut self, place: &Expr, value: Val) {
        match strip(place) {
            Expr::Path(p) => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(Binding::Value { val, mutable: true }) => {
                        self.clobber_aliases(&name, &val, p.span());
                        self.assign_to(&val, value)
                    }
                    // rustc reports the assignment to an immutable binding (E0384) on the copy
                    // it checks; there is nothing to lower.
                    Some(Binding::Value { mutable: false, .. }) => {}
                    _ => self.internal("assignment to a non-value"),
                }
            }
            Expr::Index(ix) if matches!(self.ty(&ix.expr), crate::types::Ty::Vector(..)) => {
                let lane = const_usize(&ix.index).unwrap_or(0) as usize;
                let Expr::Path(p) = strip(&ix.expr) else {
                    return self.internal("vector lane place");
                };
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(Binding::Value {
                        val: Val::Vector(_, lanes),
                        mutable: true,
                    }) if lane < lanes.len() => self.assign_to(&lanes[lane], value),
                    Some(Binding::Value { mutable: false, .. }) => {}
                    _ => self.internal("vector lane place"),
                }
            }
            Expr::Index(ix) => {
                let Some(loc) = self.locate(ix) else { return };
                let prim = loc.elem.prim;
                if let (Some(words), Val::Vector(_, lanes)) = (packed_words(loc.elem), &value) {
                    let words_op = self.pack_words(prim, lanes.clone());
                    let vec_mod = format!("v{words}");
                    self.emit(Instruction::new(
                        Opcode::St,
                        &[loc.space, &vec_mod, "b32"],
                        vec![Operand::Address(loc.address), Operand::Vector(words_op)],
                    ));
                    return;
                }
                let src = match value {
                    Val::Vector(_, lanes) => Operand::Vector(
                        lanes
                            .into_iter()
                            .map(|l| Operand::reg(self.in_reg(l)))
                            .collect(),
                    ),
                    scalar => Operand::reg(self.in_reg(scalar)),
                };
                let vec_mod = format!("v{}", loc.elem.lanes);
                let mut mods = vec![loc.space];
                if loc.elem.lanes > 1 {
                    mods.push(&vec_mod);
                }
                mods.push(prim.mem().name());
                self.emit(Instruction::new(
                    Opcode::St,
                    &mods,
                    vec![Operand::Address(loc.address), src],
                ));
            }
            _ => self.internal("assignment place"),
        }
    }
}

/// How many 32-bit words move a vector of 16- or 8-bit lanes that one `ld.v4.b16` /
/// `ld.v4.u8` cannot (PTX vectors have at most 4 lanes): 16 bytes of halves, 8 or 16 of fp8.
fn packed_words(elem: Elem) -> Option<u8> {
    let size = elem.prim.size() as u8;
    (size <= 2 && elem.lanes > 4).then_some(elem.lanes * size / 4)
}

/// PTX identifiers are `[a-zA-Z_][a-zA-Z0-9_$]*`; Rust raw identifiers carry `r#`.
fn sanitize(name: &str) -> String {
    name.trim_start_matches("r#")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}
