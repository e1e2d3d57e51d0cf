//! The PTX writer: the model to text that ptxas, nvcc and the CUDA driver accept.
//!
//! Output is canonical (one statement per line, tabs as nvcc indents, integers in decimal,
//! floats as exact `0f`/`0d` bit patterns), so that `read(write(m)) == m`.

use crate::model::*;
use std::fmt::{self, Write};

/// Writes a whole module as PTX text.
///
/// The text reads back to the same model, whoever wrote the input: nvcc's spacing and
/// comments are not kept, the statements are.
///
/// ```rust
/// let nvcc = ".version 8.0\n.target sm_90\n.address_size 64\n\
///     .visible .entry k()\n{\n  // a comment\n  bar.sync 0;\n  ret;\n}\n";
/// let module = phasegate_ptx::parse(nvcc).unwrap();
/// let text = phasegate_ptx::write_string(&module);
/// assert!(!text.contains("comment"));
/// assert_eq!(phasegate_ptx::parse(&text).unwrap(), module);
/// ```
pub fn write_string(module: &Module) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_module(&mut out, module);
    out
}

fn write_module(out: &mut String, module: &Module) -> fmt::Result {
    writeln!(out, ".version {}", module.version)?;
    write!(out, ".target {}", module.target.sm)?;
    for option in &module.target.options {
        write!(out, ", {option}")?;
    }
    writeln!(out)?;
    writeln!(out, ".address_size {}", module.address_size)?;
    for item in &module.items {
        writeln!(out)?;
        match item {
            Item::File(file) => {
                write!(out, ".file {} \"{}\"", file.index, escape(&file.path))?;
                for e in &file.extra {
                    write!(out, ", {e}")?;
                }
                writeln!(out)?;
            }
            Item::Var(decl) => {
                write_decl(out, decl)?;
                writeln!(out, ";")?;
            }
            Item::Function(function) => write_function(out, function)?,
            Item::Verbatim(text) => writeln!(out, "{text}")?,
        }
    }
    Ok(())
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn write_function(out: &mut String, f: &Function) -> fmt::Result {
    if let Some(linkage) = f.linkage {
        write!(out, "{} ", linkage.as_str())?;
    }
    out.push_str(match f.kind {
        FunctionKind::Entry => ".entry ",
        FunctionKind::Func => ".func ",
    });
    if !f.returns.is_empty() {
        out.push('(');
        for (i, r) in f.returns.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_decl(out, r)?;
        }
        out.push_str(") ");
    }
    out.push_str(&f.name);
    out.push('(');
    for (i, p) in f.params.iter().enumerate() {
        out.push_str(if i == 0 { "\n\t" } else { ",\n\t" });
        write_decl(out, p)?;
    }
    if !f.params.is_empty() {
        out.push('\n');
    }
    out.push(')');
    for d in &f.directives {
        out.push('\n');
        write_directive(out, d)?;
    }
    match &f.body {
        None => out.push_str(";\n"),
        Some(body) => {
            out.push_str("\n{\n");
            let mut depth = 1usize;
            for statement in body.statements() {
                if matches!(statement, Statement::ScopeClose) {
                    depth = depth.saturating_sub(1);
                }
                let indent = if matches!(statement, Statement::Label(_)) {
                    0
                } else {
                    depth
                };
                for _ in 0..indent {
                    out.push('\t');
                }
                write_statement(out, statement)?;
                out.push('\n');
                if matches!(statement, Statement::ScopeOpen) {
                    depth += 1;
                }
            }
            out.push_str("}\n");
        }
    }
    Ok(())
}

fn write_directive(out: &mut String, d: &Directive) -> fmt::Result {
    write!(out, ".{}", d.name)?;
    for (i, arg) in d.args.iter().enumerate() {
        out.push_str(if i == 0 { " " } else { ", " });
        match arg {
            DirectiveArg::Int(v) => write!(out, "{v}")?,
            DirectiveArg::Str(s) => write!(out, "\"{}\"", escape(s))?,
        }
    }
    Ok(())
}

/// Writes one statement without indentation or newline.
pub fn write_statement(out: &mut String, statement: &Statement) -> fmt::Result {
    match statement {
        Statement::Decl(decl) => {
            write_decl(out, decl)?;
            out.push(';');
        }
        Statement::Label(name) => write!(out, "{name}:")?,
        Statement::Instruction(inst) => write_instruction(out, inst)?,
        Statement::Loc(loc) => {
            write!(out, ".loc\t{} {} {}", loc.file, loc.line, loc.col)?;
            if let Some(rest) = &loc.rest {
                write!(out, ", {rest}")?;
            }
        }
        Statement::Directive(d) => {
            write_directive(out, d)?;
            out.push(';');
        }
        Statement::ScopeOpen => out.push('{'),
        Statement::ScopeClose => out.push('}'),
    }
    Ok(())
}

/// Writes a declaration without the trailing `;`.
pub fn write_decl(out: &mut String, d: &VarDecl) -> fmt::Result {
    if let Some(linkage) = d.linkage {
        write!(out, "{} ", linkage.as_str())?;
    }
    out.push_str(d.space.as_str());
    // `.align` always precedes the type: `.param .align 8 .u64 .ptr .global .align 16 x`
    // keeps the parameter's alignment apart from its pointee's, as ptxas requires.
    if let Some(a) = d.align {
        write!(out, " .align {a}")?;
    }
    if let Some(v) = d.vector {
        write!(out, " .v{v}")?;
    }
    write!(out, " .{}", d.ty.name())?;
    if let Some((space, align)) = d.ptr {
        out.push_str(" .ptr");
        if let Some(space) = space {
            write!(out, " {}", space.as_str())?;
        }
        if let Some(a) = align {
            write!(out, " .align {a}")?;
        }
    }
    write!(out, " {}", d.name)?;
    if let Some(n) = d.range {
        write!(out, "<{n}>")?;
    }
    for dim in &d.array {
        match dim {
            Some(n) => write!(out, "[{n}]")?,
            None => out.push_str("[]"),
        }
    }
    if let Some(init) = &d.init {
        out.push_str(" = ");
        write_init(out, init)?;
    }
    Ok(())
}

fn write_init(out: &mut String, init: &Initializer) -> fmt::Result {
    match init {
        Initializer::Scalar(op) => write_operand(out, op),
        Initializer::List(items) => {
            out.push('{');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_init(out, item)?;
            }
            out.push('}');
            Ok(())
        }
    }
}

/// Writes one instruction without indentation, with its `;`.
pub fn write_instruction(out: &mut String, inst: &Instruction) -> fmt::Result {
    if let Some(g) = &inst.guard {
        write!(out, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
    }
    out.push_str(inst.opcode.name());
    for m in &inst.modifiers {
        out.push('.');
        out.push_str(m);
    }
    for (i, op) in inst.operands.iter().enumerate() {
        out.push_str(if i == 0 { " \t" } else { ", " });
        write_operand(out, op)?;
    }
    out.push(';');
    Ok(())
}

/// `base+offset` inside an address's brackets.
fn write_address(out: &mut String, addr: &Address) -> fmt::Result {
    match &addr.base {
        AddressBase::Reg(r) => write_offset(out, r, addr.offset),
        AddressBase::Symbol(s) => write_offset(out, s, addr.offset),
        AddressBase::Absolute => write!(out, "{}", addr.offset),
    }
}

/// Writes one operand.
pub fn write_operand(out: &mut String, op: &Operand) -> fmt::Result {
    match op {
        Operand::Reg(r) => out.push_str(r),
        Operand::Imm(imm) => write_imm(out, *imm)?,
        Operand::Symbol(s) => out.push_str(s),
        Operand::SymbolOffset(s, off) => write_offset(out, s, *off)?,
        Operand::Address(addr) => {
            out.push('[');
            write_address(out, addr)?;
            out.push(']');
        }
        Operand::TensorAddress(map, coords) => {
            out.push('[');
            write_address(out, map)?;
            out.push_str(", ");
            write_operand(out, &Operand::Vector(coords.clone()))?;
            out.push(']');
        }
        Operand::Vector(items) | Operand::List(items) => {
            let (open, close) = if matches!(op, Operand::Vector(_)) {
                ('{', '}')
            } else {
                ('(', ')')
            };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_operand(out, item)?;
            }
            out.push(close);
        }
        Operand::Not(inner) => {
            out.push('!');
            write_operand(out, inner)?;
        }
        Operand::Pair(a, b) => {
            write_operand(out, a)?;
            out.push('|');
            write_operand(out, b)?;
        }
        Operand::Sink => out.push('_'),
    }
    Ok(())
}

fn write_offset(out: &mut String, base: &str, offset: i64) -> fmt::Result {
    out.push_str(base);
    if offset != 0 {
        write!(out, "+{offset}")?;
    }
    Ok(())
}

fn write_imm(out: &mut String, imm: Imm) -> fmt::Result {
    match imm {
        Imm::Int(v) => write!(out, "{v}"),
        Imm::F32(bits) => write!(out, "0f{bits:08X}"),
        Imm::F64(bits) => write!(out, "0d{bits:016X}"),
    }
}

impl fmt::Display for Instruction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_instruction(&mut s, self)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_operand(&mut s, self)?;
        f.write_str(&s)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&write_string(self))
    }
}
