//! `phasegate-lints`: analyses of the PTX model and the diagnostics they report.
//!
//! Analyses keep their results in side tables keyed by statement; they never change the model.

pub mod diagnostic;

pub use diagnostic::{Diagnostic, Level};
