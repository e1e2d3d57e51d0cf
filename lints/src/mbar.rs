//! mbarrier operations and the objects they act on. PTX ISA §9.7.13.15.
//!
//! An mbarrier object is named by its shared symbol and byte offset: `[bar0]`,
//! `[full+8]`, or a stage of a ring, `[full + ((t & 3) << 3)]`: stage `t % 4` of `full`, where
//! `t` is an iteration counter ([`Offset::Stage`]). Addresses made by `mapa` are another
//! CTA's objects ([`Obj::Remote`]); what constant propagation cannot name is
//! [`Obj::Unknown`]. Lints say nothing about objects they cannot name.

use crate::analysis::FunctionAnalysis;
use crate::consts::{Term, Val};
use crate::regs::VarId;
use phasegate_ptx::{Instruction, Opcode, Operand, StmtId};

/// The byte offset of an object inside its symbol.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Offset {
    /// A fixed offset: `[full+8]` is 8.
    Const(i64),
    /// `add + ((((var >> shift) & mask) ^ xor) << lshift)`.
    Stage {
        /// The stage index as a bit field of the counter, scaled to bytes.
        term: Term,
        /// The offset of stage 0.
        add: i64,
    },
}

/// The mbarrier object an operation acts on, as far as constant propagation can name it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Obj {
    /// An object in this CTA's shared memory.
    Local {
        /// The shared variable that holds it.
        sym: String,
        /// Its byte offset in the variable.
        offset: Offset,
    },
    /// An object of another CTA of the cluster, at an address `mapa` made (PTX ISA §9.7.9.21).
    Remote,
    /// An address constant propagation cannot name; lints say nothing about it.
    Unknown,
}

impl Obj {
    /// The object at address `v`: [`Obj::Unknown`] unless it is a shared symbol plus a constant
    /// or a ring stage.
    pub fn from_val(v: &Val) -> Obj {
        match v {
            Val::Expr(e) => match (&e.base, e.term) {
                (Some(sym), None) => Obj::Local {
                    sym: sym.clone(),
                    offset: Offset::Const(e.add),
                },
                (Some(sym), Some(t)) if t.mask_bits().is_some() => Obj::Local {
                    sym: sym.clone(),
                    offset: Offset::Stage {
                        term: t,
                        add: e.add,
                    },
                },
                _ => Obj::Unknown,
            },
            Val::Remote => Obj::Remote,
            _ => Obj::Unknown,
        }
    }

    /// The shared variable that holds a local object.
    pub fn sym(&self) -> Option<&str> {
        match self {
            Obj::Local { sym, .. } => Some(sym),
            _ => None,
        }
    }

    /// The concrete `(symbol, offset)` objects this may be: one for a constant offset, one per
    /// stage for a ring (at most 64).
    pub fn instances(&self) -> Vec<(String, i64)> {
        match self {
            Obj::Local {
                sym,
                offset: Offset::Const(o),
            } => vec![(sym.clone(), *o)],
            Obj::Local {
                sym,
                offset: Offset::Stage { term, add },
            } => match term.mask_bits() {
                Some(w) if w <= 6 => (0..(1i64 << w))
                    .map(|j| (sym.clone(), add + (j << term.lshift)))
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    /// The counter of a ring's stage index.
    pub fn stage_var(&self) -> Option<VarId> {
        match self {
            Obj::Local {
                offset: Offset::Stage { term, .. },
                ..
            } => Some(term.var),
            _ => None,
        }
    }

    /// For display: `full`, `full+8`, `full[stage (t >> 0) & 3]`.
    pub fn describe(&self, fa: &FunctionAnalysis) -> String {
        match self {
            Obj::Local {
                sym,
                offset: Offset::Const(0),
            } => format!("`{sym}`"),
            Obj::Local {
                sym,
                offset: Offset::Const(o),
            } => format!("`{sym}+{o}`"),
            Obj::Local {
                sym,
                offset: Offset::Stage { term, add },
            } => {
                let var = fa.vars.name(term.var);
                let stages = term.mask.wrapping_add(1);
                let idx = if term.shift == 0 {
                    format!("{var} % {stages}")
                } else {
                    format!("({var} >> {}) % {stages}", term.shift)
                };
                if *add == 0 {
                    format!("`{sym}` stage `{idx}`")
                } else {
                    format!("`{sym}+{add}` stage `{idx}`")
                }
            }
            Obj::Remote => "an mbarrier of another CTA".to_string(),
            Obj::Unknown => "an mbarrier".to_string(),
        }
    }

    /// Whether two references name the same object in the same iteration (same symbol and
    /// offset expression).
    pub fn same(&self, other: &Obj) -> bool {
        matches!(self, Obj::Local { .. }) && self == other
    }

    /// Whether two references may name the same object at some point.
    pub fn may_alias(&self, other: &Obj) -> bool {
        match (self, other) {
            (Obj::Local { sym: a, .. }, Obj::Local { sym: b, .. }) if a != b => false,
            (Obj::Local { .. }, Obj::Local { .. }) => {
                let (x, y) = (self.instances(), other.instances());
                x.is_empty() || y.is_empty() || x.iter().any(|i| y.contains(i))
            }
            _ => false,
        }
    }
}

/// What an mbarrier operation does to its object (PTX ISA §9.7.13.15).
#[derive(Clone, Debug, PartialEq)]
pub enum MbarKind {
    /// `mbarrier.init` (PTX ISA §9.7.13.15.9).
    Init {
        /// The expected arrival count of each phase.
        count: Val,
    },
    /// `mbarrier.inval`: the object's memory may be reused; any later operation but `init` is
    /// undefined (PTX ISA §9.7.13.15.10).
    Inval,
    /// `mbarrier.arrive` / `mbarrier.arrive_drop`, with `.expect_tx` bytes when present.
    Arrive {
        /// The arrival count operand; `None` for one arrival.
        count: Option<Val>,
        /// The bytes of `.expect_tx`.
        tx: Option<Val>,
        /// `arrive_drop`: the thread also leaves the expected count of later phases (PTX ISA
        /// §9.7.13.15.14).
        drop: bool,
    },
    /// `cp.async.mbarrier.arrive`: an arrive-on when the thread's earlier `cp.async` finish.
    AsyncArrive {
        /// `.noinc`: the pending count is not incremented first, so the arrive-on counts
        /// against the count `init` set (PTX ISA §9.7.13.15.15).
        noinc: bool,
    },
    /// `mbarrier.expect_tx`: raises the current phase's tx-count (PTX ISA §9.7.13.15.11).
    ExpectTx {
        /// The bytes expected.
        tx: Val,
    },
    /// `mbarrier.complete_tx`: lowers the current phase's tx-count, as a finished copy would
    /// (PTX ISA §9.7.13.15.12).
    CompleteTx {
        /// The bytes completed.
        tx: Val,
    },
    /// `test_wait`/`try_wait`; `parity` for the `.parity` forms, `token` for the state forms.
    Wait {
        /// The `phaseParity` operand of `.parity` forms.
        parity: Option<Val>,
        /// The state register of token forms, which an earlier arrive returned.
        token: Option<VarId>,
        /// The predicate that says whether the phase completed.
        result: Option<VarId>,
    },
    /// A bulk copy whose completion performs complete-tx on the object (`bytes` when the
    /// instruction has a size operand; `None` for tensor copies).
    Copy {
        /// The size operand.
        bytes: Option<Val>,
        /// `.multicast::cluster`: the copy completes on the objects of several CTAs.
        multicast: bool,
    },
}

/// One instruction that acts on an mbarrier object.
#[derive(Clone, Debug)]
pub struct MbarOp {
    /// The instruction's statement.
    pub stmt: StmtId,
    /// What it does.
    pub kind: MbarKind,
    /// The object, as named from [`MbarOp::addr`].
    pub obj: Obj,
    /// The value of the address operand.
    pub addr: Val,
}

impl MbarOp {
    /// Whether the operation is `mbarrier.arrive`/`arrive_drop` (not the asynchronous
    /// arrive-on of `cp.async.mbarrier.arrive`).
    pub fn is_arrive(&self) -> bool {
        matches!(self.kind, MbarKind::Arrive { .. })
    }
    /// Whether the operation is `test_wait`/`try_wait`.
    pub fn is_wait(&self) -> bool {
        matches!(self.kind, MbarKind::Wait { .. })
    }
}

fn first_address_from(inst: &Instruction, from: usize) -> Option<usize> {
    (from..inst.operands.len()).find(|&i| matches!(inst.operands[i], Operand::Address(_)))
}

/// Classifies an instruction that acts on an mbarrier object.
pub fn mbar_op(fa: &FunctionAnalysis, stmt: StmtId, inst: &Instruction) -> Option<MbarOp> {
    let val = |i: usize| {
        inst.operands
            .get(i)
            .map(|o| fa.consts.operand(stmt, o, &fa.vars))
            .unwrap_or(Val::Top)
    };
    let (kind, addr_index) = match &inst.opcode {
        Opcode::Mbarrier => {
            if inst.has("init") {
                (MbarKind::Init { count: val(1) }, 0)
            } else if inst.has("inval") {
                (MbarKind::Inval, 0)
            } else if inst.has("arrive") || inst.has("arrive_drop") {
                let tx = inst.has("expect_tx").then(|| val(2));
                let count = if tx.is_none() && inst.operands.len() >= 3 {
                    Some(val(2))
                } else {
                    None
                };
                (
                    MbarKind::Arrive {
                        count,
                        tx,
                        drop: inst.has("arrive_drop"),
                    },
                    1,
                )
            } else if inst.has("expect_tx") {
                (MbarKind::ExpectTx { tx: val(1) }, 0)
            } else if inst.has("complete_tx") {
                (MbarKind::CompleteTx { tx: val(1) }, 0)
            } else if inst.has("test_wait") || inst.has("try_wait") {
                let parity = inst.has("parity").then(|| val(2));
                let token = if inst.has("parity") {
                    None
                } else {
                    inst.operands.get(2).and_then(|o| fa.vars.var_of(stmt, o))
                };
                let result = inst.operands.first().and_then(|o| fa.vars.var_of(stmt, o));
                (
                    MbarKind::Wait {
                        parity,
                        token,
                        result,
                    },
                    1,
                )
            } else {
                return None;
            }
        }
        Opcode::Cp if inst.has("async") && inst.has("mbarrier") && inst.has("arrive") => (
            MbarKind::AsyncArrive {
                noinc: inst.has("noinc"),
            },
            0,
        ),
        Opcode::Cp
            if inst.has("bulk")
                && inst
                    .modifiers
                    .iter()
                    .any(|m| m.starts_with("mbarrier::complete_tx")) =>
        {
            let tensor = inst.has("tensor");
            let bytes = if tensor { None } else { Some(val(2)) };
            let idx = first_address_from(inst, 2)?;
            (
                MbarKind::Copy {
                    bytes,
                    multicast: inst.modifiers.iter().any(|m| m.starts_with("multicast")),
                },
                idx,
            )
        }
        _ => return None,
    };
    let addr = val(addr_index);
    let obj = Obj::from_val(&addr);
    Some(MbarOp {
        stmt,
        kind,
        obj,
        addr,
    })
}

/// All mbarrier operations of a function, in text order.
pub fn mbar_ops(fa: &FunctionAnalysis) -> Vec<MbarOp> {
    fa.instructions()
        .filter_map(|(id, inst)| mbar_op(fa, id, inst))
        .collect()
}

/// A phase parity operand, read as a function of an iteration counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parity {
    /// A fixed parity, 0 or 1.
    Const(i64),
    /// `((var >> shift) & 1) ^ flip`.
    Counter {
        /// The iteration counter.
        var: VarId,
        /// The counter's bit that is the parity: `log2` of the number of ring stages (0 without
        /// a ring).
        shift: u32,
        /// Whether the bit is flipped: the previous round's parity.
        flip: bool,
    },
}

/// The parity a `phaseParity` operand's value stands for; `None` when it is no constant and no
/// single bit of a counter.
pub fn parity_of(v: &Val) -> Option<Parity> {
    match v {
        Val::Const(c) => Some(Parity::Const(*c)),
        Val::Expr(e) if e.base.is_none() && e.add == 0 => {
            let t = e.term?;
            if t.mask == 1 && t.lshift == 0 && t.xor <= 1 {
                Some(Parity::Counter {
                    var: t.var,
                    shift: t.shift,
                    flip: t.xor & 1 == 1,
                })
            } else {
                None
            }
        }
        _ => None,
    }
}
