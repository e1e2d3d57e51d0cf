//! What a finding becomes once the runs of its kernel are known ([`crate::witness`]).
//!
//! - A rule a run broke is reported at its lint's level with the run as its witness; when a
//!   static lint found the same statement, its message and explanation (why a branch is
//!   divergent) are kept and the witness added. A run under a launch the kernel may never get
//!   (a guessed block for a kernel whose roles read the y or z thread index) makes it a
//!   warning that says it is unproven, witness attached.
//! - A static candidate no run reproduced is not denied. When some run executed its statement
//!   and kept the rule, it is dropped: the lint's pattern matched correct code — unless its
//!   reason runs through a loaded value (the runs' memory is made up), which keeps it unproven. When no run
//!   reached it, it is a warning that says it is unproven, and why (the runs did not reach the
//!   statement; what stopped runs the analyzer could not judge).
//! - A candidate of a lint that a run proved at another statement of the function becomes a
//!   related place of that finding: the static explanation of what the witness shows.
//! - Warning-only lints (`divergent_exit_before_barrier`) stay as they are: a warning needs no
//!   witness.

use crate::analysis::FunctionAnalysis;
use crate::diagnostic::{Diagnostic, Level};
use crate::lints::{LintConfig, divergent_exit_before_barrier};
use crate::witness::Proof;

/// The findings of one function from its static candidates and the proofs of the entries that
/// run it.
pub(crate) fn merge(
    fa: &FunctionAnalysis,
    candidates: Vec<Diagnostic>,
    proofs: &[&Proof],
    config: &LintConfig,
) -> Vec<Diagnostic> {
    let name = &fa.function.name;
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut used = vec![false; candidates.len()];
    for proof in proofs {
        for p in proof.findings.iter().filter(|p| &p.function == name) {
            let level = config.level(p.lint.name);
            if level == Level::Allow
                || out
                    .iter()
                    .any(|d| d.lint == p.lint.name && d.stmt == Some(p.stmt))
            {
                continue;
            }
            let twin = candidates
                .iter()
                .position(|c| c.lint == p.lint.name && c.stmt == Some(p.stmt));
            let mut d = match twin {
                Some(i) => {
                    used[i] = true;
                    candidates[i].clone()
                }
                None => Diagnostic {
                    lint: p.lint.name,
                    function: name.clone(),
                    stmt: Some(p.stmt),
                    span: fa.body.span(p.stmt),
                    message: p.message.clone(),
                    notes: std::iter::once(format!("PTX ISA {}", p.spec))
                        .filter(|_| !p.spec.is_empty())
                        .chain(p.notes.iter().cloned())
                        .collect(),
                    source: fa.source(p.stmt).map(|s| s.0),
                    ..Diagnostic::default()
                },
            };
            d.level = level;
            if let Some(why) = &p.unproven {
                d.level = d.level.min(Level::Warn);
                d.message = format!("{} (unproven)", d.message);
                d.notes.push(format!("unproven: {why}"));
            }
            let mut witness = p.witness.clone();
            for step in &mut witness.steps {
                if &step.function == name && step.span.line > 0 {
                    step.source = fa.source(step.stmt).map(|s| s.0);
                }
            }
            d.witness = Some(witness);
            out.push(d);
        }
    }
    for (i, mut c) in candidates.into_iter().enumerate() {
        if used[i] {
            continue;
        }
        if c.lint == divergent_exit_before_barrier::LINT.name
            || proofs.is_empty() && c.level == Level::Warn
        {
            out.push(c);
            continue;
        }
        // A run proved the same lint at another statement of the function (a tx mismatch
        // found where the phase never completes, not at its expect_tx): the candidate is that
        // finding's explanation, kept with it rather than reported on its own.
        if let (Some(stmt), Some(d)) = (
            c.stmt,
            out.iter_mut()
                .find(|d| d.lint == c.lint && d.witness.is_some() && d.function == c.function),
        ) {
            d.related.push(crate::diagnostic::Related {
                stmt,
                span: c.span,
                message: format!("the analysis points here: {}", c.message),
                source: c.source.clone(),
            });
            continue;
        }
        let stmt = c.stmt;
        let reached = stmt.is_some_and(|s| proofs.iter().any(|p| p.reached(name, s)));
        // A candidate whose reason runs through a value the thread loaded (a divergent branch
        // on loaded data) is about data the runs made up: reaching it proves nothing.
        let loaded = c.related.iter().any(|r| {
            r.why().is_some_and(|w| {
                matches!(w.cause, crate::diagnostic::WhyCause::Op(_)) || reads_memory(fa, r.stmt)
            })
        });
        if reached && !loaded {
            continue;
        }
        let mut why: Vec<String> = Vec::new();
        if reached {
            why.push("it depends on values loaded from memory, which the runs made up; runs that reached it with theirs kept the rule".into());
        } else if proofs.is_empty() {
            why.push("no kernel of the module runs this function".into());
        } else {
            why.push("no run of the kernel reached this statement with the parameters and schedules the analyzer tried".into());
        }
        for p in proofs {
            for u in &p.unproven {
                if !why.contains(u) {
                    why.push(u.clone());
                }
            }
        }
        c.level = c.level.min(Level::Warn);
        c.message = format!("{} (unproven)", c.message);
        c.notes.push(format!("unproven: {}", why.join("; ")));
        out.push(c);
    }
    out
}

/// Whether statement `stmt` reads memory the runs make up (a load or atomic that is not of the
/// parameters).
fn reads_memory(fa: &FunctionAnalysis, stmt: phasegate_ptx::StmtId) -> bool {
    use phasegate_ptx::Opcode;
    fa.instructions().any(|(s, inst)| {
        s == stmt && matches!(inst.opcode, Opcode::Ld | Opcode::Atom) && !inst.has("param")
    })
}
