//! The parameter block of a witness run: which fields the kernel reads, which of them are
//! pointers, and the bytes a scenario gives them.
//!
//! A kernel's parameters are data the analyzer does not have: a witness chooses them. Scalars
//! (`.param .u32 n`) and the fields of structures passed by value (`.param .align 8 .b8
//! params[1792]`, read as `ld.param.u32 %r1, [params+48]`) are found from the loads that read
//! them. A field whose value reaches an address is a pointer: it gets an address of its own in
//! the synthetic global memory of the run (every address of which reads as zero until written).
//! Every other field gets the scenario's integer. Bytes no load reads stay zero, which is also
//! what a tensor map the kernel only hands to tensor copies gets: the run then treats its box
//! as unknown.

use crate::analysis::FunctionAnalysis;
use crate::consts::{Expr, Val};
use crate::regs::{Src, VarId};
use phasegate_ptx::{AddressBase, Function, Opcode, Operand};
use std::collections::{BTreeMap, HashSet};

/// A field of the parameter block that the kernel loads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Byte offset in the parameter block.
    pub offset: u32,
    /// Bytes the widest load of it reads.
    pub width: u32,
    /// Whether its value reaches an address.
    pub pointer: bool,
    /// For witnesses: `n`, `params+48`.
    pub name: String,
}

/// Offsets and sizes of the entry's parameters, laid out as the CUDA driver lays them out
/// (each aligned to its `.align`, or its element size).
pub fn layout(function: &Function) -> (Vec<(String, u32, u32)>, u32) {
    let mut end = 0u32;
    let mut out = Vec::new();
    for p in &function.params {
        let size = p.byte_size().min(u64::from(u32::MAX / 2)) as u32;
        let align = p.align.unwrap_or(p.ty.size()).max(1);
        let offset = end.div_ceil(align).saturating_mul(align);
        end = offset.saturating_add(size);
        out.push((p.name.clone(), offset, size));
    }
    (out, end)
}

/// A parameter's name without its kernel's (nvcc names them `<mangled kernel>_param_<n>`).
fn short_name<'a>(function: &str, param: &'a str) -> &'a str {
    param
        .strip_prefix(function)
        .and_then(|rest| rest.strip_prefix('_'))
        .filter(|rest| rest.starts_with("param_"))
        .unwrap_or(param)
}

/// Whether a parameter is a structure passed by value: a byte array larger than a tensor map
/// or a pointer (CUTLASS's `Params`, FlashAttention's `Params`).
pub fn has_structure(function: &Function) -> bool {
    function
        .params
        .iter()
        .any(|p| p.ty.size() == 1 && !p.array.is_empty() && p.byte_size() > 128)
}

/// The fields the function loads from its parameters, in offset order.
pub fn fields(fa: &FunctionAnalysis) -> Vec<Field> {
    let (params, _) = layout(fa.function);
    let mut found: BTreeMap<u32, Field> = BTreeMap::new();
    let mut roots: Vec<(u32, VarId)> = Vec::new();
    for (stmt, inst) in fa.instructions() {
        // `ld.param` of a parameter, and generic loads of one (its address made by
        // `cvta.param`, as nvcc reads a structure passed by value).
        if inst.opcode != Opcode::Ld {
            continue;
        }
        let generic = !inst
            .modifiers
            .iter()
            .any(|m| m == "global" || m == "local" || m == "const" || m.starts_with("shared"));
        if !inst.has("param") && !generic {
            continue;
        }
        let Some(Operand::Address(addr)) = inst.operands.get(1) else {
            continue;
        };
        // The parameter and the byte offset in it the address names.
        let (sym, off) = match &addr.base {
            AddressBase::Symbol(sym) => (sym.clone(), addr.offset),
            AddressBase::Reg(r) => {
                match fa.consts.operand(stmt, &Operand::Reg(r.clone()), &fa.vars) {
                    Val::Expr(Expr {
                        base: Some(sym),
                        term: None,
                        add,
                    }) => (sym, add + addr.offset),
                    _ => continue,
                }
            }
            AddressBase::Absolute => continue,
        };
        let Some((name, base, size)) = params.iter().find(|(n, _, _)| *n == sym) else {
            continue;
        };
        let width = inst.scalar_type().map(|t| t.size()).unwrap_or(4).max(1)
            * vector_width(&inst.modifiers);
        let offset = base.saturating_add(off.max(0) as u32);
        if off < 0 || offset.saturating_add(width) > base.saturating_add(*size) {
            continue;
        }
        let name = short_name(&fa.function.name, name);
        let label = if off == 0 && *size <= 8 {
            name.to_string()
        } else {
            format!("{name}+{off}")
        };
        // A vector load reads several fields: each element is one.
        let elem = inst.scalar_type().map(|t| t.size()).unwrap_or(4).max(1);
        let count = vector_width(&inst.modifiers);
        let defs = fa.vars.defs(stmt);
        for k in 0..count {
            let at = offset + k * elem;
            let field = found.entry(at).or_insert(Field {
                offset: at,
                width: elem,
                pointer: false,
                name: if k == 0 {
                    label.clone()
                } else {
                    format!("{name}+{}", off + (k * elem) as i64)
                },
            });
            field.width = field.width.max(elem);
            if let Some(&d) = defs.get(k as usize) {
                roots.push((at, d));
            }
        }
    }
    for offset in pointer_fields(fa, &roots) {
        if let Some(f) = found.get_mut(&offset) {
            f.pointer = true;
        }
    }
    // A wider load may cover the fields of narrower ones: keep the outermost.
    let mut out: Vec<Field> = Vec::new();
    for (_, f) in found {
        if let Some(last) = out.last_mut()
            && f.offset < last.offset + last.width
        {
            last.pointer |= f.pointer;
            continue;
        }
        out.push(f);
    }
    out
}

fn vector_width(modifiers: &[String]) -> u32 {
    modifiers
        .iter()
        .find_map(|m| match m.as_str() {
            "v2" => Some(2),
            "v4" => Some(4),
            "v8" => Some(8),
            _ => None,
        })
        .unwrap_or(1)
}

/// The offsets of the fields (`roots`: field offset, variable loaded from it) whose value
/// reaches the address of a global or generic access, through moves and integer arithmetic.
fn pointer_fields(fa: &FunctionAnalysis, roots: &[(u32, VarId)]) -> HashSet<u32> {
    let mut out = HashSet::new();
    for &(offset, root) in roots {
        let mut seen: HashSet<VarId> = HashSet::from([root]);
        let mut work = vec![root];
        'search: while let Some(v) = work.pop() {
            for &stmt in fa.vars.use_sites(v) {
                let Some(inst) = fa.inst(stmt) else { continue };
                if addresses(fa, stmt, inst, v) {
                    out.insert(offset);
                    break 'search;
                }
                let carries = matches!(
                    inst.opcode,
                    Opcode::Mov
                        | Opcode::Add
                        | Opcode::Sub
                        | Opcode::Mad
                        | Opcode::Cvta
                        | Opcode::Cvt
                        | Opcode::Selp
                ) && !inst.scalar_type().is_some_and(|t| t.is_float());
                if !carries {
                    continue;
                }
                for &d in fa.vars.defs(stmt) {
                    if seen.insert(d) {
                        work.push(d);
                    }
                }
            }
        }
    }
    out
}

/// Whether `inst` uses `var` as (the base of) a global or generic address.
fn addresses(
    fa: &FunctionAnalysis,
    stmt: phasegate_ptx::StmtId,
    inst: &phasegate_ptx::Instruction,
    var: VarId,
) -> bool {
    let is_var = |name: &str| matches!(fa.vars.resolve(stmt, name), Some(Src::Var(x)) if x == var);
    if inst.opcode == Opcode::Cvta && inst.has("to") && inst.has("global") {
        return inst
            .operands
            .get(1)
            .and_then(Operand::as_reg)
            .is_some_and(is_var);
    }
    let local_space = inst
        .modifiers
        .iter()
        .any(|m| m == "shared" || m.starts_with("shared::") || m == "param" || m == "local");
    if local_space && !inst.has("global") {
        return false;
    }
    inst.operands.iter().any(|op| match op {
        Operand::Address(a) | Operand::TensorAddress(a, _) => {
            matches!(&a.base, AddressBase::Reg(r) if is_var(r))
        }
        _ => false,
    })
}
