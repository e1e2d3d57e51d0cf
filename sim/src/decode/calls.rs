//! `.func` calls: which functions the entry reaches, their parameter frames, and `call`.
//!
//! Frames are static: each function's parameters and every call sequence's `.param`
//! variables have fixed offsets in the thread's parameter frame. That is only sound without
//! recursion, so a call on a cycle of the call graph is [`Kind::Unsupported`].

use super::context::{FrameLayout, ModCx, Sym, var_bytes};
use super::names::FnCx;
use super::ops::*;
use phasegate_ptx::{Function, Instruction, Module, Opcode, Operand};
use std::collections::HashMap;

fn callee_name(inst: &Instruction) -> Option<&str> {
    inst.operands.iter().find_map(|op| match op {
        Operand::Symbol(name) => Some(name.as_str()),
        _ => None,
    })
}

/// Functions reachable from `entry` (entry first) and the names of those on a call cycle.
pub(crate) fn reachable<'m>(
    module: &'m Module,
    entry: &'m Function,
) -> (Vec<&'m Function>, Vec<String>) {
    let by_name: HashMap<&str, &Function> = module
        .functions()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name.as_str(), f))
        .collect();
    let mut order = vec![entry];
    let mut index: HashMap<&str, usize> = HashMap::from([(entry.name.as_str(), 0)]);
    let mut edges: Vec<Vec<usize>> = vec![Vec::new()];
    let mut i = 0;
    while i < order.len() {
        let f = order[i];
        for (_, inst) in f.body.as_ref().expect("body").instructions() {
            if inst.opcode != Opcode::Call {
                continue;
            }
            let Some(callee) = callee_name(inst).and_then(|n| by_name.get(n)) else {
                continue;
            };
            let j = *index.entry(callee.name.as_str()).or_insert_with(|| {
                order.push(callee);
                edges.push(Vec::new());
                order.len() - 1
            });
            edges[i].push(j);
        }
        i += 1;
    }
    // A function is recursive when it reaches itself.
    let mut recursive = Vec::new();
    for start in 0..order.len() {
        let mut seen = vec![false; order.len()];
        let mut stack = edges[start].clone();
        while let Some(n) = stack.pop() {
            if n == start {
                recursive.push(order[start].name.clone());
                break;
            }
            if !std::mem::replace(&mut seen[n], true) {
                stack.extend(&edges[n]);
            }
        }
    }
    (order, recursive)
}

/// Gives every reachable `.func` its parameters' offsets in the frame.
pub(crate) fn layout_frames(cx: &mut ModCx) {
    for (i, f) in cx.reachable.iter().enumerate() {
        cx.func_index.insert(f.name.clone(), i as u32);
    }
    let mut frames = Vec::new();
    for (i, f) in cx.reachable.iter().enumerate() {
        let mut layout = FrameLayout::default();
        if i == 0 {
            // The entry's parameters live in the kernel parameter block.
            for p in &cx.prog.kernel_params {
                layout.names.push((
                    p.name.clone(),
                    Sym::Var {
                        space: Space::KernelParam,
                        addr: p.offset as u64,
                        size: p.size as u64,
                    },
                ));
            }
        } else {
            for (decls, is_ret) in [(&f.returns, true), (&f.params, false)] {
                for d in decls {
                    let align = d.align.unwrap_or(d.ty.size()).max(1);
                    let offset = cx.prog.frame_bytes.div_ceil(align).saturating_mul(align);
                    let size = var_bytes(d).unwrap_or(u64::MAX).min(u32::MAX as u64 / 2) as u32;
                    cx.prog.frame_bytes = offset.saturating_add(size);
                    layout.names.push((
                        d.name.clone(),
                        Sym::Var {
                            space: Space::FrameParam,
                            addr: offset as u64,
                            size: size as u64,
                        },
                    ));
                    if is_ret {
                        layout.rets.push((offset, size))
                    } else {
                        layout.params.push((offset, size))
                    }
                }
            }
        }
        frames.push(layout);
    }
    cx.frames = frames;
}

/// `call{.uni} (ret), f, (a, b);`: copies the argument variables into the callee's
/// parameters; `ret` copies its return parameter back.
pub(crate) fn call(
    fcx: &mut FnCx,
    inst: &Instruction,
    callee: &mut Option<u32>,
) -> Result<Kind, String> {
    let ops = inst.operands.as_slice();
    let (ret, name, args) = match ops {
        [Operand::Symbol(f)] => (None, f, &[][..]),
        [Operand::Symbol(f), Operand::List(a)] => (None, f, a.as_slice()),
        [Operand::List(r), Operand::Symbol(f)] => (Some(r.as_slice()), f, &[][..]),
        [Operand::List(r), Operand::Symbol(f), Operand::List(a)] => {
            (Some(r.as_slice()), f, a.as_slice())
        }
        _ => return Err("indirect calls and call prototypes are not supported".into()),
    };
    let Some(&index) = fcx.cx.func_index.get(name.as_str()) else {
        return Err(format!("`{name}` has no body in this module"));
    };
    if fcx.cx.recursive.iter().any(|r| r == name) {
        return Err(format!(
            "`{name}` is recursive; the simulator's static frames cannot run it"
        ));
    }
    let layout = fcx.cx.frames[index as usize].clone();
    if args.len() != layout.params.len() {
        return Err(format!(
            "`{name}` takes {} parameters, the call passes {}",
            layout.params.len(),
            args.len()
        ));
    }
    let mut copies = Vec::new();
    for (arg, &(to, size)) in args.iter().zip(&layout.params) {
        let from = param_var(fcx, arg)?;
        copies.push(ParamCopy {
            from: from.0,
            to,
            bytes: size.min(from.1),
        });
    }
    let ret = match ret {
        None | Some([]) => None,
        Some([r]) => {
            let &(from, size) = layout
                .rets
                .first()
                .ok_or_else(|| format!("`{name}` returns nothing"))?;
            let to = param_var(fcx, r)?;
            Some(ParamCopy {
                from,
                to: to.0,
                bytes: size.min(to.1),
            })
        }
        Some(_) => return Err("calls with several return parameters are not supported".into()),
    };
    *callee = Some(index);
    Ok(Kind::Call {
        entry: 0,
        args: copies,
        ret,
    })
}

/// A `.param` variable of the caller's call sequence: its frame offset and size.
fn param_var(fcx: &mut FnCx, op: &Operand) -> Result<(u32, u32), String> {
    let Operand::Symbol(name) = op else {
        return Err(format!("call argument `{op}` is not a .param variable"));
    };
    match fcx.lookup(name) {
        Some(Sym::Var {
            space: Space::FrameParam,
            addr,
            size,
        }) => Ok((*addr as u32, *size as u32)),
        _ => Err(format!("call argument `{name}` is not a .param variable")),
    }
}
