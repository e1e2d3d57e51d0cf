//! A finding about a kernel: what is wrong, where, and what to do.

use phasegate_ptx::{Span, StmtId};
use std::fmt;

/// How seriously a finding is taken.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warning",
            Level::Deny => "error",
        }
    }

    /// The name used on command lines and in `#[kernel(allow(...))]`: `allow`, `warn`, `deny`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    pub fn from_name(name: &str) -> Option<Level> {
        match name {
            "allow" => Some(Level::Allow),
            "warn" | "warning" => Some(Level::Warn),
            "deny" | "error" => Some(Level::Deny),
            _ => None,
        }
    }
}

/// A place in the CUDA C++ (or Rust) source, from the `.loc` line in force at a statement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLoc {
    /// The path `.file` names (the index itself when no `.file` line names it).
    pub file: String,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for SourceLoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)?;
        if self.col > 0 {
            write!(f, ":{}", self.col)?;
        }
        Ok(())
    }
}

/// The other side of a finding (the first of two arrives, the branch a barrier sits under).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub stmt: StmtId,
    /// Its position in PTX text (none when the module was not read from text).
    pub span: Span,
    /// What is there, lowercase: "the first arrive is here".
    pub message: String,
    pub source: Option<SourceLoc>,
}

/// One finding, located at a statement of a function of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule that found it (`aligned_barrier_divergence`, `ptx_feature`).
    pub lint: &'static str,
    pub level: Level,
    /// The `.entry` or `.func` it is in.
    pub function: String,
    pub stmt: Option<StmtId>,
    /// The position in PTX text, when the module was read from text.
    pub span: Span,
    /// Lowercase, without a trailing period.
    pub message: String,
    /// Further places and advice.
    pub notes: Vec<String>,
    /// The other places the finding is about, with their statements so that a caller can map
    /// them to its own spans.
    pub related: Vec<Related>,
    /// The source position from `.loc`, when the PTX has it.
    pub source: Option<SourceLoc>,
}

impl Default for Diagnostic {
    fn default() -> Self {
        Diagnostic {
            lint: "",
            level: Level::Deny,
            function: String::new(),
            stmt: None,
            span: Span::NONE,
            message: String::new(),
            notes: Vec::new(),
            related: Vec::new(),
            source: None,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {} (in `{}`)",
            self.level.as_str(),
            self.lint,
            self.message,
            self.function
        )?;
        for r in &self.related {
            write!(f, "\n  = note: line {}: {}", r.span.line, r.message)?;
        }
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        Ok(())
    }
}
