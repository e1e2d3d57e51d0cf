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
use crate::regs::{VarId, Vars};
use phasegate_ptx::{Body, Statement, StmtId};

/// Blocks one backward search may visit before it gives up.
const BUDGET: usize = 4096;

/// Writes one read may see before the search gives up.
const MAX_WRITES: usize = 32;

/// The writes that reach each read of a register written more than once.
#[derive(Clone, Debug, Default)]
pub(super) struct Reach {
    /// Per statement, the range of `reads` that belong to it (`index[s]..index[s + 1]`); empty
    /// when no read of a register written more than once was resolved.
    index: Vec<u32>,
    /// `(register, start, end)`: the reaching writes of the register read there, as value
    /// slots `slots[start..end]`. A read that is not listed sees every write.
    reads: Vec<(VarId, u32, u32)>,
    slots: Vec<u32>,
    /// Per slot, the reads it reaches: `readers[reader_index[slot]..reader_index[slot + 1]]`.
    readers: Vec<StmtId>,
    reader_index: Vec<u32>,
    /// Per register, `(start, end)` of its reads in `merged` that see every write; `NONE`
    /// when the register was not analysed (written once, or never read).
    merged: Vec<StmtId>,
    merged_index: Vec<(u32, u32)>,
}

/// No range: see [`Reach::merged_index`].
const NONE: u32 = u32::MAX;

impl Reach {
    /// `slot_base`: per statement, the value slot of its first write (see `Uniformity`).
    pub(super) fn new(body: &Body, cfg: &Cfg, vars: &Vars, slot_base: &[u32]) -> Reach {
        let guarded =
            |s: StmtId| matches!(body.get(s), Statement::Instruction(i) if i.guard.is_some());
        // (read statement, register, its writes as `flat[start..end]`), in no order.
        let mut found: Vec<(u32, VarId, u32, u32)> = Vec::new();
        let mut flat: Vec<StmtId> = Vec::new();
        let mut local: Vec<StmtId> = Vec::new();
        // Reads of analysed registers left to the merge: (register, read).
        let mut merged: Vec<(VarId, StmtId)> = Vec::new();
        let mut analysed = vec![false; vars.len()];
        let mut mark = vec![0u32; cfg.len()];
        let mut epoch = 0u32;
        let mut in_block: Vec<(BlockId, u32, u32)> = Vec::new();
        // Per block, the writes reaching its entry for the register `entry_stamp` names (its id
        // plus one): a cache that needs no clearing between registers.
        let mut entry_stamp = vec![0u32; cfg.len()];
        let mut entry_sets: Vec<Option<Vec<StmtId>>> = vec![None; cfg.len()];
        for var in 0..vars.len() as VarId {
            let sites = vars.def_sites(var);
            if sites.len() < 2 || vars.use_sites(var).is_empty() {
                continue;
            }
            analysed[var as usize] = true;
            // The writes of `var` per block: blocks are in text order, so each block's writes
            // are one run of `sites`.
            in_block.clear();
            for (i, &s) in sites.iter().enumerate() {
                let b = cfg.block_of(s);
                match in_block.last_mut() {
                    Some((lb, _, end)) if *lb == b => *end = i as u32 + 1,
                    _ => in_block.push((b, i as u32, i as u32 + 1)),
                }
            }
            let writes_of = |b: BlockId| -> &[StmtId] {
                match in_block.binary_search_by_key(&b, |x| x.0) {
                    Ok(i) => &sites[in_block[i].1 as usize..in_block[i].2 as usize],
                    Err(_) => &[],
                }
            };
            for &u in vars.use_sites(var) {
                let b = cfg.block_of(u);
                // Writes before `u` in its block, the last unguarded one first.
                local.clear();
                let mut killed = false;
                let here = writes_of(b);
                // The writes before `u` (in text order, so found by bisection: a block may
                // write one register 100,000 times).
                let before = &here[..here.partition_point(|d| d.index() < u.index())];
                for &d in before.iter().rev() {
                    local.push(d);
                    if !guarded(d) || local.len() > MAX_WRITES {
                        killed = true;
                        break;
                    }
                }
                if local.len() > MAX_WRITES {
                    merged.push((var, u));
                    continue;
                }
                if !killed {
                    if b >= entry_stamp.len() {
                        merged.push((var, u));
                        continue;
                    }
                    if entry_stamp[b] != var + 1 {
                        entry_stamp[b] = var + 1;
                        epoch += 1;
                        entry_sets[b] = entry_set(cfg, b, &writes_of, &guarded, &mut mark, epoch);
                    }
                    match &entry_sets[b] {
                        Some(e) => local.extend_from_slice(e),
                        None => {
                            merged.push((var, u));
                            continue;
                        }
                    }
                }
                local.sort_unstable();
                local.dedup();
                // No write reaches (a read of an unset register), or too many: the merge.
                if local.is_empty() || local.len() > MAX_WRITES {
                    merged.push((var, u));
                    continue;
                }
                let start = flat.len() as u32;
                flat.extend_from_slice(&local);
                found.push((u.index() as u32, var, start, flat.len() as u32));
            }
        }
        found.sort_unstable_by_key(|x| (x.0, x.1));
        found.dedup_by_key(|x| (x.0, x.1));
        let mut reach = Reach {
            index: Vec::new(),
            reads: Vec::with_capacity(found.len()),
            slots: Vec::new(),
            readers: Vec::new(),
            reader_index: Vec::new(),
            merged: Vec::new(),
            merged_index: Vec::new(),
        };
        if found.is_empty() {
            return reach;
        }
        // Per analysed register, its reads left to the merge (CSR by register; a register not
        // analysed has the range `NONE`).
        merged.sort_unstable();
        merged.dedup();
        reach.merged_index = vec![(NONE, NONE); vars.len()];
        for (v, a) in analysed.iter().enumerate() {
            if *a {
                reach.merged_index[v] = (0, 0);
            }
        }
        let mut i = 0;
        while i < merged.len() {
            let v = merged[i].0;
            let start = reach.merged.len() as u32;
            while i < merged.len() && merged[i].0 == v {
                reach.merged.push(merged[i].1);
                i += 1;
            }
            reach.merged_index[v as usize] = (start, reach.merged.len() as u32);
        }
        reach.index = vec![0; body.len() + 1];
        let mut next = 0usize;
        for s in 0..body.len() {
            reach.index[s] = reach.reads.len() as u32;
            while next < found.len() && found[next].0 as usize == s {
                let (_, var, a, b) = found[next];
                let start = reach.slots.len() as u32;
                for &d in &flat[a as usize..b as usize] {
                    let di = vars.defs(d).iter().position(|&v| v == var).unwrap_or(0);
                    reach.slots.push(slot_base[d.index()] + di as u32);
                }
                reach.reads.push((var, start, reach.slots.len() as u32));
                next += 1;
            }
        }
        reach.index[body.len()] = reach.reads.len() as u32;
        // Per slot, the reads it reaches (CSR by slot).
        let nslots = *slot_base.last().unwrap_or(&0) as usize;
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(reach.slots.len());
        for s in 0..body.len() {
            let (lo, hi) = (reach.index[s] as usize, reach.index[s + 1] as usize);
            for &(_, a, b) in &reach.reads[lo..hi] {
                for &slot in &reach.slots[a as usize..b as usize] {
                    pairs.push((slot, s as u32));
                }
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        reach.reader_index = vec![0; nslots + 1];
        let mut next = 0usize;
        for slot in 0..nslots {
            reach.reader_index[slot] = reach.readers.len() as u32;
            while next < pairs.len() && pairs[next].0 as usize == slot {
                reach.readers.push(StmtId(pairs[next].1));
                next += 1;
            }
        }
        reach.reader_index[nslots] = reach.readers.len() as u32;
        reach
    }

    /// The reads that the write in `slot` of `var` may change: those it reaches and those left
    /// to the merge; `None`: every read of `var` (a register not analysed).
    pub(super) fn readers(&self, var: VarId, slot: usize) -> Option<(&[StmtId], &[StmtId])> {
        let &(a, b) = self.merged_index.get(var as usize)?;
        if a == NONE {
            return None;
        }
        let merged = &self.merged[a as usize..b as usize];
        let reached = match (self.reader_index.get(slot), self.reader_index.get(slot + 1)) {
            (Some(&lo), Some(&hi)) => &self.readers[lo as usize..hi as usize],
            _ => &[],
        };
        Some((reached, merged))
    }

    /// The value slots of the writes of `var` that reach its read at `stmt`; `None`: every
    /// write of it.
    #[inline(always)]
    pub(super) fn at(&self, stmt: StmtId, var: VarId) -> Option<&[u32]> {
        let i = stmt.index();
        let (&lo, &hi) = (self.index.get(i)?, self.index.get(i + 1)?);
        if lo == hi {
            return None;
        }
        self.reads[lo as usize..hi as usize]
            .iter()
            .find(|r| r.0 == var)
            .map(|&(_, a, b)| &self.slots[a as usize..b as usize])
    }
}

/// The writes of one register that reach the entry of block `b`; `None` when the search ran
/// past [`BUDGET`] blocks or [`MAX_WRITES`] writes.
fn entry_set<'a>(
    cfg: &Cfg,
    b: BlockId,
    writes_of: &impl Fn(BlockId) -> &'a [StmtId],
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
        for &d in writes_of(p).iter().rev() {
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
