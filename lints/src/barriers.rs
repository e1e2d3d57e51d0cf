//! Barrier instructions, classified: CTA barriers (`bar`, `barrier`) with their id and thread
//! count as constants where constant propagation knows them, and cluster barriers.
//! PTX ISA §9.7.13.1 (`bar`, `barrier`) and §9.7.13.3 (`barrier.cluster`).

use crate::analysis::FunctionAnalysis;
use crate::consts::Val;
use phasegate_ptx::{Instruction, Opcode, StmtId};

/// What a CTA barrier instruction does (PTX ISA §9.7.13.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    /// `bar.sync`/`barrier.sync`: arrive and wait for the barrier to complete.
    Sync,
    /// `bar.arrive`/`barrier.arrive`: arrive without waiting (needs a thread count).
    Arrive,
    /// `bar.red`/`barrier.red`: arrive, wait, and reduce a predicate over the participants.
    Red,
}

impl BarKind {
    /// The modifier that selects the kind: `sync`, `arrive` or `red`.
    pub fn name(self) -> &'static str {
        match self {
            BarKind::Sync => "sync",
            BarKind::Arrive => "arrive",
            BarKind::Red => "red",
        }
    }
}

/// A `bar`/`barrier` instruction of the CTA.
#[derive(Clone, Debug)]
pub struct CtaBarrier {
    /// The instruction's statement.
    pub stmt: StmtId,
    /// Sync, arrive or reduction.
    pub kind: BarKind,
    /// `bar.*` is always aligned; `barrier.*` when it says `.aligned`.
    pub aligned: bool,
    /// The barrier id operand's value.
    pub id: Val,
    /// The thread count operand's value, when the instruction has one.
    pub count: Option<Val>,
    /// The instruction's spelling, for messages (`bar.sync`).
    pub name: String,
}

impl CtaBarrier {
    /// The barrier id, when constant propagation knows it.
    pub fn id_const(&self) -> Option<i64> {
        self.id.as_const()
    }
    /// The thread count, when the instruction has one and constant propagation knows it.
    pub fn count_const(&self) -> Option<i64> {
        self.count.as_ref().and_then(Val::as_const)
    }
}

/// Whether an instruction is `bar`/`barrier` of the CTA (not `bar.warp.sync`, not
/// `barrier.cluster`).
pub fn is_cta_barrier(inst: &Instruction) -> bool {
    matches!(inst.opcode, Opcode::Bar | Opcode::Barrier)
        && !inst.has("cluster")
        && !inst.has("warp")
        && (inst.has("sync") || inst.has("arrive") || inst.has("red"))
}

/// Classifies a CTA barrier instruction.
pub fn cta_barrier(fa: &FunctionAnalysis, stmt: StmtId, inst: &Instruction) -> Option<CtaBarrier> {
    if !is_cta_barrier(inst) {
        return None;
    }
    let kind = if inst.has("red") {
        BarKind::Red
    } else if inst.has("arrive") {
        BarKind::Arrive
    } else {
        BarKind::Sync
    };
    let ops = &inst.operands;
    let val = |i: usize| {
        ops.get(i)
            .map(|o| fa.consts.operand(stmt, o, &fa.vars))
            .unwrap_or(Val::Top)
    };
    let (id, count) = match kind {
        // `bar.red.op d, a{, b}, {!}c`
        BarKind::Red => (val(1), if ops.len() >= 4 { Some(val(2)) } else { None }),
        _ => (val(0), if ops.len() >= 2 { Some(val(1)) } else { None }),
    };
    let name = match inst.opcode {
        Opcode::Bar => format!("bar.{}", kind.name()),
        _ => format!(
            "barrier.{}{}",
            kind.name(),
            if inst.has("aligned") { ".aligned" } else { "" }
        ),
    };
    Some(CtaBarrier {
        stmt,
        kind,
        aligned: inst.opcode == Opcode::Bar || inst.has("aligned"),
        id,
        count,
        name,
    })
}

/// All CTA barriers of a function, in text order.
pub fn cta_barriers(fa: &FunctionAnalysis) -> Vec<CtaBarrier> {
    fa.instructions()
        .filter_map(|(id, inst)| cta_barrier(fa, id, inst))
        .collect()
}

/// The half of the split cluster barrier an instruction is (PTX ISA §9.7.13.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClusterKind {
    /// `barrier.cluster.arrive`: marks the thread's arrival; each thread arrives once per phase.
    Arrive,
    /// `barrier.cluster.wait`: waits until every non-exited thread of the cluster has arrived.
    Wait,
}

/// `barrier.cluster.arrive` / `barrier.cluster.wait`, with whether it is `.aligned`.
pub fn cluster_barrier(inst: &Instruction) -> Option<(ClusterKind, bool)> {
    if inst.opcode != Opcode::Barrier || !inst.has("cluster") {
        return None;
    }
    let kind = if inst.has("arrive") {
        ClusterKind::Arrive
    } else if inst.has("wait") {
        ClusterKind::Wait
    } else {
        return None;
    };
    Some((kind, inst.has("aligned")))
}

/// Whether an instruction makes every thread of the CTA wait for every other (a CTA-wide
/// `bar.sync`/`barrier.sync`/`bar.red` without thread count, or `barrier.cluster.wait`): what
/// orders one thread's earlier work before other threads' later work.
pub fn is_cta_wide_sync(fa: &FunctionAnalysis, stmt: StmtId, inst: &Instruction) -> bool {
    if let Some((ClusterKind::Wait, _)) = cluster_barrier(inst) {
        return true;
    }
    match cta_barrier(fa, stmt, inst) {
        Some(b) => b.kind != BarKind::Arrive && b.count.is_none(),
        None => false,
    }
}
