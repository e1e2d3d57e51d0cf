//! The storage floats (`f16`, `bf16`, `f8e4m3`, `f8e5m2`): `as` to and from them, and the
//! exact widening to f32 that conversions from them and comparisons of them go through.

use super::expr::{sign_extend, zero_extend};
use super::{Lowerer, Val};
use crate::types::{Prim, RegClass};
use phasegate_ptx::{Imm, Instruction, Opcode, Operand};

impl Lowerer<'_> {
    /// `as` to or from a storage float. From one, the value widens to f32 exactly and converts
    /// on from there (so `bf16 as i32` truncates and saturates as `f32 as i32` does). To one,
    /// one `cvt.rn` rounds to nearest even: `.f16`/`.bf16` from f32, f64 or an integer (bf16
    /// from f64 or an integer needs sm_90, which the feature table enforces), fp8 from f32
    /// with `.satfinite` (out of range and infinities become the largest finite value of the
    /// sign; NaN stays NaN), the only fp8 conversion PTX has (sm_89).
    pub(super) fn narrow_cast(&mut self, v: Val, from: Prim, to: Prim) -> Val {
        if let Some(folded) = fold_narrow(&v, to) {
            return folded;
        }
        if from.is_narrow() {
            let wide = self.widen(v, from);
            return self.cast(wide, to);
        }
        let src = self.in_reg(v);
        let d = self.reg(RegClass::B16);
        let mods: Vec<&str> = if to.is_fp8() {
            let pair = if to == Prim::E4m3 { "e4m3x2" } else { "e5m2x2" };
            vec!["rn", "satfinite", pair, "f32"]
        } else {
            vec!["rn", to.arith().name(), from.arith().name()]
        };
        // The packed fp8 form converts two values (the first into the upper byte): both are
        // this one, and the value is the low byte, as a load or store of fp8 sees it.
        let mut operands = vec![Operand::reg(&d), Operand::reg(&src)];
        if to.is_fp8() {
            operands.push(Operand::reg(&src));
        }
        self.emit(Instruction {
            guard: None,
            opcode: Opcode::Cvt,
            modifiers: mods.iter().map(|m| m.to_string()).collect(),
            operands,
        });
        Val::Reg(to, d)
    }

    /// A storage float as the f32 of the same value (exact for all four types).
    pub(super) fn widen(&mut self, v: Val, from: Prim) -> Val {
        let src = self.in_reg(v);
        let f = self.reg(RegClass::F32);
        let half = if from.is_fp8() {
            // `cvt.rn.f16x2.e4m3x2` widens both bytes; the low half is this value's.
            let pair = self.reg(RegClass::B32);
            let fmt = if from == Prim::E4m3 {
                "e4m3x2"
            } else {
                "e5m2x2"
            };
            self.emit(Instruction::new(
                Opcode::Cvt,
                &["rn", "f16x2", fmt],
                vec![Operand::reg(&pair), Operand::reg(&src)],
            ));
            let (lo, hi) = (self.reg(RegClass::B16), self.reg(RegClass::B16));
            self.emit(Instruction::new(
                Opcode::Mov,
                &["b32"],
                vec![
                    Operand::Vector(vec![Operand::reg(&lo), Operand::reg(&hi)]),
                    Operand::reg(&pair),
                ],
            ));
            (lo, "f16")
        } else {
            (src, from.arith().name())
        };
        self.emit(Instruction::new(
            Opcode::Cvt,
            &["f32", half.1],
            vec![Operand::reg(&f), Operand::reg(&half.0)],
        ));
        Val::Reg(Prim::F32, f)
    }
}

/// A constant converted to `f16`/`bf16`, when it is exact in f32: `half`'s conversion from
/// f32 rounds once to nearest even, as `cvt.rn` does (the tests hold it to the simulator's
/// `cvt` on every corner). Other constants, and every conversion to fp8, are left to `cvt`:
/// `half::f16::from_f64` can round twice (through f32), and PTX rounds once.
fn fold_narrow(v: &Val, to: Prim) -> Option<Val> {
    let Val::Imm(from, imm) = v else {
        return None;
    };
    let value = match (*from, *imm) {
        (Prim::F32, Imm::F32(bits)) => f32::from_bits(bits),
        (Prim::F64, Imm::F64(bits)) => {
            let x = f64::from_bits(bits);
            let narrow = x as f32;
            (narrow as f64 == x || x.is_nan()).then_some(narrow)?
        }
        (p, Imm::Int(x)) if p.is_int() => {
            let value = if p.is_signed() {
                sign_extend(p, x)
            } else {
                zero_extend(p, x)
            };
            // Integers of at most 24 significant bits are exact in f32.
            (value.unsigned_abs() <= 1 << 24).then_some(value as f32)?
        }
        _ => return None,
    };
    let bits = match to {
        // `cvt.rn` gives the canonical NaN; `half` would keep the payload.
        Prim::F16 | Prim::Bf16 if value.is_nan() => 0x7fff,
        Prim::F16 => half::f16::from_f32(value).to_bits(),
        Prim::Bf16 => half::bf16::from_f32(value).to_bits(),
        _ => return None,
    };
    Some(Val::Imm(to, Imm::Int(bits as i64)))
}
