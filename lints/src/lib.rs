//! `phasegate-lints`: the barrier analyzer over the PTX model.
//!
//! Analyses keep their results in side tables keyed by statement or block; they never change
//! the model:
//! - [`cfg`](mod@cfg): basic blocks; [`dom`]: dominators, post-dominators, control dependence;
//!   [`loops`]: natural loops;
//! - [`regs`]: registers resolved to variables; [`consts`]: constants, symbolic addresses and
//!   stage indices; [`uniformity`]: cluster-/CTA-/warp-uniform or divergent, with the reason;
//! - [`barriers`], [`mbar`]: barrier instructions and mbarrier objects; [`protocol`]: what the
//!   per-thread protocol analyses share (edge facts on loop counters, run conditions, dataflow);
//! - [`lints`]: one lint per file.
//!
//! Entry points: [`lint_module`] (every function of a module, e.g. `phasegate lint`) and
//! [`lint_function`] (one function, e.g. from `#[kernel]`).
//!
//! ```
//! let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!     .visible .entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n\
//!     mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra L;\n bar.sync 0;\nL:\n membar.cta;\n ret;\n}\n";
//! let module = phasegate_ptx::parse(ptx).unwrap();
//! let found = phasegate_lints::lint_module(&module, &phasegate_lints::LintConfig::default());
//! assert_eq!(found[0].lint, "aligned_barrier_divergence");
//! ```

#![warn(missing_docs)]
// Analyses walk parallel per-block and per-statement tables by index.
#![allow(clippy::needless_range_loop, clippy::collapsible_match)]

pub mod analysis;
pub mod barriers;
pub mod cfg;
pub mod consts;
pub mod diagnostic;
pub mod dom;
pub mod lints;
pub mod loops;
pub mod mbar;
pub mod protocol;
pub mod regs;
pub mod uniformity;

pub use diagnostic::{Diagnostic, Level, Related, SourceLoc};
pub use lints::{ALL as LINTS, LintConfig, LintInfo, UnknownLint};

use phasegate_ptx::{Function, Module};

pub use loops::MAX_LOOP_MEMBERSHIPS;

/// The name of the error a function gets when its loops nest past [`MAX_LOOP_MEMBERSHIPS`]; it
/// is not a lint and cannot be allowed. There is no limit on a function's size: the analyses
/// are near-linear in it (a 200,000-statement entry lints in well under 2 s, `cargo bench
/// --bench lint`).
pub const ANALYSIS_LIMIT: &str = "analysis_limit";

/// Lints one function of `module` (which supplies `.file` names and module-scope variables).
/// Findings come in statement order; allowed lints report nothing. A function whose loops nest
/// past [`MAX_LOOP_MEMBERSHIPS`] is not analyzed and gets one [`ANALYSIS_LIMIT`] error.
///
/// ```rust
/// use phasegate_lints::{Level, LintConfig, lint_function};
///
/// // Thread 0 skips the CTA barrier that the others wait at, and goes on.
/// let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
///     .visible .entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n\
///     mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra L;\n bar.sync 0;\n\
///     L:\n membar.cta;\n ret;\n}\n";
/// let module = phasegate_ptx::parse(ptx).unwrap();
/// let k = module.function("k").unwrap();
///
/// let found = lint_function(&module, k, &LintConfig::default());
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].lint, found[0].level), ("aligned_barrier_divergence", Level::Deny));
/// assert_eq!(found[0].span.line, 11);
///
/// // Allowed, the lint reports nothing.
/// let config = LintConfig::new().with("aligned_barrier_divergence", Level::Allow).unwrap();
/// assert!(lint_function(&module, k, &config).is_empty());
/// ```
pub fn lint_function(module: &Module, function: &Function, config: &LintConfig) -> Vec<Diagnostic> {
    let fa = match analysis::FunctionAnalysis::build(module, function) {
        Ok(Some(fa)) => fa,
        Ok(None) => return Vec::new(),
        Err(members) => return vec![analysis_limit(function, members)],
    };
    let cx = lints::Context::new(&fa);
    let mut sink = lints::Sink::new(config);
    lints::run_all(&cx, &mut sink);
    let mut out = sink.out;
    out.sort_by_key(|d| (d.stmt, d.lint));
    out
}

/// The [`ANALYSIS_LIMIT`] error, at the function's first statement.
fn analysis_limit(function: &Function, members: usize) -> Diagnostic {
    let span = function
        .body
        .as_ref()
        .filter(|b| !b.is_empty())
        .map(|b| b.span(phasegate_ptx::StmtId(0)))
        .unwrap_or_default();
    Diagnostic {
            lint: ANALYSIS_LIMIT,
            level: Level::Deny,
            function: function.name.clone(),
            stmt: None,
            span,
            message: format!(
                "the loops of `{}` nest too deeply to analyze: at least {members} block-in-loop memberships, more than the analyzer's limit of {MAX_LOOP_MEMBERSHIPS}; it was not analyzed",
                function.name,
            ),
            notes: vec![
                "the memberships grow with the square of the nesting depth; compilers nest loops a few levels deep".into(),
            ],
            ..Diagnostic::default()
    }
}

/// Lints every function with a body, in module order.
pub fn lint_module(module: &Module, config: &LintConfig) -> Vec<Diagnostic> {
    module
        .functions()
        .flat_map(|f| lint_function(module, f, config))
        .collect()
}
