//! Lowering: a checked kernel body to a PTX [`Function`].
//!
//! Runs only on bodies the checker accepted, with the types it inferred. Every instruction
//! keeps the span of the Rust expression it came from (a side table parallel to the body, for
//! diagnostics), and `.loc` lines carry the source line and column of each statement into
//! the PTX.

mod alias;
mod attention;
mod calls;
mod control;
mod copy;
mod expr;
mod inline;
mod memory;
mod names;
mod narrow;
mod pipeline;
mod registers;
mod split;
mod sync;
mod tma;
mod wgmma;

pub use inline::CallSite;
pub use names::{Extent, RegNames, SourceText};
pub use sync::HVal;

use crate::check::Types;
use crate::diag::Diagnostics;
use crate::types::{Elem, MapShape, Prim, RegClass, Ty};
use phasegate_ptx::{
    Body, Function, FunctionKind, Guard, Imm, Instruction, Linkage, Loc, Opcode, Operand,
    ScalarType, Span, StateSpace, Statement, VarDecl,
};
use proc_macro2::Span as RustSpan;
use std::collections::HashMap;

/// A value during lowering.
#[derive(Clone, Debug)]
pub enum Val {
    /// A register holding a value of the type.
    Reg(Prim, String),
    /// A compile-time constant (integers as their 64-bit pattern; bools as 0/1).
    Imm(Prim, Imm),
    /// A vector: one value per lane.
    Vector(Prim, Vec<Val>),
    /// A handle of the barrier vocabulary.
    Handle(Box<HVal>),
    Unit,
}

impl Val {
    fn prim(&self) -> Option<Prim> {
        match self {
            Val::Reg(p, _) | Val::Imm(p, _) | Val::Vector(p, _) => Some(*p),
            Val::Handle(_) | Val::Unit => None,
        }
    }
}

/// What a name refers to.
#[derive(Clone, Debug)]
enum Binding {
    Value {
        val: Val,
        mutable: bool,
    },
    /// A global slice: its base address (64-bit, global window) in a register.
    Global {
        elem: Elem,
        base: String,
        mutable: bool,
    },
    /// A shared array: its symbol and its address (32-bit, shared window) in a register.
    Shared {
        elem: Elem,
        symbol: String,
        base: String,
        len: u64,
    },
    /// A tensor map (a parameter, or one published into a slot): its generic address in a
    /// register.
    Map {
        shape: MapShape,
        addr: String,
    },
    /// `&mut [TensorMapSlot]`: the slots' generic address (what copies and proxy fences take)
    /// and their global-window address (what `tensormap.replace.global` takes).
    Slots {
        generic: String,
        global: String,
    },
}

struct LoopLabels {
    name: Option<String>,
    brk: String,
    cont: String,
}

/// A kernel parameter as the lowering sees it.
pub struct Param {
    pub name: String,
    pub ty: Ty,
}

/// The lowered function and the Rust span of each of its statements.
pub struct Lowered {
    pub function: Function,
    pub spans: Vec<RustSpan>,
    /// The Rust name of each register, for diagnostics.
    pub names: RegNames,
    pub shared_bytes: u64,
    /// Module-scope declarations the function needs (the dynamic shared memory).
    pub module_vars: Vec<VarDecl>,
    /// Bytes of dynamic shared memory the kernel's pipelines need at launch.
    pub dynamic_shared_bytes: u64,
    /// The source files of the `.loc` lines (`.file 1` first): the kernel's, then those of
    /// device functions defined elsewhere.
    pub files: Vec<String>,
    /// For each statement (as `spans`), the device-function call it was inlined from.
    pub sites: Vec<Option<u32>>,
    pub call_sites: Vec<CallSite>,
}

pub struct Lowerer<'a> {
    types: &'a Types,
    diag: &'a mut Diagnostics,
    kernel: String,
    statements: Vec<(Statement, RustSpan, Option<u32>)>,
    regs: [u32; 6],
    labels: u32,
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<LoopLabels>,
    shared_decls: Vec<VarDecl>,
    shared_bytes: u64,
    module_vars: Vec<VarDecl>,
    /// Bytes of dynamic shared memory taken by pipelines so far.
    dynamic_bytes: u64,
    /// Whether `dynamic_shared` was used (pipelines must come before it).
    dynamic_user: bool,
    span: RustSpan,
    /// The last token of what is being lowered (`span` starts at its first).
    span_last: RustSpan,
    /// Which Rust binding or expression each register holds.
    names: RegNames,
    /// `.loc` positions: file index, line, column.
    last_loc: Option<(u32, u32, u32)>,
    /// The `.loc` of the current statement, written before its first instruction.
    pending_loc: Option<(u32, u32, u32)>,
    files: Vec<String>,
    /// The device-function call being inlined (an index into `call_sites`).
    site: Option<u32>,
    call_sites: Vec<CallSite>,
    /// The device functions being inlined, innermost last.
    frames: Vec<inline::Frame>,
    /// The block shape of `#[kernel(block = ...)]`: `%ntid` is a constant, and `%tid` in a
    /// dimension of size 1 is 0.
    block: Option<(u32, u32, u32)>,
    /// Bindings whose accumulator registers an assignment through another binding overwrote.
    clobbers: HashMap<String, alias::Clobber>,
    /// When each binding was last read (`read_serial` then).
    alias_reads: HashMap<String, u64>,
    read_serial: u64,
    /// For each loop being lowered: `read_serial` and the number of scopes when it began.
    loop_starts: Vec<(u64, usize)>,
    /// `add_partial` arrivals so far, and the predicate each one's `last()` is.
    split_arrivals: u32,
    split_lasts: HashMap<String, u32>,
    /// The arrivals whose `last()` the `if` being lowered has taken.
    proven_last: Vec<u32>,
    /// The shared words of the arrivals' outcomes, once declared.
    split_flag_symbol: Option<String>,
}

impl<'a> Lowerer<'a> {
    pub fn new(kernel: &str, types: &'a Types, diag: &'a mut Diagnostics, span: RustSpan) -> Self {
        Lowerer {
            types,
            diag,
            kernel: kernel.to_string(),
            statements: Vec::new(),
            regs: [0; 6],
            labels: 0,
            scopes: vec![HashMap::new()],
            loops: Vec::new(),
            shared_decls: Vec::new(),
            shared_bytes: 0,
            module_vars: Vec::new(),
            dynamic_bytes: 0,
            dynamic_user: false,
            span,
            span_last: span,
            names: RegNames::default(),
            last_loc: None,
            pending_loc: None,
            files: vec![span.file()],
            site: None,
            call_sites: Vec::new(),
            frames: Vec::new(),
            block: None,
            clobbers: HashMap::new(),
            alias_reads: HashMap::new(),
            read_serial: 0,
            loop_starts: Vec::new(),
            split_arrivals: 0,
            split_lasts: HashMap::new(),
            proven_last: Vec::new(),
            split_flag_symbol: None,
        }
    }

    /// Lowers for blocks of exactly this shape (the kernel's `.reqntid`).
    pub fn with_block(mut self, block: Option<(u32, u32, u32)>) -> Self {
        self.block = block;
        self
    }

    /// Lowers the whole kernel: parameter loads, the body, the final `ret`.
    pub fn lower(mut self, params: &[Param], body: &syn::Block) -> Lowered {
        let mut decls = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let symbol = format!("{}_param_{i}", self.kernel);
            let ptx_ty = match p.ty {
                Ty::Prim(Prim::Bool) => ScalarType::U8,
                Ty::Prim(prim) => prim.mem(),
                Ty::TensorMap(_) => ScalarType::B8,
                _ => ScalarType::U64,
            };
            let mut decl = VarDecl::new(StateSpace::Param, ptx_ty, symbol.clone());
            if let Ty::TensorMap(_) = p.ty {
                // As nvcc passes a `const __grid_constant__ CUtensorMap`.
                decl.align = Some(64);
                decl.array = vec![Some(128)];
            }
            decls.push(decl);
            let binding = self.load_param(&symbol, p.ty);
            self.bind(p.name.clone(), binding);
        }
        self.block_stmts(body);
        let ends_in_ret = matches!(self.statements.last(), Some((Statement::Instruction(i), _, _)) if i.opcode == Opcode::Ret);
        if !ends_in_ret {
            self.before_exit();
            self.emit(Instruction::new(Opcode::Ret, &[], vec![]));
        }
        self.finish(decls)
    }

    fn finish(self, params: Vec<VarDecl>) -> Lowered {
        let mut body = Body::new();
        let mut spans = Vec::new();
        let mut sites = Vec::new();
        let fn_span = self.span;
        for class in RegClass::ALL {
            let count = self.regs[class as usize];
            if count > 0 {
                let mut decl = VarDecl::new(StateSpace::Reg, class.decl_type(), class.prefix());
                decl.range = Some(count + 1);
                body.push(Statement::Decl(decl), Span::NONE);
                spans.push(fn_span);
                sites.push(None);
            }
        }
        for decl in self.shared_decls {
            body.push(Statement::Decl(decl), Span::NONE);
            spans.push(fn_span);
            sites.push(None);
        }
        // The body's spans hold the Rust line and column of each statement: the analyzer's
        // messages then name places in the kernel's source.
        for (statement, span, site) in self.statements {
            let start = span.start();
            body.push(
                statement,
                Span::new(start.line as u32, start.column as u32 + 1),
            );
            spans.push(span);
            sites.push(site);
        }
        let function = Function {
            kind: FunctionKind::Entry,
            linkage: Some(Linkage::Visible),
            name: self.kernel,
            returns: Vec::new(),
            params,
            directives: Vec::new(),
            body: Some(body),
        };
        Lowered {
            function,
            spans,
            names: self.names,
            shared_bytes: self.shared_bytes,
            module_vars: self.module_vars,
            dynamic_shared_bytes: self.dynamic_bytes,
            files: self.files,
            sites,
            call_sites: self.call_sites,
        }
    }

    fn load_param(&mut self, symbol: &str, ty: Ty) -> Binding {
        let addr = Operand::Address(phasegate_ptx::Address {
            base: phasegate_ptx::AddressBase::Symbol(symbol.into()),
            offset: 0,
        });
        match ty {
            Ty::Prim(Prim::Bool) => {
                let byte = self.reg(RegClass::B32);
                self.emit(Instruction::new(
                    Opcode::Ld,
                    &["param", "u8"],
                    vec![Operand::reg(&byte), addr],
                ));
                let p = self.reg(RegClass::Pred);
                self.emit(Instruction::new(
                    Opcode::Setp,
                    &["ne", "u32"],
                    vec![Operand::reg(&p), Operand::reg(&byte), Operand::int(0)],
                ));
                Binding::Value {
                    val: Val::Reg(Prim::Bool, p),
                    mutable: false,
                }
            }
            Ty::Prim(prim) => {
                let r = self.reg(prim.class());
                let ty = prim.mem().name();
                self.emit(Instruction::new(
                    Opcode::Ld,
                    &["param", ty],
                    vec![Operand::reg(&r), addr],
                ));
                Binding::Value {
                    val: Val::Reg(prim, r),
                    mutable: false,
                }
            }
            Ty::Global { elem, mutable } => {
                let (_, base) = self.pointer_param(addr);
                Binding::Global {
                    elem,
                    base,
                    mutable,
                }
            }
            Ty::TensorMap(shape) => self.map_param(symbol, shape),
            Ty::MapSlots => {
                let (generic, global) = self.pointer_param(addr);
                Binding::Slots { generic, global }
            }
            Ty::Vector(..) | Ty::Shared { .. } | Ty::Handle(_) | Ty::Unit | Ty::MapEdit(_) => {
                self.internal("parameter of a type the checker rejects");
                Binding::Value {
                    val: Val::Unit,
                    mutable: false,
                }
            }
        }
    }

    /// A pointer parameter at `addr`: its generic address (`ld.param.u64`) and the same in the
    /// global window (`cvta.to.global.u64`).
    fn pointer_param(&mut self, addr: Operand) -> (String, String) {
        let generic = self.reg(RegClass::B64);
        self.emit(Instruction::new(
            Opcode::Ld,
            &["param", "u64"],
            vec![Operand::reg(&generic), addr],
        ));
        let global = self.reg(RegClass::B64);
        self.emit(Instruction::new(
            Opcode::Cvta,
            &["to", "global", "u64"],
            vec![Operand::reg(&global), Operand::reg(&generic)],
        ));
        (generic, global)
    }

    /// Reports a lowering invariant that the checker should have guaranteed. After a reported
    /// error (a literal out of range, say) the lowering goes on with placeholder values, and
    /// what it then cannot lower is a consequence, not news.
    fn internal(&mut self, what: &str) {
        if self.diag.has_errors() {
            return;
        }
        let span = self.span;
        self.diag.error(
            span,
            format!("internal error in #[kernel] lowering ({what}); please report this kernel"),
        );
    }

    fn reg(&mut self, class: RegClass) -> String {
        let slot = &mut self.regs[class as usize];
        *slot += 1;
        let r = format!("{}{}", class.prefix(), slot);
        self.names.made(&r, self.extent());
        r
    }

    /// What is being lowered, from its first token to its last.
    fn extent(&self) -> Extent {
        Extent {
            first: self.span,
            last: self.span_last,
        }
    }

    fn new_label(&mut self) -> String {
        self.labels += 1;
        format!("$L__{}_{}", self.kernel, self.labels)
    }

    fn place_label(&mut self, label: String) {
        let span = self.span;
        self.statements
            .push((Statement::Label(label), span, self.site));
    }

    /// Sets the source position for the `.loc` of the instructions that follow.
    fn mark_statement(&mut self, statement: &impl quote::ToTokens) {
        let extent = Extent::of(statement);
        let span = extent.span();
        self.span = span;
        self.span_last = extent.last;
        self.set_loc(span);
    }

    /// The `.loc` of the instructions that follow: the start of `span`.
    fn set_loc(&mut self, span: RustSpan) {
        let start = span.start();
        if start.line > 0 {
            let file = span.file();
            let index = match self.files.iter().position(|f| *f == file) {
                Some(k) => k,
                None => {
                    self.files.push(file);
                    self.files.len() - 1
                }
            };
            self.pending_loc = Some((index as u32 + 1, start.line as u32, start.column as u32 + 1));
        }
    }

    fn emit(&mut self, inst: Instruction) {
        let span = self.span;
        if let Some(pos) = self.pending_loc.take()
            && self.last_loc != Some(pos)
        {
            self.last_loc = Some(pos);
            self.statements.push((
                Statement::Loc(Loc {
                    file: pos.0,
                    line: pos.1,
                    col: pos.2,
                    rest: None,
                }),
                span,
                self.site,
            ));
        }
        self.statements
            .push((Statement::Instruction(inst), span, self.site));
    }

    fn emit_guarded(&mut self, pred: &str, negated: bool, inst: Instruction) {
        self.emit(inst.guarded(Some(Guard {
            negated,
            pred: pred.to_string(),
        })));
    }

    fn branch(&mut self, label: &str) {
        self.emit(Instruction::new(
            Opcode::Bra,
            &[],
            vec![Operand::sym(label)],
        ));
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn bind(&mut self, name: String, binding: Binding) {
        self.forget_clobber(&name);
        match &binding {
            Binding::Value { val, .. } => self.name_value(val, &name),
            Binding::Global { base, .. }
            | Binding::Shared { base, .. }
            | Binding::Map { addr: base, .. } => self.names.bind(base, &name),
            Binding::Slots { generic, global } => {
                self.names.bind(generic, &name);
                self.names.bind(global, &name);
            }
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, binding);
        }
    }

    /// Records that the registers of `val` hold the binding `name` (lanes as `name[k]`).
    fn name_value(&mut self, val: &Val, name: &str) {
        match val {
            Val::Reg(_, r) => self.names.bind(r, name),
            Val::Vector(_, lanes) => {
                for (k, lane) in lanes.iter().enumerate() {
                    self.name_value(lane, &format!("{name}[{k}]"));
                }
            }
            Val::Imm(..) | Val::Handle(_) | Val::Unit => {}
        }
    }

    fn ty(&self, e: &syn::Expr) -> Ty {
        self.types.of(e)
    }

    /// The operand for a scalar value.
    fn operand(&self, v: &Val) -> Operand {
        match v {
            Val::Reg(_, r) => Operand::reg(r),
            Val::Imm(_, imm) => Operand::Imm(*imm),
            Val::Vector(_, lanes) => {
                Operand::Vector(lanes.iter().map(|l| self.operand(l)).collect())
            }
            Val::Handle(_) | Val::Unit => Operand::Sink,
        }
    }

    /// Puts a scalar value in a register (immediates get a `mov`).
    fn in_reg(&mut self, v: Val) -> String {
        match v {
            Val::Reg(_, r) => r,
            Val::Imm(prim, imm) => {
                let r = self.reg(prim.class());
                let ty = prim.bits().name();
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &[ty],
                    vec![Operand::reg(&r), Operand::Imm(imm)],
                ));
                r
            }
            Val::Vector(..) | Val::Handle(_) | Val::Unit => {
                self.internal("vector where a scalar was expected");
                self.reg(RegClass::B32)
            }
        }
    }

    /// Copies a value into fresh registers, so that later assignments to its source do not
    /// change it (a `let` binding, a read of a mutable binding).
    fn copy(&mut self, v: Val) -> Val {
        match v {
            Val::Reg(prim, r) => {
                let d = self.reg(prim.class());
                let ty = prim.bits().name();
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &[ty],
                    vec![Operand::reg(&d), Operand::reg(&r)],
                ));
                Val::Reg(prim, d)
            }
            Val::Imm(prim, imm) => Val::Reg(prim, self.in_reg(Val::Imm(prim, imm))),
            Val::Vector(prim, lanes) => {
                Val::Vector(prim, lanes.into_iter().map(|l| self.copy(l)).collect())
            }
            // Handles are moved or borrowed, never copied: methods update their registers in place.
            Val::Handle(h) => Val::Handle(h),
            Val::Unit => Val::Unit,
        }
    }

    /// Moves `src` into the registers of `dst` (an assignment to a binding).
    fn assign_to(&mut self, dst: &Val, src: Val) {
        match (dst, src) {
            // A branch that ended in `break`, `continue` or `return` has no value to move.
            (_, Val::Unit) => {}
            // A handle given back to its own binding (`cluster = cluster.arrive().wait()` in a
            // loop): the same barrier, nothing to move; registers of a changed handle move.
            (Val::Handle(d), Val::Handle(s)) => match (&**d, *s) {
                (a, b) if *a == b => {}
                (sync::HVal::Arrival { state: d, .. }, sync::HVal::Arrival { state: s, .. }) => {
                    self.emit(Instruction::new(
                        Opcode::Mov,
                        &["b64"],
                        vec![Operand::reg(d), Operand::reg(&s)],
                    ));
                }
                (
                    sync::HVal::Retired { barrier: d, .. },
                    sync::HVal::Retired { barrier: s, .. },
                ) => {
                    self.emit(Instruction::new(
                        Opcode::Mov,
                        &["b32"],
                        vec![Operand::reg(d), Operand::reg(&s)],
                    ));
                }
                // `acc = accumulator::<..>()` again: the binding's registers take the new values
                // (the types are equal, so are the shapes and whether a batch is open).
                (sync::HVal::Acc(d), sync::HVal::Acc(s)) if d.regs.len() == s.regs.len() => {
                    for (d, s) in d.regs.iter().zip(&s.regs) {
                        self.emit(Instruction::new(
                            Opcode::Mov,
                            &["f32"],
                            vec![Operand::reg(d), Operand::reg(s)],
                        ));
                    }
                }
                // `slot = consumer.wait()` again after the held slot's release: the binding's
                // addresses take the new stage's (the consumer's position is shared).
                (sync::HVal::ConsumerSlot(dp, ds, d), sync::HVal::ConsumerSlot(sp, ss, s))
                    if *dp == sp && *ds == ss =>
                {
                    for (d, s) in [(&d.barrier, &s.barrier), (&d.buffer, &s.buffer)] {
                        self.emit(Instruction::new(
                            Opcode::Mov,
                            &["b32"],
                            vec![Operand::reg(d), Operand::reg(s)],
                        ));
                    }
                }
                // `p = softmax.step(..)` in a loop: the binding's fragment takes the new words.
                (sync::HVal::Fragment(d), sync::HVal::Fragment(s)) if d.len() == s.len() => {
                    for (d, s) in d.iter().zip(&s) {
                        self.emit(Instruction::new(
                            Opcode::Mov,
                            &["b32"],
                            vec![Operand::reg(d), Operand::reg(s)],
                        ));
                    }
                }
                _ => self.internal("assignment of a different handle"),
            },
            (Val::Reg(prim, d), src) => {
                let ty = prim.bits().name();
                let src = self.operand(&src);
                self.emit(Instruction::new(
                    Opcode::Mov,
                    &[ty],
                    vec![Operand::reg(d), src],
                ));
            }
            (Val::Vector(_, dl), Val::Vector(_, sl)) if dl.len() == sl.len() => {
                for (d, s) in dl.iter().zip(sl) {
                    self.assign_to(d, s);
                }
            }
            _ => self.internal("assignment between values of different shapes"),
        }
    }
}

/// `e` without the parentheses and invisible groups around it.
fn strip(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip(&p.expr),
        syn::Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}
