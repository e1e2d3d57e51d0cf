//! Data movement: `mov`, `ld`, `st`, `atom`, `red`, `cvta`, `mapa`.

use super::alu::int_ty;
use super::names::{FnCx, ValTy, is_timer_name};
use super::ops::*;
use phasegate_ptx::{Instruction, Opcode, Operand, ScalarType};

/// The state space an instruction's modifiers name; `None` for generic addressing.
pub(crate) fn space_of(inst: &Instruction) -> Option<Space> {
    for m in &inst.modifiers {
        let s = match m.as_str() {
            "global" => Space::Global,
            "shared" | "shared::cta" => Space::Shared,
            "shared::cluster" => Space::SharedCluster,
            "local" => Space::Local,
            "const" => Space::Const,
            "param" | "param::entry" | "param::func" => Space::KernelParam,
            _ => continue,
        };
        return Some(s);
    }
    None
}

pub(super) fn mem_ty(t: ScalarType) -> Result<MemTy, String> {
    match t {
        ScalarType::F32 => Ok(MemTy::F32),
        ScalarType::F64 => Ok(MemTy::F64),
        ScalarType::F16 | ScalarType::Bf16 => Ok(MemTy::Int(IntTy {
            bits: 16,
            signed: false,
        })),
        ScalarType::F16x2 | ScalarType::Bf16x2 => Ok(MemTy::Int(IntTy::U32)),
        other => int_ty(other)
            .map(MemTy::Int)
            .ok_or_else(|| format!("memory access of `.{other}` is not supported")),
    }
}

fn val_ty(t: MemTy) -> ValTy {
    match t {
        MemTy::Int(it) => ValTy::of_int(it),
        MemTy::F32 => ValTy::F32,
        MemTy::F64 => ValTy::F64,
    }
}

/// The space an access uses: a symbol's own space wins over the generic default, and a
/// `.param` access goes to the entry's block or the thread's frame as its symbol says.
/// A `.param` access through a register (no symbol) in the `.entry` reads the kernel
/// parameters: `mov` of a kernel parameter's name gives its address in `.param` space, which
/// `ld.param` takes (PTX ISA §5.1.6.1; nvcc so reads a by-value struct at run-time offsets).
fn access_space(
    inst_space: Option<Space>,
    sym_space: Option<Space>,
    addr: &mut Addr,
    entry: bool,
) -> Result<Space, String> {
    use crate::memory::{LOCAL_GENERIC, SHARED_GENERIC};
    match (inst_space, sym_space) {
        (None, None) => Ok(Space::Generic),
        (Some(s), None) => {
            if s == Space::KernelParam && !entry {
                return Err("a .param access through a register in a .func is not supported (in the .entry it reads the kernel parameters, PTX ISA §5.1.6.1)".into());
            }
            Ok(s)
        }
        (None, Some(sym)) => {
            // Generic addressing of a variable uses its generic address.
            if let Src::Imm(base) = &mut addr.base {
                match sym {
                    Space::Shared => *base += SHARED_GENERIC,
                    Space::Local => *base += LOCAL_GENERIC,
                    Space::Global => {}
                    _ => return Err("generic access to a parameter is not supported".into()),
                }
            }
            Ok(Space::Generic)
        }
        (Some(Space::KernelParam), Some(p @ (Space::KernelParam | Space::FrameParam))) => Ok(p),
        (Some(Space::SharedCluster), Some(Space::Shared)) => Ok(Space::Shared),
        (Some(Space::Const), Some(Space::Global)) => Ok(Space::Const),
        (Some(s), Some(sym)) if s == sym => Ok(s),
        (Some(s), Some(sym)) => Err(format!(
            "the variable is in {sym:?} space, the instruction accesses {s:?}"
        )),
    }
}

fn vector_dsts(fcx: &mut FnCx, op: &Operand) -> Result<Vec<u32>, String> {
    match op {
        Operand::Vector(items) => items.iter().map(|i| fcx.dst(i)).collect(),
        other => Ok(vec![fcx.dst(other)?]),
    }
}

fn vector_srcs(fcx: &mut FnCx, op: &Operand, t: ValTy) -> Result<Vec<Src>, String> {
    match op {
        Operand::Vector(items) => items.iter().map(|i| fcx.src(i, t)).collect(),
        other => Ok(vec![fcx.src(other, t)?]),
    }
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let ty = inst.scalar_type();
    match inst.opcode {
        Opcode::Mov => mov(fcx, inst, ty.ok_or("mov without a type")?),
        Opcode::Ld => {
            let [d, a] = inst.operands.as_slice() else {
                return Err("ld takes two operands".into());
            };
            let t = mem_ty(ty.ok_or("ld without a type")?)?;
            let (mut addr, sym) = fcx.address(a)?;
            let space = access_space(space_of(inst), sym, &mut addr, fcx.entry)?;
            let ds = vector_dsts(fcx, d)?;
            Ok(Kind::Ld {
                space,
                ty: t,
                ds,
                addr,
            })
        }
        Opcode::St => {
            let [a, v] = inst.operands.as_slice() else {
                return Err("st takes two operands".into());
            };
            let t = mem_ty(ty.ok_or("st without a type")?)?;
            let (mut addr, sym) = fcx.address(a)?;
            let space = access_space(space_of(inst), sym, &mut addr, fcx.entry)?;
            if matches!(space, Space::KernelParam | Space::Const) {
                return Err("stores to kernel parameters or constants are not allowed".into());
            }
            let vals = vector_srcs(fcx, v, val_ty(t))?;
            Ok(Kind::St {
                space,
                ty: t,
                vals,
                addr,
            })
        }
        Opcode::Atom | Opcode::Red => atom(fcx, inst, ty.ok_or("atom without a type")?),
        Opcode::Cvta => {
            let [d, a] = inst.operands.as_slice() else {
                return Err("cvta takes two operands".into());
            };
            let to = inst.has("to");
            let space = space_of(inst).ok_or("cvta needs a state space")?;
            let bits = if ty == Some(ScalarType::U32) { 32 } else { 64 };
            let a = match a {
                Operand::Symbol(_) | Operand::SymbolOffset(..) => fcx.src(a, ValTy::Int(64))?,
                other => fcx.src(other, ValTy::Int(bits))?,
            };
            Ok(Kind::Cvta {
                d: fcx.dst(d)?,
                a,
                space,
                to_generic: !to,
                bits,
            })
        }
        Opcode::Mapa => {
            let [d, a, r] = inst.operands.as_slice() else {
                return Err("mapa takes three operands".into());
            };
            let generic = space_of(inst).is_none();
            let bits = if ty == Some(ScalarType::U32) { 32 } else { 64 };
            Ok(Kind::Mapa {
                d: fcx.dst(d)?,
                a: fcx.src(a, ValTy::Int(bits))?,
                rank: fcx.src(r, ValTy::Int(32))?,
                generic,
            })
        }
        _ => Err("not a data-movement instruction".into()),
    }
}

fn mov(fcx: &mut FnCx, inst: &Instruction, ty: ScalarType) -> Result<Kind, String> {
    let [d, a] = inst.operands.as_slice() else {
        return Err("mov takes two operands".into());
    };
    let vt = ValTy::of_scalar(ty);
    match (d, a) {
        (Operand::Vector(parts), src) => {
            let ds = parts
                .iter()
                .map(|p| fcx.dst(p))
                .collect::<Result<Vec<_>, _>>()?;
            let part_bits = (ty.size() * 8) as usize / ds.len().max(1);
            Ok(Kind::Unpack {
                ds,
                a: fcx.src(src, vt)?,
                part_bits: part_bits as u8,
            })
        }
        (dst, Operand::Vector(parts)) => {
            let part_bits = (ty.size() * 8) as usize / parts.len().max(1);
            let pt = ValTy::Int(part_bits as u8);
            let srcs = parts
                .iter()
                .map(|p| fcx.src(p, pt))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Kind::Pack {
                d: fcx.dst(dst)?,
                parts: srcs,
                part_bits: part_bits as u8,
            })
        }
        (dst, Operand::Reg(name)) if is_timer_name(name) => Ok(Kind::Clock { d: fcx.dst(dst)? }),
        (dst, src) => {
            let d = fcx.dst(dst)?;
            let a = fcx.src(src, vt)?;
            // A narrower type than the destination still writes the whole register.
            let a = match a {
                Src::Imm(v) if d != SINK => {
                    let bits = fcx.reg_bits(d);
                    Src::Imm(if bits >= 64 {
                        v
                    } else {
                        v & ((1u64 << bits) - 1)
                    })
                }
                other => other,
            };
            Ok(Kind::Mov { d, a })
        }
    }
}

/// The operation of `atom`, `red` and `cp.reduce.async.bulk`.
pub(super) fn atom_op(inst: &Instruction) -> Option<AtomOp> {
    inst.modifiers.iter().find_map(|m| {
        Some(match m.as_str() {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            _ => return None,
        })
    })
}

fn atom(fcx: &mut FnCx, inst: &Instruction, ty: ScalarType) -> Result<Kind, String> {
    let op = atom_op(inst).ok_or("atomic without an operation")?;
    if inst
        .modifiers
        .iter()
        .any(|m| m.starts_with('v') && m.len() == 2)
    {
        return Err("vector atomics are not supported".into());
    }
    let t = mem_ty(ty)?;
    if matches!(t, MemTy::Int(IntTy { bits: 16 | 8, .. })) {
        return Err("16-bit atomics are not supported".into());
    }
    let vt = val_ty(t);
    let is_red = inst.opcode == Opcode::Red;
    let ops = inst.operands.as_slice();
    let (d, a_op, rest) = if is_red {
        let (a, rest) = ops.split_first().ok_or("red without operands")?;
        (SINK, a, rest)
    } else {
        let [d, a, rest @ ..] = ops else {
            return Err("atom without operands".into());
        };
        (fcx.dst(d)?, a, rest)
    };
    let (mut addr, sym) = fcx.address(a_op)?;
    let space = access_space(space_of(inst), sym, &mut addr, fcx.entry)?;
    let (a, b) = match (op, rest) {
        (AtomOp::Cas, [b, c]) => (fcx.src(b, vt)?, fcx.src(c, vt)?),
        (_, [b]) => (fcx.src(b, vt)?, Src::Imm(0)),
        _ => return Err("unexpected operands of the atomic".into()),
    };
    Ok(Kind::Atom {
        space,
        op,
        ty: t,
        d,
        addr,
        a,
        b,
    })
}
