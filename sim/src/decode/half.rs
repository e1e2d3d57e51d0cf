//! Half-precision and fp8 conversions and packed arithmetic (PTX ISA §9.7.9.21 `cvt`, §9.7.4
//! half precision instructions): the forms the kernels around tensor-core MMAs use. Executed by
//! `exec/half.rs`, with IEEE round-to-nearest-even results.

use super::names::{FnCx, ValTy};
use super::ops::*;
use phasegate_ptx::{Instruction, Opcode};

fn fmt_of(m: &str) -> Option<(Fmt, u8)> {
    Some(match m {
        "f16" => (Fmt::F16, 1),
        "f16x2" => (Fmt::F16, 2),
        "bf16" => (Fmt::Bf16, 1),
        "bf16x2" => (Fmt::Bf16, 2),
        "e4m3x2" => (Fmt::E4m3, 2),
        "e5m2x2" => (Fmt::E5m2, 2),
        _ => return None,
    })
}

/// The half types among the modifiers, in order.
fn half_types(inst: &Instruction) -> Vec<(Fmt, u8)> {
    inst.modifiers.iter().filter_map(|m| fmt_of(m)).collect()
}

/// Whether this module decodes `inst` (the others go to `alu`).
pub(crate) fn claims(inst: &Instruction) -> bool {
    let halves = half_types(inst);
    match &inst.opcode {
        Opcode::Cvt => {
            halves.iter().any(|(_, lanes)| *lanes == 2)
                || ((inst.has("relu") || inst.has("satfinite")) && !halves.is_empty())
        }
        Opcode::Add
        | Opcode::Sub
        | Opcode::Mul
        | Opcode::Fma
        | Opcode::Neg
        | Opcode::Abs
        | Opcode::Min
        | Opcode::Max => !halves.is_empty(),
        _ => false,
    }
}

fn rounding_ok(inst: &Instruction) -> Result<(), String> {
    for m in ["rz", "rm", "rp", "rs", "rna"] {
        if inst.has(m) {
            return Err(format!(
                "`{}`: only round-to-nearest-even (.rn) is supported",
                inst.full_name()
            ));
        }
    }
    Ok(())
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    rounding_ok(inst)?;
    let halves = half_types(inst);
    let relu = inst.has("relu");
    let int = ValTy::Int(32);
    if inst.opcode == Opcode::Cvt {
        let ops = inst.operands.as_slice();
        let from_f32 = inst.modifiers.last().is_some_and(|m| m == "f32");
        let op = match (halves.as_slice(), ops, from_f32) {
            ([(to, 1)], [d, a], true) if matches!(to, Fmt::F16 | Fmt::Bf16) => HalfOp::FromF32 {
                d: fcx.dst(d)?,
                a: fcx.src(a, ValTy::F32)?,
                b: None,
                to: *to,
                relu,
                satfinite: inst.has("satfinite"),
            },
            ([(to, 2)], [d, a, b], true) => HalfOp::FromF32 {
                d: fcx.dst(d)?,
                a: fcx.src(a, ValTy::F32)?,
                b: Some(fcx.src(b, ValTy::F32)?),
                to: *to,
                relu,
                satfinite: inst.has("satfinite"),
            },
            ([(to @ (Fmt::E4m3 | Fmt::E5m2), 2), (Fmt::F16, 2)], [d, a], false) => {
                HalfOp::F8FromF16x2 {
                    d: fcx.dst(d)?,
                    a: fcx.src(a, int)?,
                    to: *to,
                    relu,
                }
            }
            ([(Fmt::F16, 2), (from @ (Fmt::E4m3 | Fmt::E5m2), 2)], [d, a], false) => {
                HalfOp::F16x2FromF8 {
                    d: fcx.dst(d)?,
                    a: fcx.src(a, ValTy::Int(16))?,
                    from: *from,
                    relu,
                }
            }
            _ => {
                return Err(format!(
                    "`{}` is not a supported conversion",
                    inst.full_name()
                ));
            }
        };
        if matches!(
            op,
            HalfOp::FromF32 {
                to: Fmt::E4m3 | Fmt::E5m2,
                satfinite: false,
                ..
            } | HalfOp::F8FromF16x2 { .. }
        ) && !inst.has("satfinite")
        {
            return Err("conversions to fp8 need .satfinite".into());
        }
        return Ok(Kind::Half(op));
    }
    let [(fmt, lanes)] = halves[..] else {
        return Err(format!(
            "`{}`: one half-precision type expected",
            inst.full_name()
        ));
    };
    if matches!(fmt, Fmt::E4m3 | Fmt::E5m2) {
        return Err(format!("`{}` is not supported", inst.full_name()));
    }
    if inst.has("NaN") || inst.has("xorsign") || inst.has("approx") {
        return Err(format!("`{}` is not supported", inst.full_name()));
    }
    let op = match &inst.opcode {
        Opcode::Add => HArith::Add,
        Opcode::Sub => HArith::Sub,
        Opcode::Mul => HArith::Mul,
        Opcode::Fma => HArith::Fma,
        Opcode::Neg => HArith::Neg,
        Opcode::Abs => HArith::Abs,
        Opcode::Min => HArith::Min,
        _ => HArith::Max,
    };
    let arity = match op {
        HArith::Neg | HArith::Abs => 2,
        HArith::Fma => 4,
        _ => 3,
    };
    if inst.operands.len() != arity {
        return Err(format!("`{}` takes {arity} operands", inst.full_name()));
    }
    let t = if lanes == 2 { int } else { ValTy::Int(16) };
    let ops = &inst.operands;
    let d = fcx.dst(&ops[0])?;
    let a = fcx.src(&ops[1], t)?;
    let b = if arity > 2 { fcx.src(&ops[2], t)? } else { a };
    let c = if arity > 3 { fcx.src(&ops[3], t)? } else { a };
    Ok(Kind::Half(HalfOp::Arith {
        op,
        fmt,
        lanes,
        d,
        a,
        b,
        c,
        ftz: inst.has("ftz"),
        sat: inst.has("sat"),
        relu,
    }))
}
