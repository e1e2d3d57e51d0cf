//! Reaching definitions of the registers written more than once, so that a read sees only the
//! writes that can reach it.
//!
//! Why: nvcc reuses one register for counters of loops that no path joins (a warp-specialised
//! GEMM's producer and consumer loops share `%r775`). Merged over all of its writes, the
//! producer's write, divergent because only one thread runs the producer, would make the
//! consumer's uniform loop test divergent.
//!
//! A register written once needs nothing: every read sees that write (or none). For the others,
//! each block that reads one is searched backwards until unguarded writes stop the search; a
//! guarded write does not replace the value on the threads whose guard is false, so it does
//! not stop it. A search that grows past [`BUDGET`] blocks, or finds more than [`MAX_WRITES`]
//! writes, gives up, and its reads see every write, as the register-wide merge did: that keeps
//! a register written at thousands of places that can all reach (a counter bumped in each arm
//! of a long chain of branches) linear rather than quadratic.

use crate::cfg::{BlockId, Cfg};
use crate::regs::{FastMap, VarId, Vars};
use phasegate_ptx::{Body, Statement, StmtId};

/// Blocks one backward search may visit before it gives up.
const BUDGET: usize = 4096;

/// Writes one read may see before the search gives up.
const MAX_WRITES: usize = 32;

/// The writes that reach each read of a register written more than once.
#[derive(Clone, Debug, Default)]
pub(super) struct Reach {
    /// `(read, register)` → the writes that reach it. Absent: every write of the register.
    map: FastMap<(u32, VarId), Box<[StmtId]>>,
}

impl Reach {
    pub(super) fn new(body: &Body, cfg: &Cfg, vars: &Vars) -> Reach {
        let mut map = FastMap::default();
        let guarded = |s: StmtId| matches!(body.get(s), Statement::Instruction(i) if i.guard.is_some());
        let mut mark = vec![0u32; cfg.len()];
        let mut epoch = 0u32;
        for var in 0..vars.len() as VarId {
            let sites = vars.def_sites(var);
            if sites.len() < 2 || vars.use_sites(var).is_empty() {
                continue;
            }
            // The writes of `var` in each block, in text order.
            let mut in_block: FastMap<BlockId, Vec<StmtId>> = FastMap::default();
            for &s in sites {
                in_block.entry(cfg.block_of(s)).or_default().push(s);
            }
            let mut entry_sets: FastMap<BlockId, Option<Vec<StmtId>>> = FastMap::default();
            for &u in vars.use_sites(var) {
                let b = cfg.block_of(u);
                // Writes before `u` in its block, the last unguarded one first.
                let mut local: Vec<StmtId> = Vec::new();
                let mut killed = false;
                for &d in in_block.get(&b).map(Vec::as_slice).unwrap_or(&[]).iter().rev() {
                    if d.index() >= u.index() {
                        continue;
                    }
                    local.push(d);
                    if !guarded(d) || local.len() > MAX_WRITES {
                        killed = true;
                        break;
                    }
                }
                if local.len() > MAX_WRITES {
                    continue;
                }
                if !killed {
                    let entry = entry_sets.entry(b).or_insert_with(|| {
                        epoch += 1;
                        entry_set(cfg, b, &in_block, &guarded, &mut mark, epoch)
                    });
                    match entry {
                        Some(e) => local.extend_from_slice(e),
                        None => continue,
                    }
                }
                // No write reaches (a read of an unset register): leave it to the merge.
                if local.is_empty() {
                    continue;
                }
                local.sort_unstable();
                local.dedup();
                if local.len() > MAX_WRITES {
                    continue;
                }
                map.insert((u.index() as u32, var), local.into_boxed_slice());
            }
        }
        Reach { map }
    }

    /// The writes of `var` that reach its read at `stmt`; `None`: every write of it.
    pub(super) fn at(&self, stmt: StmtId, var: VarId) -> Option<&[StmtId]> {
        if self.map.is_empty() {
            return None;
        }
        self.map.get(&(stmt.index() as u32, var)).map(|b| &**b)
    }
}

/// The writes of one register that reach the entry of block `b`; `None` when the search ran
/// past [`BUDGET`] blocks or [`MAX_WRITES`] writes.
fn entry_set(
    cfg: &Cfg,
    b: BlockId,
    in_block: &FastMap<BlockId, Vec<StmtId>>,
    guarded: &impl Fn(StmtId) -> bool,
    mark: &mut [u32],
    epoch: u32,
) -> Option<Vec<StmtId>> {
    let mut out = Vec::new();
    let mut stack: Vec<BlockId> = cfg.preds(b).to_vec();
    let mut visited = 0usize;
    while let Some(p) = stack.pop() {
        if p >= mark.len() || mark[p] == epoch {
            continue;
        }
        mark[p] = epoch;
        visited += 1;
        if visited > BUDGET {
            return None;
        }
        let mut killed = false;
        for &d in in_block.get(&p).map(Vec::as_slice).unwrap_or(&[]).iter().rev() {
            out.push(d);
            if !guarded(d) {
                killed = true;
                break;
            }
        }
        if out.len() > MAX_WRITES {
            return None;
        }
        if !killed {
            stack.extend_from_slice(cfg.preds(p));
        }
    }
    Some(out)
}
