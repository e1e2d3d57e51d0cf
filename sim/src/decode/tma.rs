//! Tensor-map instructions: tensor copies (`cp.async.bulk.tensor`, §9.7.9.25.5.2),
//! reductions (`cp.reduce.async.bulk.tensor`, §9.7.9.25.5.3), `tensormap.replace` (§9.7.9.26),
//! `tensormap.cp_fenceproxy` (§9.7.13.16), `fence.proxy.tensormap::generic` (§9.7.13.4) and
//! `setmaxnreg` (§9.7.19.5); `griddepcontrol` (§9.7.13.13) is a no-op within one launch.

use super::mem::{atom_op, space_of};
use super::names::{FnCx, ValTy};
use super::ops::*;
use crate::tensormap::Field;
use phasegate_ptx::{Address, Instruction, Opcode, Operand};

fn tma(op: TmaOp) -> Result<Kind, String> {
    Ok(Kind::Tma(Box::new(op)))
}

/// The rank of `.1d` .. `.5d`.
fn rank(inst: &Instruction) -> Result<u8, String> {
    (1..=5u8)
        .find(|r| inst.has(&format!("{r}d")))
        .ok_or_else(|| "a tensor copy needs .1d .. .5d".to_string())
}

/// The map and coordinates of `[map, {c0, ...}]`.
fn tensor_operand(fcx: &mut FnCx, op: &Operand, rank: u8) -> Result<(Addr, Vec<Src>), String> {
    let Operand::TensorAddress(addr, coords) = op else {
        return Err(format!(
            "`{op}` is not a [tensorMap, {{coordinates}}] operand"
        ));
    };
    if coords.len() != rank as usize {
        return Err(format!(
            "a .{rank}d tensor copy takes {rank} coordinates, not {}",
            coords.len()
        ));
    }
    let coords = coords
        .iter()
        .map(|c| fcx.src(c, ValTy::Int(32)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((map_address(fcx, addr)?, coords))
}

/// A tensor map's address, made generic: a `.param` symbol's generic address, a `.global` or
/// `.const` variable's address, or a register.
fn map_address(fcx: &mut FnCx, a: &Address) -> Result<Addr, String> {
    let (mut addr, sym) = fcx.address(&Operand::Address(a.clone()))?;
    match sym {
        None | Some(Space::Global) | Some(Space::Const) => {}
        Some(Space::KernelParam) => {
            if let Src::Imm(base) = &mut addr.base {
                *base += crate::memory::PARAM_GENERIC;
            }
        }
        Some(other) => return Err(format!("a tensor map in {other:?} space")),
    }
    Ok(addr)
}

fn plain_address(fcx: &mut FnCx, op: &Operand, space: Space) -> Result<Addr, String> {
    let (mut a, sym) = fcx.address(op)?;
    if space == Space::Generic
        && sym == Some(Space::Shared)
        && let Src::Imm(base) = &mut a.base
    {
        *base += crate::memory::SHARED_GENERIC;
    }
    Ok(a)
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    let ops = inst.operands.as_slice();
    match &inst.opcode {
        Opcode::Cp => copy(fcx, inst),
        Opcode::Fence => match ops {
            [] => tma(TmaOp::Fence { addr: None }),
            [a, _size] => tma(TmaOp::Fence {
                addr: Some(plain_address(fcx, a, Space::Generic)?),
            }),
            _ => Err("fence.proxy.tensormap::generic takes no operands or [addr], size".into()),
        },
        Opcode::Other(name) if name == "griddepcontrol" => {
            // `griddepcontrol.wait` waits for the prerequisite grids and
            // `.launch_dependents` lets dependent grids start early: within one launch, which
            // is all the simulator runs, both are no-ops.
            Ok(Kind::Nop)
        }
        Opcode::Other(name) if name == "setmaxnreg" => {
            let [n] = ops else {
                return Err("setmaxnreg takes a register count".into());
            };
            let regs = n
                .as_int()
                .ok_or("the register count of setmaxnreg is an immediate")?;
            tma(TmaOp::SetMaxNReg {
                inc: m("inc"),
                regs: regs.clamp(0, u32::MAX as i64) as u32,
            })
        }
        Opcode::Other(name) if name == "tensormap" && m("cp_fenceproxy") => {
            let [dst, src, size] = ops else {
                return Err("tensormap.cp_fenceproxy takes [dst], [src], 128".into());
            };
            if size.as_int() != Some(128) {
                return Err("tensormap.cp_fenceproxy copies 128 bytes".into());
            }
            tma(TmaOp::CopyFenceProxy {
                dst: plain_address(fcx, dst, Space::Global)?,
                src: plain_address(fcx, src, Space::Shared)?,
            })
        }
        Opcode::Other(name) if name == "tensormap" && m("replace") => replace(fcx, inst),
        _ => Err("not a tensor-map instruction".into()),
    }
}

fn replace(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    if !m("tile") {
        return Err("tensormap.replace has the .tile mode only".into());
    }
    let space = match space_of(inst) {
        None => Space::Generic,
        Some(Space::Global) => Space::Global,
        Some(Space::Shared) => Space::Shared,
        Some(other) => return Err(format!("tensormap.replace in {other:?} space")),
    };
    let ops = inst.operands.as_slice();
    let with_ord = ["box_dim", "global_dim", "global_stride", "element_stride"]
        .iter()
        .any(|f| m(f));
    let (addr, ord, value) = match (ops, with_ord) {
        ([a, v], false) => (a, None, v),
        ([a, o, v], true) => (a, Some(o), v),
        _ => return Err("tensormap.replace takes [addr], {ord,} new_val".into()),
    };
    let ord = match ord {
        None => 0,
        Some(o) => {
            let o = o
                .as_int()
                .ok_or("the ordinal of tensormap.replace is an immediate")?;
            let most = if m("global_stride") { 3 } else { 4 };
            if !(0..=most).contains(&o) {
                return Err(format!("ordinal {o}: 0..={most}"));
            }
            o as u8
        }
    };
    let field = if m("global_address") {
        Field::GlobalAddress
    } else if m("rank") {
        Field::Rank
    } else if m("box_dim") {
        Field::BoxDim(ord)
    } else if m("global_dim") {
        Field::GlobalDim(ord)
    } else if m("global_stride") {
        Field::GlobalStride(ord)
    } else if m("element_stride") {
        Field::ElementStride(ord)
    } else if m("elemtype") {
        Field::ElemType
    } else if m("interleave_layout") {
        Field::InterleaveLayout
    } else if m("swizzle_mode") {
        Field::SwizzleMode
    } else if m("fill_mode") {
        Field::FillMode
    } else if m("swizzle_atomicity") {
        return Err("tensormap.replace .swizzle_atomicity is sm_100's".into());
    } else {
        return Err("tensormap.replace without a field".into());
    };
    let wide = matches!(field, Field::GlobalAddress | Field::GlobalStride(_));
    let value = fcx.src(value, ValTy::Int(if wide { 64 } else { 32 }))?;
    tma(TmaOp::Replace {
        field,
        space,
        addr: plain_address(fcx, addr, space)?,
        value,
    })
}

fn copy(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    for mode in ["im2col", "im2col::w", "im2col::w::128", "im2col_no_offs"] {
        if m(mode) {
            return Err(format!(
                "the .{mode} mode of tensor copies is not supported"
            ));
        }
    }
    if m("tile::gather4") || m("tile::scatter4") {
        return Err("the gather4/scatter4 modes of tensor copies are sm_100's".into());
    }
    if m("cta_group::1") || m("cta_group::2") {
        return Err(".cta_group tensor copies are sm_100's".into());
    }
    let rank = rank(inst)?;
    let ops = inst.operands.as_slice();
    let position = |s: &str| inst.modifiers.iter().position(|x| x == s);
    let global = position("global").ok_or("a tensor copy names .global")?;
    let shared = position("shared::cluster")
        .or_else(|| position("shared::cta"))
        .ok_or("a tensor copy names .shared::cluster or .shared::cta")?;
    let hint = m("L2::cache_hint");
    if shared < global {
        // global → shared
        if m("reduce") {
            return Err("cp.reduce.async.bulk.tensor writes global memory".into());
        }
        if !m("mbarrier::complete_tx::bytes") {
            return Err("a tensor load completes with .mbarrier::complete_tx::bytes".into());
        }
        let multicast = m("multicast::cluster");
        let extra = multicast as usize + hint as usize;
        if ops.len() != 3 + extra {
            return Err(format!(
                "this tensor load takes [dst], [map, {{coords}}], [mbar]{}{}",
                if multicast { ", ctaMask" } else { "" },
                if hint { ", cache-policy" } else { "" }
            ));
        }
        let (map, coords) = tensor_operand(fcx, &ops[1], rank)?;
        let cta_only = position("shared::cta").is_some();
        let (dst, _) = fcx.address(&ops[0])?;
        let (mbar, _) = fcx.address(&ops[2])?;
        let mask = if multicast {
            Some(fcx.src(&ops[3], ValTy::Int(16))?)
        } else {
            None
        };
        return tma(TmaOp::Load {
            rank,
            dst,
            map,
            coords,
            mbar,
            mask,
            cta_only,
        });
    }
    // shared::cta → global
    if !m("bulk_group") {
        return Err("a tensor store completes with .bulk_group".into());
    }
    if ops.len() != 2 + hint as usize {
        return Err("a tensor store takes [map, {coords}], [src]{, cache-policy}".into());
    }
    let reduce = if m("reduce") {
        Some(
            atom_op(inst)
                .filter(|op| !matches!(op, AtomOp::Exch | AtomOp::Cas))
                .ok_or(
                    "cp.reduce.async.bulk.tensor without .add .min .max .inc .dec .and .or .xor",
                )?,
        )
    } else {
        None
    };
    let (map, coords) = tensor_operand(fcx, &ops[0], rank)?;
    let (src, _) = fcx.address(&ops[1])?;
    tma(TmaOp::Store {
        rank,
        map,
        coords,
        src,
        reduce,
    })
}
