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
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {} (in `{}`)", self.level.as_str(), self.lint, self.message, self.function)?;
        for note in &self.notes {
            write!(f, "\n  = note: {note}")?;
        }
        Ok(())
    }
}
