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

/// The most statements a function body may have for the analyzer to run on it. Several
/// analyses keep per-loop block sets or compare pairs of blocks, barriers or mbarrier objects,
/// so time and memory grow faster than size; at this bound the worst inputs known (thousands of
/// nested loops or of back edges) take a few seconds and under 200 MB. The kernels of the corpus
/// are ten times smaller. A larger function gets one [`ANALYSIS_LIMIT`] error instead of findings.
pub const MAX_STATEMENTS: usize = 10_000;

/// The name of the error a function over [`MAX_STATEMENTS`] gets; it is not a lint and cannot
/// be allowed.
pub const ANALYSIS_LIMIT: &str = "analysis_limit";

/// Lints one function of `module` (which supplies `.file` names and module-scope variables).
/// Findings come in statement order; allowed lints report nothing. A body of more than
/// [`MAX_STATEMENTS`] statements is not analyzed and gets one [`ANALYSIS_LIMIT`] error.
pub fn lint_function(module: &Module, function: &Function, config: &LintConfig) -> Vec<Diagnostic> {
    if let Some(body) = &function.body
        && body.len() > MAX_STATEMENTS
    {
        return vec![Diagnostic {
            lint: ANALYSIS_LIMIT,
            level: Level::Deny,
            function: function.name.clone(),
            stmt: None,
            span: body.span(phasegate_ptx::StmtId(0)),
            message: format!(
                "`{}` has {} statements, more than the analyzer's limit of {MAX_STATEMENTS}; it was not analyzed",
                function.name,
                body.len()
            ),
            notes: vec!["the limit bounds the analyzer's time and memory on any input".into()],
            ..Diagnostic::default()
        }];
    }
    let Some(fa) = analysis::FunctionAnalysis::new(module, function) else {
        return Vec::new();
    };
    let cx = lints::Context::new(&fa);
    let mut sink = lints::Sink::new(config);
    lints::run_all(&cx, &mut sink);
    let mut out = sink.out;
    out.sort_by_key(|d| (d.stmt, d.lint));
    out
}

/// Lints every function with a body, in module order.
pub fn lint_module(module: &Module, config: &LintConfig) -> Vec<Diagnostic> {
    module
        .functions()
        .flat_map(|f| lint_function(module, f, config))
        .collect()
}
