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

mod alu;
mod calls;
pub(crate) mod half;
mod mem;
mod names;
pub(crate) mod ops;
mod sync;
mod tma;
pub(crate) use tma::TmaOp;
pub(crate) mod tensor;

use names::{FnCx, Sym};
pub(crate) use ops::*;

use crate::error::SimError;
use crate::memory::{self, Global, SHARED_BASE};
use phasegate_ptx::{
    Directive, Function, Initializer, Instruction, Item, Labels, Module, Operand, SpecialReg,
    StateSpace, Statement, StmtId, VarDecl,
};
use std::collections::HashMap;

/// Where an op came from, for reports.
#[derive(Clone, Debug)]
pub(crate) struct Site {
    pub func: u32,
    /// 1-based PTX line, 0 when the module was not read from text.
    pub line: u32,
    pub text: Box<str>,
}

#[derive(Clone, Debug)]
pub(crate) struct FuncInfo {
    pub name: String,
    pub first_op: u32,
}

/// One parameter of the entry.
#[derive(Clone, Debug)]
pub(crate) struct KernelParam {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    /// The declared type (`u64` for pointers, `b8` for byte arrays).
    pub ty: phasegate_ptx::ScalarType,
}

/// Launch-shape directives of the entry.
#[derive(Clone, Debug, Default)]
pub(crate) struct EntryShape {
    pub reqntid: Option<(u32, u32, u32)>,
    pub maxntid: Option<(u32, u32, u32)>,
    pub reqnctapercluster: Option<(u32, u32, u32)>,
    pub explicit_cluster: bool,
}

/// A decoded module, ready to launch one entry.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub ops: Vec<Op>,
    pub sites: Vec<Site>,
    /// Ops that some branch targets: warps re-merge diverged threads there.
    pub is_target: Vec<bool>,
    pub funcs: Vec<FuncInfo>,
    pub entry_pc: u32,
    pub reg_bits: Vec<u8>,
    pub reg_names: Vec<String>,
    /// Special registers that have a slot, filled per thread at launch.
    pub sregs: Vec<(SpecialReg, u32)>,
    pub kernel_params: Vec<KernelParam>,
    pub kernel_param_bytes: u32,
    /// Bytes of each thread's `.param` frame (`.func` parameters, call-sequence variables).
    pub frame_bytes: u32,
    pub local_bytes: u32,
    /// Static shared bytes (from [`SHARED_BASE`]) and where dynamic shared memory begins.
    pub shared_static_end: u32,
    pub dynamic_shared_align: u32,
    /// Module `.global` / `.const` variables, already placed.
    pub global: Global,
    pub shape: EntryShape,
    /// The slot of the carry flag (`add.cc`, `addc`, ...).
    pub carry: u32,
    /// Shared variables with their offsets and sizes, for reports.
    pub shared_vars: Vec<(String, u32, u32)>,
}

impl Program {
    pub(crate) fn nregs(&self) -> usize {
        self.reg_bits.len()
    }
    /// Where dynamic shared memory starts (`extern .shared` arrays). In 64 bits: static
    /// shared memory near 4 GiB (which the launch then rejects) must not wrap around.
    pub(crate) fn dynamic_shared_offset(&self) -> u64 {
        let align = self.dynamic_shared_align.max(1) as u64;
        (self.shared_static_end as u64).div_ceil(align) * align
    }
}

/// Module-wide decoding state.
pub(crate) struct ModCx<'m> {
    pub module: &'m Module,
    pub globals: HashMap<String, Sym>,
    pub func_index: HashMap<String, u32>,
    /// Per function: its formal parameters and return parameters in the frame.
    pub frames: Vec<calls::FrameLayout>,
    pub reachable: Vec<&'m Function>,
    pub recursive: Vec<String>,
    pub prog: Program,
}

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
        globals: HashMap::new(),
        func_index: HashMap::new(),
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

/// The largest variable the simulator allocates (1 GiB).
const MAX_VAR_BYTES: u64 = 1 << 30;

/// Bytes of a declared variable; `[]` counts as zero; `None` when the size overflows.
pub(crate) fn var_bytes(decl: &VarDecl) -> Option<u64> {
    let elem = decl.ty.size() as u64 * decl.vector.unwrap_or(1) as u64;
    decl.array
        .iter()
        .try_fold(elem, |acc, d| acc.checked_mul(d.unwrap_or(0)))
}

/// Bytes of a variable's initializer, when it has one the simulator can evaluate.
fn init_bytes(decl: &VarDecl) -> Option<Vec<u8>> {
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
        let bits = names::imm_bits(*imm, names::ValTy::of_scalar(decl.ty));
        let at = i * elem;
        if at + elem > size {
            return None;
        }
        memory::store_le(&mut bytes[at..at + elem], bits);
    }
    Some(bytes)
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

/// Gives a `.shared` variable its offset in every CTA's shared window; `extern` arrays
/// without a size are the dynamic shared memory.
pub(crate) fn place_shared(prog: &mut Program, decl: &VarDecl) -> Sym {
    let align = decl.align.unwrap_or(decl.ty.size()).max(1);
    let size = var_bytes(decl).unwrap_or(u64::MAX).min(u32::MAX as u64);
    let dynamic = decl.array.iter().any(|d| d.is_none());
    if dynamic {
        prog.dynamic_shared_align = prog.dynamic_shared_align.max(align);
        prog.shared_vars.push((decl.name.clone(), u32::MAX, 0));
        return Sym::DynamicShared;
    }
    let offset = prog.shared_static_end.div_ceil(align).saturating_mul(align);
    prog.shared_static_end = offset.saturating_add(size as u32);
    prog.shared_vars
        .push((decl.name.clone(), offset, size as u32));
    Sym::Var {
        space: Space::Shared,
        addr: offset as u64,
        size,
    }
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
                    line,
                    text: inst.to_string().replace(" \t", " ").into(),
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
    fcx.cx.prog.sites.push(Site {
        func: index,
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
