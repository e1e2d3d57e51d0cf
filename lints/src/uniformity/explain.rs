//! Why a value is divergent, as a chain down to its source, and which branches make a
//! statement's control less uniform than it needs.

use super::*;
use crate::diagnostic::{WhyCause, WhyStep};

impl Uniformity {
    /// Why `var` is not cluster-uniform, as a chain of steps down to the source, e.g.
    /// ["`%p2` is computed from `%r5` (line 40)", "`%r5` reads `%tid.x` (line 39)"].
    pub fn explain(
        &self,
        var: VarId,
        body: &Body,
        vars: &Vars,
        cfg: &Cfg,
    ) -> Vec<(StmtId, String)> {
        self.explain_chain(var, None, body, vars, cfg)
    }

    /// [`Self::explain`] for `var` as read at `stmt`: each step follows the writes that reach
    /// the read it explains, not every write of the register.
    pub fn explain_at(
        &self,
        stmt: StmtId,
        var: VarId,
        body: &Body,
        vars: &Vars,
        cfg: &Cfg,
    ) -> Vec<(StmtId, String)> {
        self.explain_chain(var, Some(stmt), body, vars, cfg)
    }

    fn explain_chain(
        &self,
        var: VarId,
        at: Option<StmtId>,
        body: &Body,
        vars: &Vars,
        cfg: &Cfg,
    ) -> Vec<(StmtId, String)> {
        let mut out = Vec::new();
        let mut seen = vec![var];
        let mut cur = var;
        let mut at = at;
        let line = |s: StmtId| {
            if s.index() < body.len() {
                body.span(s).line
            } else {
                0
            }
        };
        for _ in 0..12 {
            let found = match at {
                Some(s) => self.why_at(s, cur),
                None => self.why(cur).map(|w| (self.level(cur), w)),
            };
            let Some((level, why)) = found else { break };
            // Written as a `WhyStep`, which callers can read back (and name the registers in
            // their own words: `#[kernel]` says which Rust variable a register holds).
            let step = |stmt: StmtId, cause: WhyCause| {
                let note = WhyStep {
                    subject: vars.name(cur).to_string(),
                    level,
                    line: line(stmt),
                    cause,
                };
                (stmt, note.to_string())
            };
            match why {
                Why::Special { name: sreg, stmt } => {
                    out.push(step(*stmt, WhyCause::Special(sreg.clone())));
                    break;
                }
                Why::Op { stmt, what } => {
                    out.push(step(*stmt, WhyCause::Op(what.to_string())));
                    break;
                }
                Why::From { var: src, stmt } => {
                    out.push(step(*stmt, WhyCause::From(vars.name(*src).to_string())));
                    if seen.contains(src) {
                        break;
                    }
                    seen.push(*src);
                    cur = *src;
                    at = Some(*stmt);
                }
                Why::Control { branch, pred } => {
                    let branch_level = pred.map(|p| self.level_at(*branch, p)).unwrap_or(level);
                    out.push(step(*branch, WhyCause::Control(branch_level)));
                    match pred {
                        Some(p) if !seen.contains(p) => {
                            seen.push(*p);
                            cur = *p;
                            at = Some(*branch);
                        }
                        _ => break,
                    }
                }
            }
        }
        let _ = cfg;
        out
    }

    /// The chain for a branch: the predicate of the branch that ends block `b`.
    pub fn explain_branch(
        &self,
        b: BlockId,
        body: &Body,
        vars: &Vars,
        cfg: &Cfg,
    ) -> Vec<(StmtId, String)> {
        match self.branch(b) {
            Some((_, stmt, Some(p))) => self.explain_at(stmt, p, body, vars, cfg),
            Some((_, stmt, None)) => vec![(stmt, "the guard is a special register".to_string())],
            None => Vec::new(),
        }
    }
}

/// A branch that a statement depends on and whose condition is less uniform than needed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offending {
    /// The block the branch ends.
    pub block: BlockId,
    /// The branch (or guarded exit) statement.
    pub stmt: StmtId,
    /// How uniform its condition is.
    pub level: Level,
    /// Its predicate; `None` when it is no variable (a special register).
    pub pred: Option<VarId>,
    /// The branch decides whether to stay in a loop that contains the statement.
    pub loop_exit: bool,
}

/// The nearest branch (control dependence, transitively) of the block of `stmt` whose level is
/// above `allowed`; early exits are not counted (see [`exit_branches`]).
pub fn offending_branch(
    fa: &crate::analysis::FunctionAnalysis,
    stmt: StmtId,
    allowed: Level,
) -> Option<Offending> {
    let start = fa.block(stmt);
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::from([start]);
    seen[start] = true;
    while let Some(b) = queue.pop_front() {
        for &(a, i) in &fa.uni.control_deps(b).deps {
            if let Some((level, bstmt, pred)) = fa.uni.branch(a)
                && level > allowed
            {
                let _ = i;
                let loop_exit = fa.loops.nest(start).iter().any(|&l| {
                    fa.loops.loops[l]
                        .exits
                        .iter()
                        .any(|&(from, _, _)| from == a)
                });
                return Some(Offending {
                    block: a,
                    stmt: bstmt,
                    level,
                    pred,
                    loop_exit,
                });
            }
            if a < n && !seen[a] {
                seen[a] = true;
                queue.push_back(a);
            }
        }
        for &(a, _) in &fa.uni.control_deps(b).exits {
            if a < n && !seen[a] {
                seen[a] = true;
                queue.push_back(a);
            }
        }
    }
    None
}

/// Branches that let threads leave the kernel before `stmt` and whose condition is above
/// `allowed` (the block of `stmt` and the blocks it depends on, transitively).
pub fn exit_branches(
    fa: &crate::analysis::FunctionAnalysis,
    stmt: StmtId,
    allowed: Level,
) -> Vec<Offending> {
    let start = fa.block(stmt);
    let n = fa.cfg.len();
    let mut seen = vec![false; n];
    let mut queue = std::collections::VecDeque::from([start]);
    seen[start] = true;
    let mut out: Vec<Offending> = Vec::new();
    while let Some(b) = queue.pop_front() {
        let cd = fa.uni.control_deps(b);
        for &(a, _) in &cd.exits {
            if let Some((level, bstmt, pred)) = fa.uni.branch(a)
                && level > allowed
                && !out.iter().any(|o| o.block == a)
            {
                out.push(Offending {
                    block: a,
                    stmt: bstmt,
                    level,
                    pred,
                    loop_exit: false,
                });
            }
        }
        for &(a, _) in cd.deps.iter().chain(cd.exits.iter()) {
            if a < n && !seen[a] {
                seen[a] = true;
                queue.push_back(a);
            }
        }
    }
    out
}
