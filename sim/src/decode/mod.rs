//! PTX model → [`Program`]: the compact form the interpreter runs (cranelift-interpreter style:
//! decode once, then execute indices, never names).
//!
//! Every function reachable from the entry is decoded into one flat op array, so a program
//! counter is an index into [`Program::ops`]. Registers, `.shared`, `.local` and `.param`
//! variables get static slots and offsets; labels become op indices; a `call` knows the
//! callee's first op and how to copy its parameters. An instruction the simulator cannot run
//! becomes [`Kind::Unsupported`]: the run stops with its name and line only if a thread
//! reaches it, so that a kernel with, say, a `printf` on a path the launch never takes still
//! runs.
//!
//! Each file imports only files below it: `ops` (the op types: their `parts`, the op families
//! `tma`, `tensor` and `half`, then [`Kind`]); `program` (what decoding produces); `context`
//! (module-wide state, what a name denotes, variable sizes); `names` (a function's scopes and
//! immediates); the decoders of instruction families (`alu`, `mem` over it, `tma` over `mem`,
//! `sync` over both, `tensor`, `half`, and `calls`); and this file, which drives them.

mod alu;
mod calls;
mod context;
mod half;
mod mem;
mod names;
mod ops;
mod program;
mod sync;
mod tensor;
mod tma;

pub(crate) use ops::*;
pub(crate) use program::{EntryShape, FuncInfo, KernelParam, Program, Site};

use context::{ModCx, Sym, place_shared, var_bytes};
use names::{FnCx, init_bytes};

use crate::error::SimError;
use crate::memory::{Global, SHARED_BASE};
use phasegate_ptx::{
    Directive, Function, Instruction, Item, Labels, Module, Operand, StateSpace, Statement, StmtId,
};
use std::collections::HashMap;

/// Decodes `entry` of `module` and every function it calls.
pub(crate) fn decode(module: &Module, entry: &str) -> Result<Program, SimError> {
    let Some(func) = module.function(entry) else {
        let entries: Vec<&str> = module.entries().map(|f| f.name.as_str()).collect();
        return Err(SimError::Launch(format!(
            "no function `{entry}` in the module (entries: {})",
            entries.join(", ")
        )));
    };
    if func.kind != phasegate_ptx::FunctionKind::Entry {
        return Err(SimError::Launch(format!(
            "`{entry}` is a .func, not an .entry"
        )));
    }
    if func.body.is_none() {
        return Err(SimError::Launch(format!("`{entry}` has no body")));
    }
    let (reachable, recursive) = calls::reachable(module, func);
    let mut cx = ModCx {
        module,
        globals: Default::default(),
        func_index: Default::default(),
        frames: Vec::new(),
        reachable,
        recursive,
        prog: Program {
            ops: Vec::new(),
            sites: Vec::new(),
            is_target: Vec::new(),
            funcs: Vec::new(),
            entry_pc: 0,
            reg_bits: Vec::new(),
            reg_names: Vec::new(),
            sregs: Vec::new(),
            kernel_params: Vec::new(),
            kernel_param_bytes: 0,
            frame_bytes: 0,
            local_bytes: 0,
            shared_static_end: SHARED_BASE,
            dynamic_shared_align: 16,
            global: Global::new(),
            shape: entry_shape(&func.directives),
            carry: 0,
            shared_vars: Vec::new(),
            op_regs: Vec::new(),
            op_regs_at: vec![0],
            id: program::next_program_id(),
        },
    };
    module_vars(&mut cx)?;
    kernel_params(&mut cx, func)?;
    calls::layout_frames(&mut cx);
    let mut call_fixups = Vec::new();
    for index in 0..cx.reachable.len() {
        let f = cx.reachable[index];
        let first_op = cx.prog.ops.len() as u32;
        cx.prog.funcs.push(FuncInfo {
            name: f.name.clone(),
            first_op,
        });
        decode_function(&mut cx, index as u32, &mut call_fixups);
    }
    for (pc, callee) in call_fixups {
        let entry = cx.prog.funcs[callee as usize].first_op;
        if let Kind::Call { entry: e, .. } = &mut cx.prog.ops[pc as usize].kind {
            *e = entry;
        }
    }
    cx.prog.entry_pc = 0;
    cx.prog.carry = cx
        .prog
        .reg_names
        .iter()
        .position(|n| n == "(carry)")
        .unwrap_or(0) as u32;
    Ok(cx.prog)
}

fn entry_shape(directives: &[Directive]) -> EntryShape {
    let mut shape = EntryShape::default();
    for d in directives {
        match d.name.as_str() {
            "reqntid" => shape.reqntid = d.dims(),
            "maxntid" => shape.maxntid = d.dims(),
            "reqnctapercluster" => shape.reqnctapercluster = d.dims(),
            "explicitcluster" => shape.explicit_cluster = true,
            _ => {}
        }
    }
    shape
}

/// Places module-scope `.global`, `.const` and `.shared` variables.
fn module_vars(cx: &mut ModCx) -> Result<(), SimError> {
    for item in &cx.module.items {
        let Item::Var(decl) = item else { continue };
        match decl.space {
            StateSpace::Global | StateSpace::Const => {
                let Some(bytes) = init_bytes(decl) else {
                    cx.globals.insert(
                        decl.name.clone(),
                        Sym::Opaque(format!("the initializer of `{}`", decl.name)),
                    );
                    continue;
                };
                let size = bytes.len() as u64;
                let what = if decl.space == StateSpace::Global {
                    "variable"
                } else {
                    "constant"
                };
                let addr = cx.prog.global.alloc(
                    bytes,
                    decl.space == StateSpace::Const,
                    format!("{what} `{}`", decl.name),
                );
                cx.globals.insert(
                    decl.name.clone(),
                    Sym::Var {
                        space: Space::Global,
                        addr,
                        size,
                    },
                );
            }
            StateSpace::Shared => {
                let sym = place_shared(&mut cx.prog, decl);
                cx.globals.insert(decl.name.clone(), sym);
            }
            _ => {}
        }
    }
    Ok(())
}

fn kernel_params(cx: &mut ModCx, func: &Function) -> Result<(), SimError> {
    let mut end = 0u32;
    for p in &func.params {
        let size = var_bytes(p).unwrap_or(u64::MAX).min(u32::MAX as u64 / 2) as u32;
        let align = p.align.unwrap_or(p.ty.size()).max(1);
        let offset = end.div_ceil(align).saturating_mul(align);
        end = offset.saturating_add(size);
        cx.prog.kernel_params.push(KernelParam {
            name: p.name.clone(),
            offset,
            size,
            ty: p.ty,
        });
    }
    cx.prog.kernel_param_bytes = end;
    Ok(())
}

/// `text.replace(" \t", " ")` in place: each tab that a space precedes removed (the matches of
/// the two bytes cannot overlap, so a tab right after a removed one stays, as `replace` leaves
/// it). An instruction's text has one such tab, after its opcode; `replace`, a search of a
/// two-byte pattern and a new string per instruction, was 1.4 % of a CUTLASS GEMM's launch.
fn space_tabs(mut text: String) -> String {
    let mut from = 0;
    while let Some(i) = text.as_bytes()[from..]
        .iter()
        .position(|&b| b == b'\t')
        .map(|i| i + from)
    {
        if i > 0 && text.as_bytes()[i - 1] == b' ' {
            text.remove(i);
        }
        // What now stands at `i` followed the tab, so it cannot be a matched tab.
        from = i + 1;
        if from >= text.len() {
            break;
        }
    }
    text
}

/// Decodes one function's body into ops appended to the program.
fn decode_function(cx: &mut ModCx, index: u32, call_fixups: &mut Vec<(u32, u32)>) {
    let f = cx.reachable[index as usize];
    let body = f.body.as_ref().expect("reachable functions have bodies");
    let mut fcx = FnCx::new(cx, index);
    // Labels are scoped (a repeated inline-assembly label means its own block's): each label
    // statement's op index, and each branch's label resolved from where the branch stands.
    let scoped = Labels::new(body);
    let mut label_pc: HashMap<StmtId, u32> = HashMap::new();
    let mut fixups: Vec<(u32, StmtId, String)> = Vec::new();
    for (id, statement) in body.iter() {
        match statement {
            Statement::ScopeOpen => fcx.open(),
            Statement::ScopeClose => fcx.close(),
            Statement::Decl(decl) => fcx.declare(decl),
            Statement::Label(_) => {
                label_pc.insert(id, fcx.cx.prog.ops.len() as u32);
            }
            Statement::Instruction(inst) => {
                let pc = fcx.cx.prog.ops.len() as u32;
                let (op, label, callee) = decode_instruction(&mut fcx, inst);
                fcx.note_op_slots();
                if let Some(label) = label {
                    fixups.push((pc, id, label));
                }
                if let Some(callee) = callee {
                    call_fixups.push((pc, callee));
                }
                let line = body.span(id).line;
                fcx.cx.prog.ops.push(op);
                fcx.cx.prog.sites.push(Site {
                    func: index,
                    stmt: Some(id),
                    line,
                    text: space_tabs(inst.to_string()).into(),
                });
                fcx.cx.prog.is_target.push(false);
            }
            Statement::Loc(_) | Statement::Directive(_) => {}
        }
    }
    // A body that falls off its end returns.
    let end = fcx.cx.prog.ops.len() as u32;
    fcx.cx.prog.ops.push(Op {
        kind: Kind::Ret,
        guard: None,
    });
    fcx.note_op_slots();
    fcx.cx.prog.sites.push(Site {
        func: index,
        stmt: None,
        line: 0,
        text: format!("(end of `{}`)", f.name).into(),
    });
    fcx.cx.prog.is_target.push(false);
    for (pc, at, label) in fixups {
        match scoped
            .resolve(at, &label)
            .and_then(|stmt| label_pc.get(&stmt))
        {
            Some(&target) => {
                fcx.cx.prog.is_target[target.min(end) as usize] = true;
                if let Kind::Bra { target: t } = &mut fcx.cx.prog.ops[pc as usize].kind {
                    *t = target;
                }
            }
            None => {
                let text = fcx.cx.prog.sites[pc as usize].text.clone();
                fcx.cx.prog.ops[pc as usize].kind = Kind::Unsupported(
                    format!("`{text}`: no label `{label}` in `{}`", f.name).into(),
                );
            }
        }
    }
}

/// Decodes one instruction; returns the op, a label to resolve, and a callee to resolve.
fn decode_instruction(fcx: &mut FnCx, inst: &Instruction) -> (Op, Option<String>, Option<u32>) {
    let guard = match &inst.guard {
        None => Ok(None),
        Some(g) => fcx.reg(&g.pred).map(|reg| {
            Some(Guard {
                reg,
                negated: g.negated,
            })
        }),
    };
    let mut label = None;
    let mut callee = None;
    let kind = guard
        .clone()
        .and_then(|_| dispatch(fcx, inst, &mut label, &mut callee));
    let kind = kind.unwrap_or_else(|why| {
        Kind::Unsupported(format!("`{inst}`: {why}").replace(" \t", " ").into())
    });
    (
        Op {
            kind,
            guard: guard.unwrap_or(None),
        },
        label,
        callee,
    )
}

fn dispatch(
    fcx: &mut FnCx,
    inst: &Instruction,
    label: &mut Option<String>,
    callee: &mut Option<u32>,
) -> Result<Kind, String> {
    use phasegate_ptx::Opcode as O;
    match &inst.opcode {
        O::Bra => match inst.operands.as_slice() {
            [Operand::Symbol(name)] => {
                *label = Some(name.clone());
                Ok(Kind::Bra { target: 0 })
            }
            _ => Err("only `bra LABEL` is supported (no branch tables)".into()),
        },
        O::Call => calls::call(fcx, inst, callee),
        O::Ret => Ok(Kind::Ret),
        O::Exit => Ok(Kind::Exit),
        O::Trap => Ok(Kind::Trap),
        O::Ld | O::St | O::Atom | O::Red | O::Cvta | O::Mapa | O::Mov => mem::decode(fcx, inst),
        O::Bar
        | O::Barrier
        | O::Mbarrier
        | O::Cp
        | O::Fence
        | O::Membar
        | O::Nanosleep
        | O::Shfl
        | O::Vote
        | O::Elect => sync::decode(fcx, inst),
        O::Other(name)
            if matches!(
                name.as_str(),
                "activemask" | "redux" | "prefetch" | "prefetchu" | "pmevent"
            ) =>
        {
            sync::decode(fcx, inst)
        }
        O::Other(name)
            if matches!(name.as_str(), "tensormap" | "setmaxnreg" | "griddepcontrol") =>
        {
            tma::decode(fcx, inst)
        }
        O::Other(name) if tensor::claims(name) => tensor::decode(fcx, inst),
        _ if half::claims(inst) => half::decode(fcx, inst),
        _ => alu::decode(fcx, inst),
    }
}

#[cfg(test)]
mod tests {
    use super::{Kind, decode, space_tabs};

    /// [`space_tabs`] is `replace(" \t", " ")`: on random strings of spaces, tabs, letters,
    /// commas and a two-byte character, runs of tabs and spaces included.
    #[test]
    fn space_tabs_is_the_replace() {
        let mut rng = crate::rng::Rng::new(19);
        let alphabet = [" ", "\t", "a", ",", "\u{e9}", " \t", "\t\t"];
        let mut removed = 0;
        for _ in 0..20_000 {
            let n = rng.below(12) as usize;
            let text: String = (0..n)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            let want = text.replace(" \t", " ");
            removed += text.len() - want.len();
            assert_eq!(space_tabs(text.clone()), want, "{text:?}");
        }
        assert!(removed > 10_000, "tabs removed: {removed}");
    }

    /// Every instruction of the real-world corpus (Triton 3.9 and nvcc/CUTLASS, sm_80 and
    /// sm_90a) that is a tensor-core instruction or a half-precision conversion or arithmetic
    /// decodes: none is left for a run to stop at.
    #[test]
    fn the_corpus_tensor_and_half_instructions_decode() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/realworld");
        let mut unsupported = Vec::new();
        let mut seen = 0;
        for dir in ["triton", "cutlass"] {
            let mut files: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
                .expect("corpus")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect();
            files.sort();
            for path in files {
                let text = std::fs::read_to_string(&path).expect("ptx");
                let module = phasegate_ptx::parse(&text).expect("parses");
                for f in module.entries() {
                    let prog = decode(&module, &f.name).expect("decodes");
                    for (op, site) in prog.ops.iter().zip(&prog.sites) {
                        let name = site
                            .text
                            .split_whitespace()
                            .find(|t| !t.starts_with('@'))
                            .unwrap_or("");
                        let tensor = ["ldmatrix", "stmatrix", "mma", "wgmma"]
                            .contains(&name.split('.').next().unwrap_or(""));
                        let half = name.split('.').any(|m| {
                            ["f16", "f16x2", "bf16", "bf16x2", "e4m3x2", "e5m2x2"].contains(&m)
                        });
                        if !(tensor || half) {
                            continue;
                        }
                        seen += 1;
                        if let Kind::Unsupported(why) = &op.kind {
                            unsupported.push(format!("{}: {why}", path.display()));
                        }
                    }
                }
            }
        }
        unsupported.sort();
        unsupported.dedup();
        assert!(seen > 1000, "{seen} instructions");
        assert!(unsupported.is_empty(), "{}", unsupported.join("\n"));
    }
}
