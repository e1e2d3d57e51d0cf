//! Tensor-core instructions (PTX ISA §9.7.14, §9.7.15): `ldmatrix` and `stmatrix` (.m8n8, .b16),
//! `mma.sync.aligned` for the shapes Triton and CUTLASS emit, and Hopper's warpgroup MMA
//! (`wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`, `wgmma.mma_async`). Executed by
//! `exec/tensor.rs`.

use super::mem::space_of;
use super::names::{FnCx, ValTy};
use super::ops::*;
use phasegate_ptx::{Instruction, Operand};

/// The element type a modifier names (`f16`, `tf32`, `e4m3`, ...).
fn parse_elem(m: &str) -> Option<Elem> {
    Some(match m {
        "f16" => Elem::F16,
        "bf16" => Elem::Bf16,
        "tf32" => Elem::Tf32,
        "e4m3" => Elem::E4m3,
        "e5m2" => Elem::E5m2,
        "s8" => Elem::S8,
        "u8" => Elem::U8,
        "f32" => Elem::F32,
        "s32" => Elem::S32,
        _ => return None,
    })
}

/// Whether `inst` is one of the instructions this module decodes.
pub(crate) fn claims(name: &str) -> bool {
    matches!(name, "ldmatrix" | "stmatrix" | "mma" | "wgmma")
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let op = match inst.opcode.name() {
        "ldmatrix" | "stmatrix" => matrix_move(fcx, inst)?,
        "mma" => TensorOp::Mma(Box::new(mma(fcx, inst)?)),
        "wgmma" => wgmma(fcx, inst)?,
        other => return Err(format!("`{other}` is not a tensor-core instruction")),
    };
    Ok(Kind::Tensor(Box::new(op)))
}

fn require(inst: &Instruction, mods: &[&str]) -> Result<(), String> {
    for m in mods {
        if !inst.has(m) {
            return Err(format!("`{}` needs `.{m}`", inst.opcode.name()));
        }
    }
    Ok(())
}

/// `m16n8k16` → (16, 8, 16).
fn shape(inst: &Instruction) -> Option<(u32, u32, u32)> {
    inst.modifiers.iter().find_map(|m| {
        let rest = m.strip_prefix('m')?;
        let (mm, rest) = rest.split_once('n')?;
        let (nn, kk) = rest.split_once('k')?;
        Some((mm.parse().ok()?, nn.parse().ok()?, kk.parse().ok()?))
    })
}

/// The element types among the modifiers, in order.
fn elems(inst: &Instruction) -> Vec<Elem> {
    inst.modifiers
        .iter()
        .filter_map(|m| parse_elem(m))
        .collect()
}

fn dst_list(fcx: &mut FnCx, op: &Operand) -> Result<Vec<u32>, String> {
    match op {
        Operand::Vector(items) => items.iter().map(|i| fcx.dst(i)).collect(),
        other => Ok(vec![fcx.dst(other)?]),
    }
}

fn src_list(fcx: &mut FnCx, op: &Operand, t: ValTy) -> Result<Vec<Src>, String> {
    match op {
        Operand::Vector(items) => items.iter().map(|i| fcx.src(i, t)).collect(),
        other => Ok(vec![fcx.src(other, t)?]),
    }
}

fn count(want: usize, got: usize, what: &str) -> Result<(), String> {
    if want == got {
        Ok(())
    } else {
        Err(format!("{what} needs {want} registers, found {got}"))
    }
}

/// A shared-memory operand: `.shared{::cta}` or generic (a shared variable's generic address).
fn shared_address(
    fcx: &mut FnCx,
    inst: &Instruction,
    op: &Operand,
) -> Result<(Addr, Space), String> {
    let (mut addr, sym) = fcx.address(op)?;
    match (space_of(inst), sym) {
        (Some(Space::Shared), None | Some(Space::Shared)) => Ok((addr, Space::Shared)),
        (None, None) => Ok((addr, Space::Generic)),
        (None, Some(Space::Shared)) => {
            if let Src::Imm(base) = &mut addr.base {
                *base += crate::memory::SHARED_GENERIC;
            }
            Ok((addr, Space::Generic))
        }
        _ => Err("the operand must be in shared memory (.shared or .shared::cta)".into()),
    }
}

fn matrix_move(fcx: &mut FnCx, inst: &Instruction) -> Result<TensorOp, String> {
    let name = inst.opcode.name();
    require(inst, &["sync", "aligned"])?;
    if !inst.has("m8n8") || !inst.has("b16") {
        return Err(format!(
            "only `{name}` of .m8n8 .b16 matrices is supported (not .m16n16, .m8n16, .m16n8, .b8)"
        ));
    }
    let num = if inst.has("x1") {
        1
    } else if inst.has("x2") {
        2
    } else if inst.has("x4") {
        4
    } else {
        return Err(format!("`{name}` needs .x1, .x2 or .x4"));
    };
    let trans = inst.has("trans");
    let (regs, mem) = match (name, inst.operands.as_slice()) {
        ("ldmatrix", [r, p]) => (r, p),
        ("stmatrix", [p, r]) => (r, p),
        _ => return Err(format!("`{name}` takes a register vector and an address")),
    };
    let (addr, space) = shared_address(fcx, inst, mem)?;
    if name == "ldmatrix" {
        let ds = dst_list(fcx, regs)?;
        count(num, ds.len(), name)?;
        Ok(TensorOp::LdMatrix {
            ds,
            addr,
            space,
            trans,
        })
    } else {
        let vals = src_list(fcx, regs, ValTy::Int(32))?;
        count(num, vals.len(), name)?;
        Ok(TensorOp::StMatrix {
            vals,
            addr,
            space,
            trans,
        })
    }
}

fn mma(fcx: &mut FnCx, inst: &Instruction) -> Result<Mma, String> {
    require(inst, &["sync", "aligned", "row", "col"])?;
    let unsupported = || format!("`{}` is not a supported mma form", inst.full_name());
    let (m, n, k) = shape(inst).ok_or_else(unsupported)?;
    let [d_ty, a_ty, b_ty, c_ty] = elems(inst)[..] else {
        return Err(unsupported());
    };
    if inst
        .modifiers
        .iter()
        .any(|m| m.starts_with("kind") || m.starts_with("block_scale") || m == "xor" || m == "and")
    {
        return Err(unsupported());
    }
    use Elem::*;
    let float_acc = matches!(
        (c_ty, d_ty),
        (F32, F32) | (F16, F16) | (F16, F32) | (F32, F16)
    );
    let ok = (m, n) == (16, 8)
        && match (k, a_ty, b_ty) {
            (16 | 8, F16, F16) => float_acc,
            (16 | 8, Bf16, Bf16) => (c_ty, d_ty) == (F32, F32),
            (8 | 4, Tf32, Tf32) => (c_ty, d_ty) == (F32, F32),
            (32, E4m3 | E5m2, E4m3 | E5m2) => c_ty == d_ty && matches!(d_ty, F32 | F16),
            (16 | 32, S8 | U8, S8 | U8) => (c_ty, d_ty) == (S32, S32),
            _ => false,
        };
    if !ok {
        return Err(unsupported());
    }
    let [d, a, b, c] = inst.operands.as_slice() else {
        return Err("mma takes four operands: d, a, b, c".into());
    };
    let (a_regs, b_regs) = frag_regs(k, a_ty);
    let acc_regs = |t: Elem| if t == F16 { 2 } else { 4 };
    let d = dst_list(fcx, d)?;
    count(acc_regs(d_ty), d.len(), "the D fragment")?;
    let a = src_list(fcx, a, ValTy::Int(32))?;
    count(a_regs, a.len(), "the A fragment")?;
    let b = src_list(fcx, b, ValTy::Int(32))?;
    count(b_regs, b.len(), "the B fragment")?;
    let ct = if c_ty == F32 {
        ValTy::F32
    } else {
        ValTy::Int(32)
    };
    let c = src_list(fcx, c, ct)?;
    count(acc_regs(c_ty), c.len(), "the C fragment")?;
    Ok(Mma {
        k,
        a_ty,
        b_ty,
        c_ty,
        d_ty,
        satfinite: inst.has("satfinite"),
        d,
        a,
        b,
        c,
    })
}

fn imm(op: &Operand, what: &str, allowed: &[i64]) -> Result<i64, String> {
    match op.as_int() {
        Some(v) if allowed.contains(&v) => Ok(v),
        _ => Err(format!(
            "{what} must be an immediate, one of {allowed:?}, found `{op}`"
        )),
    }
}

fn wgmma(fcx: &mut FnCx, inst: &Instruction) -> Result<TensorOp, String> {
    require(inst, &["sync", "aligned"])?;
    if inst.has("fence") {
        return Ok(TensorOp::WgmmaFence);
    }
    if inst.has("commit_group") {
        return Ok(TensorOp::WgmmaCommit);
    }
    if inst.has("wait_group") {
        let [n] = inst.operands.as_slice() else {
            return Err("wgmma.wait_group takes one operand".into());
        };
        let n = n
            .as_int()
            .filter(|v| (0..=7).contains(v))
            .ok_or("the operand of wgmma.wait_group must be an integer constant 0..7")?;
        return Ok(TensorOp::WgmmaWait(n as u32));
    }
    if !inst.has("mma_async") {
        return Err(format!("`{}` is not supported", inst.full_name()));
    }
    if inst.has("sp") {
        return Err("wgmma.mma_async.sp (sparse A) is not supported".into());
    }
    let unsupported = || format!("`{}` is not a supported wgmma form", inst.full_name());
    let (m, n, k) = shape(inst).ok_or_else(unsupported)?;
    let [d_ty, a_ty, b_ty] = elems(inst)[..] else {
        return Err(unsupported());
    };
    use Elem::*;
    let n_ok = n % 8 == 0 && (8..=256).contains(&n);
    let ok = m == 64
        && n_ok
        && match (k, a_ty, b_ty) {
            (16, F16, F16) => matches!(d_ty, F32 | F16),
            (16, Bf16, Bf16) | (8, Tf32, Tf32) => d_ty == F32,
            (32, E4m3 | E5m2, E4m3 | E5m2) => matches!(d_ty, F32 | F16),
            (32, S8 | U8, S8 | U8) => d_ty == S32 && (n <= 32 || n % 16 == 0) && n <= 224,
            _ => false,
        };
    if !ok {
        return Err(unsupported());
    }
    let ops = inst.operands.as_slice();
    let (d, a, b, rest) = match ops {
        [d, a, b, rest @ ..] => (d, a, b, rest),
        _ => return Err("wgmma.mma_async needs d, a, b-desc and scale-d".into()),
    };
    let reg_a = matches!(a, Operand::Vector(_));
    let transposable = matches!(a_ty, F16 | Bf16);
    let want = match (a_ty.is_int(), transposable, reg_a) {
        (true, _, _) => 1,
        (false, true, false) => 5,
        (false, true, true) => 4,
        (false, false, _) => 3,
    };
    if rest.len() != want {
        return Err(format!(
            "`{}` takes {} operands, found {}",
            inst.full_name(),
            3 + want,
            ops.len()
        ));
    }
    let d = dst_list(fcx, d)?;
    let d_regs = if d_ty == F16 { n / 4 } else { n / 2 } as usize;
    count(d_regs, d.len(), "the D fragment")?;
    let a = if reg_a {
        let regs = src_list(fcx, a, ValTy::Int(32))?;
        count(frag_regs(k, a_ty).0, regs.len(), "the A fragment")?;
        WgmmaA::Regs(regs)
    } else {
        WgmmaA::Desc(fcx.src(a, ValTy::Int(64))?)
    };
    let b_desc = fcx.src(b, ValTy::Int(64))?;
    let scale_d = fcx.pred(&rest[0])?;
    let (mut neg_a, mut neg_b, mut trans_a, mut trans_b) = (false, false, false, false);
    if !a_ty.is_int() {
        neg_a = imm(&rest[1], "imm-scale-a", &[-1, 1])? == -1;
        neg_b = imm(&rest[2], "imm-scale-b", &[-1, 1])? == -1;
        if transposable {
            let tr = &rest[3..];
            if reg_a {
                trans_b = imm(&tr[0], "imm-trans-b", &[0, 1])? == 1;
            } else {
                trans_a = imm(&tr[0], "imm-trans-a", &[0, 1])? == 1;
                trans_b = imm(&tr[1], "imm-trans-b", &[0, 1])? == 1;
            }
        }
    }
    Ok(TensorOp::Wgmma(Box::new(Wgmma {
        n,
        k,
        a_ty,
        b_ty,
        d_ty,
        satfinite: inst.has("satfinite"),
        d,
        a,
        b_desc,
        scale_d,
        neg_a,
        neg_b,
        trans_a,
        trans_b,
    })))
}
