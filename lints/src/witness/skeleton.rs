//! The barrier skeleton of a run, for `phasegate lint --protocol`: what the analyzer believed
//! the kernel does. The warps of the run that chose the launch are grouped into roles (warps
//! whose barrier operations are the same instructions in the same order), and each role's
//! sequence is folded where a block of operations repeats (a loop: `×16`).

use phasegate_ptx::{Module, StmtId};
use phasegate_sim::probe::{Kernel, LogKind, ProbeRun};
use std::fmt;

/// The longest block of operations a fold looks for.
const MAX_PERIOD: usize = 24;

/// The roles of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Skeleton {
    /// The roles, in the order of their first warp.
    pub roles: Vec<Role>,
}

/// Warps that execute the same barrier operations in the same order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Role {
    /// `warps 1-4`, `CTA rank 1 warp 0`.
    pub who: String,
    /// The operations, folded.
    pub ops: Vec<Item>,
}

/// One operation, or a block that repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A barrier operation.
    Op {
        /// Its PTX line.
        line: u32,
        /// The instruction.
        what: String,
    },
    /// A block that repeats back to back.
    Repeat {
        /// How many times.
        count: usize,
        /// The block, itself folded.
        block: Vec<Item>,
    },
}

/// The skeleton of `run` of `kernel` (of `module`).
pub fn skeleton(module: &Module, kernel: &Kernel, run: &ProbeRun, clustered: bool) -> Skeleton {
    // Per warp, its own operations (not the completions of its copies).
    let mut per_warp: Vec<(u32, Vec<u32>)> = Vec::new();
    for e in &run.log {
        if matches!(
            e.kind,
            LogKind::Complete | LogKind::Phase | LogKind::WaitPending
        ) {
            continue;
        }
        match per_warp.iter_mut().find(|(w, _)| *w == e.warp) {
            Some((_, ops)) => {
                // A wait loop that polls is one wait.
                if !(e.kind == LogKind::WaitDone && ops.last() == Some(&e.pc)) {
                    ops.push(e.pc)
                }
            }
            None => per_warp.push((e.warp, vec![e.pc])),
        }
    }
    per_warp.sort_by_key(|(w, _)| *w);
    let mut roles: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    for (w, ops) in per_warp {
        match roles.iter_mut().find(|(o, _)| *o == ops) {
            Some((_, warps)) => warps.push(w),
            None => roles.push((ops, vec![w])),
        }
    }
    let describe = |pc: u32| -> Item {
        let loc = kernel.location(pc);
        let text = loc
            .stmt
            .and_then(|s| instruction_text(module, loc.function, s))
            .unwrap_or_else(|| "ret".to_string());
        Item::Op {
            line: loc.line,
            what: text,
        }
    };
    Skeleton {
        roles: roles
            .into_iter()
            .map(|(ops, warps)| {
                let who = super::steps::who(
                    &warps.iter().map(|&w| (w, u32::MAX)).collect::<Vec<_>>(),
                    run.warps_per_cta,
                    clustered,
                );
                let items: Vec<Item> = ops.iter().map(|&pc| describe(pc)).collect();
                Role {
                    who,
                    ops: fold(items),
                }
            })
            .collect(),
    }
}

fn instruction_text(module: &Module, function: &str, stmt: StmtId) -> Option<String> {
    let body = module.function(function)?.body.as_ref()?;
    body.instructions()
        .find(|(s, _)| *s == stmt)
        .map(|(_, inst)| {
            let text = inst.to_string();
            let words: Vec<&str> = text.split_whitespace().collect();
            words.join(" ").trim_end_matches(';').to_string()
        })
}

/// Folds blocks that repeat back to back into [`Item::Repeat`], the block that covers the
/// most operations first.
pub fn fold(items: Vec<Item>) -> Vec<Item> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < items.len() {
        let mut best: Option<(usize, usize)> = None;
        for p in 1..=MAX_PERIOD.min((items.len() - i) / 2) {
            let mut n = 1;
            while i + (n + 1) * p <= items.len()
                && items[i + n * p..i + (n + 1) * p] == items[i..i + p]
            {
                n += 1;
            }
            if n >= 2 && best.is_none_or(|(bp, bn)| n * p > bn * bp) {
                best = Some((p, n));
            }
        }
        match best {
            Some((p, n)) => {
                out.push(Item::Repeat {
                    count: n,
                    block: fold(items[i..i + p].to_vec()),
                });
                i += n * p;
            }
            None => {
                out.push(items[i].clone());
                i += 1;
            }
        }
    }
    out
}

impl fmt::Display for Skeleton {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.roles {
            writeln!(f, "  role: {}", r.who)?;
            write_items(f, &r.ops, 4)?;
        }
        Ok(())
    }
}

fn write_items(f: &mut fmt::Formatter<'_>, items: &[Item], indent: usize) -> fmt::Result {
    for item in items {
        match item {
            Item::Op { line, what } => writeln!(f, "{:indent$}line {line}: {what}", "")?,
            Item::Repeat { count, block } => {
                writeln!(f, "{:indent$}{count} times:", "")?;
                write_items(f, block, indent + 2)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(n: u32) -> Item {
        Item::Op {
            line: n,
            what: format!("op{n}"),
        }
    }

    #[test]
    fn folds_a_loop_and_keeps_what_does_not_repeat() {
        let items = vec![op(1), op(2), op(3), op(2), op(3), op(2), op(3), op(4)];
        assert_eq!(
            fold(items),
            vec![
                op(1),
                Item::Repeat {
                    count: 3,
                    block: vec![op(2), op(3)]
                },
                op(4)
            ]
        );
    }
}
