//! Name resolution while decoding a function: `{ }` scopes of registers and variables,
//! special registers, immediates in the bit pattern of an instruction's type.

use super::context::{MAX_VAR_BYTES, ModCx, Sym, place_shared, var_bytes};
use super::ops::*;
use crate::memory;
use phasegate_ptx::{
    Address, AddressBase, Imm, Initializer, Operand, ScalarType, SpecialReg, StateSpace, VarDecl,
};
use rustc_hash::FxHashMap;

/// The type an operand is read as, for immediates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ValTy {
    Int(u8),
    F32,
    F64,
    Pred,
}

impl ValTy {
    pub(crate) fn of_scalar(t: ScalarType) -> ValTy {
        match t {
            ScalarType::F32 => ValTy::F32,
            ScalarType::F64 => ValTy::F64,
            ScalarType::Pred => ValTy::Pred,
            other => ValTy::Int((other.size() * 8).min(64) as u8),
        }
    }
    pub(crate) fn of_int(t: IntTy) -> ValTy {
        if t.bits == 1 {
            ValTy::Pred
        } else {
            ValTy::Int(t.bits)
        }
    }
    pub(crate) fn of_float(t: FTy) -> ValTy {
        match t {
            FTy::F32 => ValTy::F32,
            FTy::F64 => ValTy::F64,
        }
    }
}

/// An immediate as the bit pattern of a value of type `ty`.
pub(crate) fn imm_bits(imm: Imm, ty: ValTy) -> u64 {
    match (ty, imm) {
        (ValTy::Pred, Imm::Int(v)) => (v != 0) as u64,
        (ValTy::Pred, _) => 1,
        (ValTy::Int(bits), Imm::Int(v)) => mask(v as u64, bits),
        (ValTy::Int(bits), Imm::F32(b)) => mask(b as u64, bits),
        (ValTy::Int(bits), Imm::F64(b)) => mask(b, bits),
        (ValTy::F32, Imm::Int(v)) => (v as f32).to_bits() as u64,
        (ValTy::F32, Imm::F32(b)) => b as u64,
        (ValTy::F32, Imm::F64(b)) => (f64::from_bits(b) as f32).to_bits() as u64,
        (ValTy::F64, Imm::Int(v)) => (v as f64).to_bits(),
        (ValTy::F64, Imm::F32(b)) => (f32::from_bits(b) as f64).to_bits(),
        (ValTy::F64, Imm::F64(b)) => b,
    }
}

fn mask(v: u64, bits: u8) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Decoding state of one function.
pub(crate) struct FnCx<'a, 'm> {
    pub cx: &'a mut ModCx<'m>,
    /// (`FxHashMap`s: the decoding looks every operand's name up, and SipHash on the names was
    /// about 1 % of a CUTLASS GEMM's launch; nothing iterates over them.)
    scopes: Vec<FxHashMap<String, Sym>>,
    /// The register ranges (`.reg .b32 %r<100>;`) of each scope, in step with `scopes`:
    /// (prefix, count, bits). A name of a range gets its slot when first used, so a range of a
    /// billion registers costs what its used names cost.
    ranges: Vec<Vec<(String, u32, u8)>>,
    sreg_slots: FxHashMap<SpecialReg, u32>,
    pub carry: Option<u32>,
    /// Whether the function is the `.entry` (a register address in `.param` space is then a
    /// kernel parameter's, PTX ISA §5.1.6.1).
    pub entry: bool,
    /// The register slots resolved since the last op was noted ([`FnCx::note_op_slots`]).
    used: Vec<u32>,
}

impl<'a, 'm> FnCx<'a, 'm> {
    pub(crate) fn new(cx: &'a mut ModCx<'m>, func: u32) -> Self {
        let mut params = FxHashMap::default();
        let layout = &cx.frames[func as usize];
        for (name, sym) in &layout.names {
            params.insert(name.clone(), sym.clone());
        }
        let sreg_slots = cx.prog.sregs.iter().copied().collect();
        let entry = cx.reachable[func as usize].kind == phasegate_ptx::FunctionKind::Entry;
        let carry = cx
            .prog
            .reg_names
            .iter()
            .position(|n| n == "(carry)")
            .map(|i| i as u32);
        FnCx {
            cx,
            scopes: vec![params],
            ranges: vec![Vec::new()],
            sreg_slots,
            carry,
            entry,
            used: Vec::new(),
        }
    }

    /// Records the register slots resolved while decoding the op just added as that op's
    /// ([`super::Program::op_slots`]).
    pub(crate) fn note_op_slots(&mut self) {
        self.used.sort_unstable();
        self.used.dedup();
        let prog = &mut self.cx.prog;
        prog.op_regs.extend_from_slice(&self.used);
        prog.op_regs_at.push(prog.op_regs.len() as u32);
        self.used.clear();
    }

    pub(crate) fn open(&mut self) {
        self.scopes.push(FxHashMap::default());
        self.ranges.push(Vec::new());
    }

    pub(crate) fn close(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
            self.ranges.pop();
        }
    }

    /// Gives `name` its slot if the innermost scope that knows it knows it from a range.
    fn materialize(&mut self, name: &str) {
        for depth in (0..self.scopes.len()).rev() {
            if self.scopes[depth].contains_key(name) {
                return;
            }
            let found = self.ranges[depth].iter().rev().find(|(prefix, count, _)| {
                name.strip_prefix(prefix.as_str()).is_some_and(|digits| {
                    let canonical = !digits.is_empty()
                        && digits.bytes().all(|b| b.is_ascii_digit())
                        && (digits == "0" || !digits.starts_with('0'));
                    canonical && digits.parse::<u32>().is_ok_and(|i| i < *count)
                })
            });
            if let Some(&(_, _, bits)) = found {
                let slot = self.new_reg(name.to_string(), bits);
                self.scopes[depth].insert(name.to_string(), Sym::Reg(slot));
                return;
            }
        }
    }

    fn new_reg(&mut self, name: String, bits: u8) -> u32 {
        let slot = self.cx.prog.reg_bits.len() as u32;
        self.cx.prog.reg_bits.push(bits);
        self.cx.prog.reg_names.push(name);
        slot
    }

    /// Records a body declaration.
    pub(crate) fn declare(&mut self, decl: &VarDecl) {
        let sym = match decl.space {
            StateSpace::Reg => {
                let bits = if decl.ty == ScalarType::Pred {
                    1
                } else {
                    (decl.ty.size() * 8).min(64) as u8
                };
                if decl.vector.is_some() || decl.ty == ScalarType::B128 || !decl.array.is_empty() {
                    Sym::Opaque(format!("vector, array or 128-bit register `{}`", decl.name))
                } else if let Some(n) = decl.range {
                    self.ranges
                        .last_mut()
                        .expect("scope")
                        .push((decl.name.clone(), n, bits));
                    return;
                } else {
                    Sym::Reg(self.new_reg(decl.name.clone(), bits))
                }
            }
            StateSpace::Shared => place_shared(&mut self.cx.prog, decl),
            StateSpace::Local => {
                let align = decl.align.unwrap_or(decl.ty.size()).max(1) as u64;
                let offset = (self.cx.prog.local_bytes as u64).div_ceil(align) * align;
                let size = var_bytes(decl).unwrap_or(u64::MAX).min(u32::MAX as u64);
                self.cx.prog.local_bytes = (offset + size).min(u32::MAX as u64) as u32;
                Sym::Var {
                    space: Space::Local,
                    addr: offset,
                    size,
                }
            }
            StateSpace::Param => {
                let align = decl.align.unwrap_or(decl.ty.size()).max(1);
                let offset = self
                    .cx
                    .prog
                    .frame_bytes
                    .div_ceil(align)
                    .saturating_mul(align);
                let size = var_bytes(decl).unwrap_or(u64::MAX).min(u32::MAX as u64 / 2);
                self.cx.prog.frame_bytes = offset.saturating_add(size as u32);
                Sym::Var {
                    space: Space::FrameParam,
                    addr: offset as u64,
                    size,
                }
            }
            StateSpace::Global | StateSpace::Const => match init_bytes(decl) {
                Some(bytes) => {
                    let size = bytes.len() as u64;
                    let addr = self.cx.prog.global.alloc(
                        bytes,
                        decl.space == StateSpace::Const,
                        format!("variable `{}`", decl.name),
                    );
                    Sym::Var {
                        space: Space::Global,
                        addr,
                        size,
                    }
                }
                None => Sym::Opaque(format!("the initializer of `{}`", decl.name)),
            },
            StateSpace::Sreg | StateSpace::Tex => {
                Sym::Opaque(format!("`{}` in {}", decl.name, decl.space.as_str()))
            }
        };
        self.scopes
            .last_mut()
            .expect("scope")
            .insert(decl.name.clone(), sym);
    }

    /// [`lookup`](Self::lookup), after giving a range's name its slot.
    fn lookup_materialized(&mut self, name: &str) -> Option<&Sym> {
        self.materialize(name);
        self.lookup(name)
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<&Sym> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .or_else(|| self.cx.globals.get(name))
    }

    /// The slot of a special register, created on first use.
    fn sreg(&mut self, s: SpecialReg) -> u32 {
        if let Some(&slot) = self.sreg_slots.get(&s) {
            return slot;
        }
        let slot = self.new_reg(format!("{s:?}"), s.bits());
        self.cx.prog.sregs.push((s, slot));
        self.sreg_slots.insert(s, slot);
        slot
    }

    /// The hidden carry flag of `add.cc` and friends.
    pub(crate) fn carry(&mut self) -> u32 {
        if let Some(c) = self.carry {
            self.used.push(c);
            return c;
        }
        let slot = self.new_reg("(carry)".into(), 1);
        self.carry = Some(slot);
        self.used.push(slot);
        slot
    }

    /// A register name (ordinary or special) to its slot.
    pub(crate) fn reg(&mut self, name: &str) -> Result<u32, String> {
        let slot = self.reg_slot(name);
        if let Ok(r) = slot {
            self.used.push(r);
        }
        slot
    }

    fn reg_slot(&mut self, name: &str) -> Result<u32, String> {
        match self.lookup_materialized(name) {
            Some(Sym::Reg(r)) => return Ok(*r),
            Some(Sym::Opaque(why)) => return Err(format!("{why} is not supported")),
            Some(_) => return Err(format!("`{name}` is not a register")),
            None => {}
        }
        if is_timer_name(name) {
            return Err(format!("`{name}` can only be read by `mov`"));
        }
        match SpecialReg::from_name(name) {
            Some(s) => Ok(self.sreg(s)),
            None => Err(format!("unknown register `{name}`")),
        }
    }

    pub(crate) fn reg_bits(&self, slot: u32) -> u8 {
        self.cx.prog.reg_bits[slot as usize]
    }

    /// A destination register; `_` is the sink.
    pub(crate) fn dst(&mut self, op: &Operand) -> Result<u32, String> {
        match op {
            Operand::Reg(name) => self.reg(name),
            Operand::Sink => Ok(SINK),
            Operand::Symbol(name) => self.reg(name),
            other => Err(format!("`{other}` is not a destination register")),
        }
    }

    /// A source operand read as type `ty`.
    pub(crate) fn src(&mut self, op: &Operand, ty: ValTy) -> Result<Src, String> {
        match op {
            Operand::Reg(name) => Ok(Src::Reg(self.reg(name)?)),
            Operand::Imm(imm) => Ok(Src::Imm(imm_bits(*imm, ty))),
            Operand::Symbol(name) => self.symbol_value(name, 0),
            Operand::SymbolOffset(name, off) => self.symbol_value(name, *off),
            other => Err(format!("`{other}` is not a source operand here")),
        }
    }

    /// The address of a variable as `mov` sees it: its address in its own state space.
    fn symbol_value(&mut self, name: &str, offset: i64) -> Result<Src, String> {
        self.materialize(name);
        if let Some(&Sym::Reg(r)) = self.lookup(name) {
            self.used.push(r);
        }
        match self.lookup(name) {
            Some(Sym::Reg(r)) if offset == 0 => Ok(Src::Reg(*r)),
            // A kernel parameter's address is its offset in the parameter block (its `.param`
            // address; `cvta.param` makes it generic).
            Some(Sym::Var { addr, .. }) => Ok(Src::Imm(addr.wrapping_add(offset as u64))),
            Some(Sym::DynamicShared) => Ok(Src::Imm(
                (self.cx.prog.dynamic_shared_offset() as i64 + offset) as u64,
            )),
            Some(Sym::Opaque(why)) => Err(format!("{why} is not supported")),
            _ if self.cx.func_index.contains_key(name) => {
                Err(format!("function addresses (`{name}`) are not supported"))
            }
            _ => Err(format!("unknown symbol `{name}`")),
        }
    }

    /// A memory operand and the state space its symbol (if any) lives in.
    pub(crate) fn address(&mut self, op: &Operand) -> Result<(Addr, Option<Space>), String> {
        let Operand::Address(Address { base, offset }) = op else {
            return Err(format!("`{op}` is not an address"));
        };
        match base {
            AddressBase::Reg(name) => Ok((
                Addr {
                    base: Src::Reg(self.reg(name)?),
                    offset: *offset,
                },
                None,
            )),
            AddressBase::Absolute => Ok((
                Addr {
                    base: Src::Imm(0),
                    offset: *offset,
                },
                None,
            )),
            AddressBase::Symbol(name) => {
                if let Some(&Sym::Reg(r)) = self.lookup_materialized(name) {
                    self.used.push(r);
                }
                self.symbol_address(name, *offset)
            }
        }
    }

    /// The address `name + offset` of a symbol operand.
    fn symbol_address(&mut self, name: &str, offset: i64) -> Result<(Addr, Option<Space>), String> {
        let (base, space) = match self.lookup_materialized(name) {
            Some(Sym::Reg(r)) => (Src::Reg(*r), None),
            Some(Sym::Var { space, addr, .. }) => (Src::Imm(*addr), Some(*space)),
            Some(Sym::DynamicShared) => (
                Src::Imm(self.cx.prog.dynamic_shared_offset()),
                Some(Space::Shared),
            ),
            Some(Sym::Opaque(why)) => return Err(format!("{why} is not supported")),
            None => return Err(format!("unknown symbol `{name}`")),
        };
        Ok((Addr { base, offset }, space))
    }

    /// A predicate source, possibly negated (`!%p`).
    pub(crate) fn pred(&mut self, op: &Operand) -> Result<(Src, bool), String> {
        match op {
            Operand::Not(inner) => Ok((self.src(inner, ValTy::Pred)?, true)),
            other => Ok((self.src(other, ValTy::Pred)?, false)),
        }
    }
}

/// Whether a register name reads the clock (`%clock`, `%clock64`, `%globaltimer` and its
/// halves): those are decoded as reads of the simulated time, never given a slot.
pub(crate) fn is_timer_name(name: &str) -> bool {
    SpecialReg::from_name(name).is_some_and(SpecialReg::is_timer)
}

/// Bytes of a variable's initializer, when it has one the simulator can evaluate.
pub(crate) fn init_bytes(decl: &VarDecl) -> Option<Vec<u8>> {
    let size = var_bytes(decl).filter(|&s| s <= MAX_VAR_BYTES)? as usize;
    let mut bytes = vec![0u8; size];
    let Some(init) = &decl.init else {
        return Some(bytes);
    };
    let mut values = Vec::new();
    fn flatten<'a>(i: &'a Initializer, out: &mut Vec<&'a Operand>) {
        match i {
            Initializer::Scalar(op) => out.push(op),
            Initializer::List(items) => items.iter().for_each(|x| flatten(x, out)),
        }
    }
    flatten(init, &mut values);
    let elem = (decl.ty.size() as usize).max(1);
    for (i, v) in values.into_iter().enumerate() {
        let Operand::Imm(imm) = v else { return None };
        let bits = imm_bits(*imm, ValTy::of_scalar(decl.ty));
        let at = i * elem;
        if at + elem > size {
            return None;
        }
        memory::store_le(&mut bytes[at..at + elem], bits);
    }
    Some(bytes)
}
