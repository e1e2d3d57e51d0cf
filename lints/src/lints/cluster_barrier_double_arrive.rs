// This lint's documentation is `lints/explain/cluster_barrier_double_arrive.md`: the one text that rustdoc shows here,
// `phasegate lint --explain cluster_barrier_double_arrive` prints and the book's page on the lint includes.
#![doc = include_str!("../../explain/cluster_barrier_double_arrive.md")]

use super::{Context, LintInfo, Sink};
use crate::barriers::{ClusterKind, cluster_barrier};
use crate::diagnostic::Level;
use crate::protocol::forward;
use phasegate_ptx::StmtId;

/// `cluster_barrier_double_arrive`: its name, default level (deny) and summary, as [`crate::LINTS`]
/// lists it.
pub const LINT: LintInfo = LintInfo {
    name: "cluster_barrier_double_arrive",
    default: Level::Deny,
    summary: "barrier.cluster.arrive twice without a wait in between, or a wait without an arrive",
    explanation: include_str!("../../explain/cluster_barrier_double_arrive.md"),
};

/// The state of one thread: not arrived (may be), and the arrives that may be pending.
#[derive(Clone, PartialEq, Default)]
struct State {
    idle: bool,
    arrived: Vec<StmtId>,
}

/// Reports to `sink` each `barrier.cluster.arrive` that a thread reaches again with no wait in
/// between, and each wait that no arrive precedes, in the function that `cx` analyzes.
pub fn check(cx: &Context, sink: &mut Sink) {
    let fa = cx.fa;
    let kinds: Vec<Option<ClusterKind>> = fa
        .body
        .iter()
        .map(|(id, _)| fa.inst(id).and_then(cluster_barrier).map(|k| k.0))
        .collect();
    if kinds.iter().all(Option::is_none) {
        return;
    }
    let step = |b: usize, s: &State, mut out: Option<&mut Vec<Problem>>| -> State {
        let mut st = s.clone();
        for stmt in fa.cfg.blocks[b].stmts() {
            let guarded = fa.inst(stmt).is_some_and(|i| i.guard.is_some());
            match kinds[stmt.index()] {
                Some(ClusterKind::Arrive) => {
                    if let Some(o) = out.as_deref_mut() {
                        for &prev in &st.arrived {
                            o.push(Problem::Twice(prev, stmt));
                        }
                    }
                    if guarded {
                        st.arrived.push(stmt);
                    } else {
                        st = State {
                            idle: false,
                            arrived: vec![stmt],
                        };
                    }
                }
                Some(ClusterKind::Wait) => {
                    if let Some(o) = out.as_deref_mut()
                        && st.idle
                        && st.arrived.is_empty()
                    {
                        o.push(Problem::NoArrive(stmt));
                    }
                    if guarded {
                        st.idle = true;
                    } else {
                        st = State {
                            idle: true,
                            arrived: Vec::new(),
                        };
                    }
                }
                None => {}
            }
            st.arrived.sort();
            st.arrived.dedup();
        }
        st
    };
    let ins = forward(
        fa,
        State {
            idle: true,
            arrived: Vec::new(),
        },
        |b, s| step(b, s, None),
        |_, _, _, s| s.clone(),
        |cur, new| {
            let before = cur.clone();
            cur.idle |= new.idle;
            for a in &new.arrived {
                if !cur.arrived.contains(a) {
                    cur.arrived.push(*a);
                }
            }
            cur.arrived.sort();
            *cur != before
        },
    );
    let mut problems = Vec::new();
    for (b, state) in ins.iter().enumerate() {
        if let Some(s) = state {
            step(b, s, Some(&mut problems));
        }
    }
    let mut done: Vec<StmtId> = Vec::new();
    for p in problems {
        match p {
            Problem::Twice(first, second) => {
                if done.contains(&second) {
                    continue;
                }
                done.push(second);
                let related = vec![(
                    first,
                    if first == second {
                        "the same arrive, in the previous iteration".to_string()
                    } else {
                        "the earlier arrive".to_string()
                    },
                )];
                sink.report(cx, &LINT, second, format!("`barrier.cluster.arrive` again after the arrive at line {} with no `barrier.cluster.wait` in between", fa.line(first)), related, vec![
                    "PTX ISA §9.7.13.3: each thread must arrive at the barrier only once before the barrier completes".into(),
                    "wait (`barrier.cluster.wait`) between two arrives".into(),
                ]);
            }
            Problem::NoArrive(wait) => {
                if done.contains(&wait) {
                    continue;
                }
                done.push(wait);
                sink.report(cx, &LINT, wait, "`barrier.cluster.wait` without a `barrier.cluster.arrive` of this thread before it: it waits for its own arrival".to_string(), Vec::new(), vec![
                    "PTX ISA §9.7.13.3: barrier.cluster.wait waits for all non-exited threads of the cluster to perform barrier.cluster.arrive".into(),
                    "arrive first (`barrier.cluster.arrive`), then wait".into(),
                ]);
            }
        }
    }
}

enum Problem {
    Twice(StmtId, StmtId),
    NoArrive(StmtId),
}
