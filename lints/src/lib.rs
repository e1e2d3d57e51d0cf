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
//! A `deny` finding is a claim about a run: it carries a witness, a run of the kernel in the
//! simulator that breaks the rule ([`witness`]). Here thread 0 skips the CTA barrier the rest of
//! its warp waits at, and waits at the next one:
//!
//! ```
//! let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
//!     .visible .entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n\
//!     mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra L;\n bar.sync 0;\nL:\n bar.sync 0;\n ret;\n}\n";
//! let module = phasegate_ptx::parse(ptx).unwrap();
//! let found = phasegate_lints::lint_module(&module, &phasegate_lints::LintConfig::default());
//! assert_eq!(found.len(), 1);
//! assert_eq!(found[0].lint, "aligned_barrier_divergence");
//! // `phasegate sim --witness` replays the run.
//! let witness = found[0].witness.as_ref().unwrap();
//! assert!(witness.replay.starts_with("block="), "{}", witness.replay);
//! ```

#![warn(missing_docs)]
// Analyses walk parallel per-block and per-statement tables by index.
#![allow(clippy::needless_range_loop, clippy::collapsible_match)]

pub mod analysis;
pub mod barriers;
mod calls;
pub mod cfg;
pub mod consts;
pub mod diagnostic;
pub mod dom;
pub mod lints;
pub mod loops;
pub mod mbar;
mod par;
pub mod protocol;
mod proven;
pub mod regs;
pub mod uniformity;
pub mod witness;

pub use diagnostic::{Diagnostic, Level, Related, SourceLoc, Witness, WitnessStep};
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
/// // Thread 0 skips the CTA barrier that the rest of its warp waits at, and waits at the next.
/// let ptx = ".version 8.0\n.target sm_90\n.address_size 64\n\
///     .visible .entry k()\n{\n .reg .pred %p<2>;\n .reg .b32 %r<2>;\n\
///     mov.u32 %r1, %tid.x;\n setp.eq.u32 %p1, %r1, 0;\n @%p1 bra L;\n bar.sync 0;\n\
///     L:\n bar.sync 0;\n ret;\n}\n";
/// let module = phasegate_ptx::parse(ptx).unwrap();
/// let k = module.function("k").unwrap();
///
/// let found = lint_function(&module, k, &LintConfig::default());
/// assert_eq!(found.len(), 1);
/// assert_eq!((found[0].lint, found[0].level), ("aligned_barrier_divergence", Level::Deny));
/// assert_eq!(found[0].span.line, 11);
/// // Denied with its witness: the run in which warp 0 reaches the barrier divergent.
/// let witness = found[0].witness.as_ref().unwrap();
/// assert!(witness.steps.iter().any(|s| s.span.line == 11));
///
/// // Allowed, the lint reports nothing.
/// let config = LintConfig::new().with("aligned_barrier_divergence", Level::Allow).unwrap();
/// assert!(lint_function(&module, k, &config).is_empty());
///
/// // Had thread 0 exited instead, the barrier would wait for the non-exited threads only
/// // (PTX ISA §9.7.13.1): the runs complete, and the pattern the static lint matched is dropped.
/// let exits = ptx.replace("L:\n bar.sync 0;", "L:\n membar.cta;");
/// let module = phasegate_ptx::parse(&exits).unwrap();
/// let k = module.function("k").unwrap();
/// assert!(lint_function(&module, k, &LintConfig::default()).is_empty());
/// ```
pub fn lint_function(module: &Module, function: &Function, config: &LintConfig) -> Vec<Diagnostic> {
    let fa = match analysis::FunctionAnalysis::build(module, function) {
        Ok(Some(fa)) => fa,
        Ok(None) => return Vec::new(),
        Err(members) => return vec![analysis_limit(function, members)],
    };
    // The entries that run the function: itself, or those that call it.
    let mut proofs = Vec::new();
    for entry in calls::entries_running(module, &function.name) {
        if entry.name == function.name {
            proofs.push(witness::prove(module, entry, &fa, config.budget()));
        } else if let Ok(Some(efa)) = analysis::FunctionAnalysis::build(module, entry) {
            proofs.push(witness::prove(module, entry, &efa, config.budget()));
        }
    }
    let proofs: Vec<&witness::Proof> = proofs.iter().collect();
    lint_analyzed(&fa, &proofs, config)
}

/// The findings of an analyzed function given the proofs of the entries that run it.
fn lint_analyzed(
    fa: &analysis::FunctionAnalysis,
    proofs: &[&witness::Proof],
    config: &LintConfig,
) -> Vec<Diagnostic> {
    let cx = lints::Context::new(fa);
    let mut sink = lints::Sink::new(config);
    lints::run_all(&cx, &mut sink);
    let mut out = if config.witnesses() {
        proven::merge(fa, sink.out, proofs, config)
    } else {
        sink.out
    };
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

/// The witness runs of every entry of `module` with a body (what [`lint_module`] bases its
/// findings on): the launch, the barrier skeleton of the run that chose it, the findings and
/// what the runs could not decide. The entries run on all cores; each worker analyzes its entry
/// for itself (an analysis is not shared between threads).
pub fn witness_runs(module: &Module, config: &LintConfig) -> Vec<(String, witness::Proof)> {
    let entries: Vec<&Function> = module.entries().filter(|f| f.body.is_some()).collect();
    par::map(&entries, |entry| {
        let proof = match analysis::FunctionAnalysis::build(module, entry) {
            Ok(Some(fa)) => witness::prove(module, entry, &fa, config.budget()),
            _ => witness::Proof::default(),
        };
        (entry.name.clone(), proof)
    })
}

/// Lints every function with a body, in module order. Each entry is run once for its
/// witnesses ([`witness::prove`]); a function's findings use the runs of the entries that run
/// it.
pub fn lint_module(module: &Module, config: &LintConfig) -> Vec<Diagnostic> {
    let proofs: Vec<(String, witness::Proof)> = if config.witnesses() {
        witness_runs(module, config)
    } else {
        Vec::new()
    };
    let running_entries = calls::entries_by_function(module);
    let proof_of: std::collections::HashMap<&str, &witness::Proof> =
        proofs.iter().map(|(n, p)| (n.as_str(), p)).collect();
    // Each function on its own core: its analysis, then its lints under the runs of the
    // entries that run it. A function too large to analyze says so, ahead of the findings.
    let functions: Vec<&Function> = module.functions().collect();
    let per_function = par::map(&functions, |f| {
        match analysis::FunctionAnalysis::build(module, f) {
            Ok(Some(fa)) => {
                let running: Vec<&witness::Proof> = running_entries
                    .get(f.name.as_str())
                    .into_iter()
                    .flatten()
                    .filter_map(|e| proof_of.get(e.name.as_str()).copied())
                    .collect();
                (None, lint_analyzed(&fa, &running, config))
            }
            Ok(None) => (None, Vec::new()),
            Err(members) => (Some(analysis_limit(f, members)), Vec::new()),
        }
    });
    let (limits, findings): (Vec<_>, Vec<_>) = per_function.into_iter().unzip();
    limits
        .into_iter()
        .flatten()
        .chain(findings.into_iter().flatten())
        .collect()
}
