//! What the lints about uniform control share: an instruction's requirement on the control it
//! runs under, why the control falls short of it (a guard, a branch, a loop's trip count), and
//! the reports of both that and of threads leaving the kernel before the instruction. Used by
//! `aligned_barrier_divergence`, `divergent_exit_before_barrier` and
//! `warp_collective_divergence`.

use super::{Context, LintInfo, Sink};
use crate::regs::VarId;
use crate::uniformity::{Level as U, Offending, exit_branches, offending_branch};
use phasegate_ptx::{Instruction, StmtId};

/// What an instruction needs of its control, and how to say it.
pub(crate) struct Requirement {
    /// The least uniform control it may run under.
    pub allowed: U,
    /// The instruction in a message's words: "`bar.sync 0` without a thread count".
    pub what: String,
    /// Who must execute it: "every thread of the CTA".
    pub who: &'static str,
}

/// How a finding of [`report`] cites the rule and what it advises.
pub(crate) struct Rule<'a> {
    /// The spec section: `PTX ISA §9.7.13.1`.
    pub spec: &'a str,
    /// What must be executed alike: `barrier instruction`.
    pub noun: &'a str,
    /// What to do instead.
    pub advice: String,
}

/// Why an instruction's control is less uniform than its requirement allows.
pub(crate) enum Divergence {
    /// Its guard predicate, of this level, with the variable it reads.
    Guard(U, Option<VarId>),
    /// A branch (or a loop's exit branch) around it.
    Branch(Offending),
}

impl Divergence {
    /// The statement that decides: the instruction itself for a guard, else the branch.
    pub(crate) fn decided_at(&self, stmt: StmtId) -> StmtId {
        match self {
            Divergence::Guard(..) => stmt,
            Divergence::Branch(off) => off.stmt,
        }
    }
}

/// Whether `stmt`'s guard, a branch around it or its loop's trip count is less uniform than
/// `req` allows (the guard first: it is the nearest condition); `None` for unreached code.
pub(crate) fn divergence(
    cx: &Context,
    stmt: StmtId,
    inst: &Instruction,
    req: &Requirement,
) -> Option<Divergence> {
    let fa = cx.fa;
    if !fa.dom.is_reached(fa.block(stmt)) {
        return None;
    }
    let (glevel, gvar) = fa.uni.guard_level(stmt, inst, &fa.vars);
    if glevel > req.allowed {
        return Some(Divergence::Guard(glevel, gvar));
    }
    offending_branch(fa, stmt, req.allowed).map(Divergence::Branch)
}

/// Reports `stmt` as `lint`, with the chain of why its control is `why`.
pub(crate) fn report(
    cx: &Context,
    sink: &mut Sink,
    lint: &LintInfo,
    (stmt, inst): (StmtId, &Instruction),
    req: &Requirement,
    rule: &Rule,
    why: Divergence,
) {
    let fa = cx.fa;
    let spec = rule.spec;
    let off = match why {
        Divergence::Guard(glevel, gvar) => {
            let mut related = Vec::new();
            if let Some(v) = gvar {
                for (s, why) in fa.uni.explain_at(stmt, v, fa.body, &fa.vars, &fa.cfg) {
                    related.push((s, why));
                }
            }
            let notes = vec![
                format!(
                    "{spec}: {} must execute it, so its guard must be {}",
                    req.who,
                    needed(req.allowed)
                ),
                rule.advice.clone(),
            ];
            let guard = inst
                .guard
                .as_ref()
                .map(|g| g.pred.clone())
                .unwrap_or_default();
            let message = format!(
                "{} is guarded by `{guard}`, which is {}",
                req.what,
                glevel.describe()
            );
            sink.report(cx, lint, stmt, message, related, notes);
            return;
        }
        Divergence::Branch(off) => off,
    };
    let mut related = vec![(
        off.stmt,
        if off.loop_exit {
            "the loop's exit branch is here".to_string()
        } else {
            "the branch is here".to_string()
        },
    )];
    for (s, why) in fa.uni.explain_branch(off.block, fa.body, &fa.vars, &fa.cfg) {
        related.push((s, why));
    }
    let message = if off.loop_exit {
        format!(
            "{} is in a loop whose trip count is {} (exit branch at line {})",
            req.what,
            off.level.describe(),
            fa.line(off.stmt)
        )
    } else {
        format!(
            "{} is under a branch at line {} whose condition is {}",
            req.what,
            fa.line(off.stmt),
            off.level.describe()
        )
    };
    let notes = vec![
        format!(
            "{spec}: {} must execute the same {}, so its control must be {}",
            req.who,
            rule.noun,
            needed(req.allowed)
        ),
        rule.advice.clone(),
    ];
    sink.report(cx, lint, stmt, message, related, notes);
}

/// How [`report_exits`] names those who leave and what it notes.
pub(crate) struct Leaving {
    /// `threads` or `lanes`.
    pub who: &'static str,
    /// The rule and the advice.
    pub notes: [String; 2],
}

/// Reports to `sink`, as `lint` at `stmt` (described as `what`), every branch that lets threads
/// leave the kernel before it under a condition less uniform than `allowed`, once per branch
/// (`reported` holds the branches already reported).
pub(crate) fn report_exits(
    cx: &Context,
    sink: &mut Sink,
    lint: &LintInfo,
    (stmt, what): (StmtId, &str),
    allowed: U,
    leaving: Leaving,
    reported: &mut Vec<StmtId>,
) {
    let fa = cx.fa;
    if !fa.dom.is_reached(fa.block(stmt)) {
        return;
    }
    for off in exit_branches(fa, stmt, allowed) {
        if reported.contains(&off.stmt) {
            continue;
        }
        reported.push(off.stmt);
        let mut related = vec![(off.stmt, format!("{} leave here", leaving.who))];
        related.extend(fa.uni.explain_branch(off.block, fa.body, &fa.vars, &fa.cfg));
        sink.report(
            cx,
            lint,
            stmt,
            format!(
                "{} exit at line {} under a condition that is {} before {what}",
                leaving.who,
                fa.line(off.stmt),
                off.level.describe()
            ),
            related,
            leaving.notes.to_vec(),
        );
    }
}

/// What a requirement of `level` asks of the control, in a note's words.
fn needed(level: U) -> &'static str {
    match level {
        U::Cluster => "uniform across the cluster",
        U::Cta => "CTA-uniform",
        U::Warp => "warp-uniform",
        U::Thread => "anything",
    }
}
