//! The PTX reader: text, ours or nvcc's, to the [model](crate::model).
//!
//! `parse(&write_string(&m)) == Ok(m)` for every well-formed model, and `parse` never
//! panics: malformed text gives a [`ReadError`] with the line and column of the offending
//! token.
//!
//! What the model does not name is kept rather than rejected, so that nvcc output reads
//! whole:
//! - unknown opcodes become [`Opcode::Other`](crate::model::Opcode::Other);
//! - module-scope directives the model does not know (`.section .debug_str { ... }`,
//!   `.alias`, a variable of type `.texref` or with a `generic(...)` initializer) become
//!   [`Item::Verbatim`](crate::model::Item::Verbatim) with their exact text;
//! - a body directive whose arguments are not integers and strings, such as
//!   `prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);`, becomes a label and a
//!   [`Directive`](crate::model::Directive) whose `name` holds the keyword and argument text
//!   (`callprototype (.param .b32 _) _ (.param .b64 _)`) and whose `args` are empty;
//! - comments, including nvcc's `// .globl name`, are dropped.
//!
//! Inside a body, a `%`-less name declared `.reg` in an enclosing scope (nvcc's inline asm:
//! `{ .reg .pred p; ... selp.u32 %r76, 1, 0, p; }`) is read as a register operand or address
//! base, not as a symbol.
//!
//! Declarations naming several variables (`.reg .b32 %a, %b;`) become one declaration per
//! variable, each with the span of the declaration.

mod body;
mod decl;
mod lex;
mod operand;
mod parse;
mod scope;

#[cfg(test)]
mod tests_errors;
#[cfg(test)]
mod tests_syntax;

use crate::model::Module;
use std::fmt;

/// Why text is not PTX the reader accepts, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    /// The 1-based line of the offending token.
    pub line: u32,
    /// The 1-based column (in characters) of the offending token.
    pub col: u32,
    /// Lowercase, says what was found and what was expected.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.col, self.message
        )
    }
}

impl std::error::Error for ReadError {}

/// Parses one PTX module.
pub fn parse(text: &str) -> Result<Module, ReadError> {
    parse::Parser::new(text).module().map_err(|fail| fail.error)
}
