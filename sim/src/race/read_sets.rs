//! The concurrent readers of shadow-memory cells ([`super::Cell::reads`]).

use super::Access;

/// The concurrent reads of a cell since its last write: (clock component, latest clock) per
/// reader, in no order. Sparse, as a cell has few concurrent readers but for broadcasts: a
/// dense clock per cell cost an allocation of the cluster's width (hundreds of components)
/// for every cell two warps read.
pub(super) type Reader = (u32, u32);

/// Readers a slot holds in place before its set moves to a vector of its own.
const INLINE_READERS: usize = 8;

/// The read sets of the cells with concurrent readers, in slots that a cell names
/// ([`super::Cell::reads`]): no hashing of a cell's key at each access, and no allocation per set.
/// A slot holds [`INLINE_READERS`] readers in one flat table; a larger set (broadcast reads)
/// moves to a vector of its own. A slot freed by a write is given to the next cell.
///
/// Cells with equal sets may share a slot (counted in [`Slot::refs`]): one operation reading a tile
/// (a `wgmma` operand, a bulk store's box) adds the same reader to thousands of cells whose
/// sets the operations before it made equal, so it adds it once and moves the others to the
/// result ([`ReadMemo`]). A shared set is never changed in place: adding a reader to it gives
/// the cell a copy ([`ReadSets::add`]).
#[derive(Default)]
pub(super) struct ReadSets {
    /// `INLINE_READERS` entries per slot; slot 0 is never used (a cell's 0 means no set).
    inline: Vec<Reader>,
    /// Per slot: its set's length and how many cells name it.
    slots: Vec<Slot>,
    /// Sets too large for a slot; freed ones keep their capacity for the next.
    spilled: Vec<Vec<Reader>>,
    /// Per set of `spilled`: bit `who % 256` of each reader it holds, so that a new reader,
    /// the usual case, is mostly added without a search of the set.
    spilled_who: Vec<[u64; 4]>,
    free: Vec<u32>,
    free_spilled: Vec<u32>,
}

/// A slot of [`ReadSets`] (one word each, read together).
#[derive(Clone, Copy, Default)]
struct Slot {
    /// How many readers the set holds in `inline`, or [`SPILLED`] plus the index of its set
    /// in `spilled`.
    len: u32,
    /// How many cells (or bytes of split cells) name it.
    refs: u32,
}

/// What one reader's adds in a run of cells did, for the next cells of the run
/// ([`ReadSets::add_memo`], [`ReadSets::open_memo`]): valid while the reader is the same. The
/// run ends with [`ReadSets::settle`], which brings the slots' counts up to date.
#[derive(Default)]
pub(super) struct ReadMemo {
    /// Adding the reader to the set of slot `.0` gave slot `.1`.
    added: Option<(u32, u32)>,
    /// Cells moved from `added.0` to `added.1` since the counts were last brought up to date
    /// ([`ReadSets::settle`]): a run of cells moves at the cost of a count, not of two counts
    /// changed a cell (the TMA stores of a tile that many threads store each move 2048 cells).
    moved: u32,
    /// The set of the single earlier read `.0` and the reader is slot `.1`.
    opened: Option<(Reader, u32)>,
}

impl ReadMemo {
    /// The slots the last add moved a cell between (`from`, `to`): a cell whose set is `from`
    /// gets `to` from [`ReadSets::add_memo`], counted as moved.
    #[inline(always)]
    pub(super) fn moving(&self) -> Option<(u32, u32)> {
        self.added
    }

    /// `n` cells moved from the [`ReadMemo::moving`] slots' first to their second, as `n`
    /// calls of [`ReadSets::add_memo`] would count them.
    #[inline(always)]
    pub(super) fn moved(&mut self, n: u32) {
        self.moved += n;
    }
}

/// The bit of [`Slot::len`] that marks a slot whose set is in `spilled`.
const SPILLED: u32 = 1 << 31;

impl ReadSets {
    /// A new slot holding `first`.
    #[inline]
    pub(super) fn open(&mut self, first: &[Reader]) -> u32 {
        let slot = self.new_slot();
        self.slots[slot as usize].refs = 1;
        if first.len() <= INLINE_READERS {
            let at = slot as usize * INLINE_READERS;
            self.inline[at..at + first.len()].copy_from_slice(first);
            self.slots[slot as usize].len = first.len() as u32;
        } else {
            self.slots[slot as usize].len = self.spill(first);
        }
        slot
    }

    /// A new slot holding two readers of different components: `open(&[first])` and then an
    /// add of `second`, without the copy of a slice of any length (a call to `memcpy`) and the
    /// search of the one-reader set. The usual new set: a cell's single earlier read and a
    /// concurrent one.
    #[inline]
    fn open_pair(&mut self, first: Reader, second: Reader) -> u32 {
        debug_assert_ne!(first.0, second.0, "two readers of one component");
        let slot = self.new_slot();
        self.slots[slot as usize] = Slot { len: 2, refs: 1 };
        let at = slot as usize * INLINE_READERS;
        self.inline[at] = first;
        self.inline[at + 1] = second;
        slot
    }

    /// A slot to fill: a freed one, else a new one (slot 0, never used, made first).
    #[inline(always)]
    fn new_slot(&mut self) -> u32 {
        if self.slots.is_empty() {
            self.slots.push(Slot::default());
            self.inline.resize(INLINE_READERS, (0, 0));
        }
        match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.slots.push(Slot::default());
                self.inline
                    .resize(self.inline.len() + INLINE_READERS, (0, 0));
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// A set of its own holding `readers`: the [`Slot::len`] of its slot.
    fn spill(&mut self, readers: &[Reader]) -> u32 {
        let i = match self.free_spilled.pop() {
            Some(i) => i,
            None => {
                // Room to grow: such sets (operand tiles read by every warp of a CTA) often
                // reach a few times a slot's readers, and each doubling was a reallocation.
                self.spilled
                    .push(Vec::with_capacity(4 * (INLINE_READERS + 1)));
                self.spilled_who.push([0; 4]);
                (self.spilled.len() - 1) as u32
            }
        };
        self.spilled[i as usize].extend_from_slice(readers);
        let who = &mut self.spilled_who[i as usize];
        for &(w, _) in readers {
            who[(w as usize / 64) % 4] |= 1 << (w % 64);
        }
        SPILLED | i
    }

    /// How many cells name `slot` (for tests).
    #[cfg(test)]
    pub(super) fn slots_refs(&self, slot: u32) -> u32 {
        self.slots[slot as usize].refs
    }

    /// The slots some cell names, with their counts (for tests).
    #[cfg(test)]
    pub(super) fn slots_in_use(&self) -> Vec<(u32, u32)> {
        (1..self.slots.len() as u32)
            .map(|s| (s, self.slots[s as usize].refs))
            .filter(|&(_, n)| n != 0)
            .collect()
    }

    #[inline(always)]
    pub(super) fn get(&self, slot: u32) -> &[Reader] {
        let n = self.slots[slot as usize].len;
        if n & SPILLED != 0 {
            return &self.spilled[(n & !SPILLED) as usize];
        }
        let at = slot as usize * INLINE_READERS;
        &self.inline[at..at + n as usize]
    }

    /// Records read `me` in the set of `slot` (a reader already there keeps its latest clock):
    /// the cell's slot after it, `slot` itself unless the set is shared and changes (then the
    /// cell gets a copy).
    #[inline(always)]
    pub(super) fn add(&mut self, slot: u32, me: Access) -> u32 {
        if self.slots[slot as usize].refs > 1 {
            return self.add_shared(slot, me);
        }
        self.add_in_place(slot, me);
        slot
    }

    /// [`ReadSets::add`] to a shared set: a copy with `me` for the cell, unless `me` is there
    /// already with a clock as late.
    #[cold]
    fn add_shared(&mut self, slot: u32, me: Access) -> u32 {
        let set = self.get(slot);
        if set.iter().any(|&(who, c)| who == me.who && c >= me.clock) {
            return slot;
        }
        let n = self.slots[slot as usize].len;
        if n & SPILLED == 0 {
            // The usual shared set (a row's cells, which the same lanes read): its slot copied
            // whole into a new one (a fixed-size copy) and the reader added there. A vector for
            // the copy was an allocation for every row an `ldmatrix` reads.
            let to = self.new_slot();
            let (from_at, to_at) = (slot as usize * INLINE_READERS, to as usize * INLINE_READERS);
            let readers: [Reader; INLINE_READERS] = self.inline[from_at..from_at + INLINE_READERS]
                .try_into()
                .expect("a slot's readers");
            self.inline[to_at..to_at + INLINE_READERS].copy_from_slice(&readers);
            self.slots[slot as usize].refs -= 1;
            self.slots[to as usize] = Slot { len: n, refs: 1 };
            self.add_in_place(to, me);
            return to;
        }
        let mut copy = Vec::with_capacity(set.len() + 1);
        copy.extend_from_slice(set);
        match copy.iter_mut().find(|(who, _)| *who == me.who) {
            Some((_, c)) => *c = (*c).max(me.clock),
            None => copy.push((me.who, me.clock)),
        }
        self.slots[slot as usize].refs -= 1;
        self.open(&copy)
    }

    /// [`ReadSets::add`] for the run of cells of one reader `me`: a cell whose set is the one
    /// the last add changed gets that add's result, shared, instead of an add of its own.
    #[inline(always)]
    pub(super) fn add_memo(&mut self, slot: u32, me: Access, memo: &mut ReadMemo) -> u32 {
        if let Some((from, to)) = memo.added
            && from == slot
        {
            memo.moved += 1;
            return to;
        }
        // The counts of `from` and `to` are read by what follows (an add to a set that is
        // shared, or a slot freed and given out again): up to date first.
        self.settle(memo);
        let to = self.add(slot, me);
        if to != slot {
            memo.added = Some((slot, to));
        }
        to
    }

    /// [`ReadSets::add_memo`] for the first cell of a uniform quad (its four cells name `slot`,
    /// and the caller gives the other three the result: [`ReadSets::repeat_memo`]): where the
    /// four are the only cells that name the set, the reader is added to it in place, as
    /// [`ReadSets::add`] does to a set of one cell. The add to a shared set copies it to a new
    /// slot for the cell, and the moves of the other three then leave the old slot to be
    /// freed: the same sets, the same readers in the same order, in another slot. An
    /// `ldmatrix` row is one quad read by one lane, its set shared by its four cells alone:
    /// every such read copied its set (the `mma.sync` matmul 256³: 104,448 rows, 34.2 M host
    /// instructions in `Race::read_rows`, 27.9 M with the add in place).
    #[inline(always)]
    pub(super) fn add_quad(&mut self, slot: u32, me: Access, memo: &mut ReadMemo) -> u32 {
        if let Some((from, to)) = memo.added
            && from == slot
        {
            memo.moved += 1;
            return to;
        }
        // The slot is neither of the memo's (not its `from`, above; not its `to`, a slot
        // that the run's earlier cells alone name): its count is up to date.
        if self.slots[slot as usize].refs == 4 {
            self.add_in_place(slot, me);
            return slot;
        }
        // The counts up to date before the memo takes another add, as in `add_memo`.
        self.settle(memo);
        let to = self.add(slot, me);
        if to != slot {
            memo.added = Some((slot, to));
        }
        to
    }

    /// A new slot holding the single earlier read `first` and `me`, for the run of cells of
    /// reader `me`: shared with the last such slot when `first` is the same.
    #[inline(always)]
    pub(super) fn open_memo(&mut self, first: Reader, me: Access, memo: &mut ReadMemo) -> u32 {
        if let Some((was, slot)) = memo.opened
            && was == first
        {
            self.slots[slot as usize].refs += 1;
            return slot;
        }
        self.settle(memo);
        let slot = self.open_first_and(first, me);
        memo.opened = Some((first, slot));
        slot
    }

    /// Brings the counts of the sets the memo moved cells between up to date: `to` is named by
    /// the moved cells, `from` by that many fewer, freed when none is left (as when each cell
    /// was moved in turn). Ends a run of [`ReadSets::add_memo`], before the sets are used
    /// without the memo.
    #[inline]
    pub(super) fn settle(&mut self, memo: &mut ReadMemo) {
        let n = std::mem::take(&mut memo.moved);
        if n == 0 {
            return;
        }
        let (from, to) = memo.added.expect("cells moved between the memo's sets");
        self.slots[to as usize].refs += n;
        debug_assert!(
            self.slots[from as usize].refs >= n,
            "the moved cells named the set"
        );
        self.slots[from as usize].refs -= n - 1;
        self.release(from, memo);
    }

    /// What `n` more records of the reader of the memo's run do to `n` cells in the state a
    /// cell had before its record changed its set from `before` to `after` (the other cells
    /// of a uniform quad, [`super::Shadow::quads`]): [`ReadSets::add_memo`] would move each of
    /// them to `after` (counted as moved), [`ReadSets::open_memo`] would give each the slot it
    /// opened (counted there), and a set left as it was stays.
    #[inline(always)]
    pub(super) fn repeat_memo(&mut self, before: u32, after: u32, n: u32, memo: &mut ReadMemo) {
        if before == after {
            return;
        }
        if before != 0 {
            debug_assert_eq!(memo.added, Some((before, after)), "the add the cell made");
            memo.moved += n;
        } else {
            debug_assert_eq!(
                memo.opened.map(|o| o.1),
                Some(after),
                "the open the cell made"
            );
            self.slots[after as usize].refs += n;
        }
    }

    /// `n` cells fewer name `slot` (written): [`ReadSets::close`] `n` times.
    #[inline(always)]
    pub(super) fn close_n(&mut self, slot: u32, n: u32) {
        let refs = &mut self.slots[slot as usize].refs;
        if *refs > n {
            *refs -= n;
            return;
        }
        debug_assert_eq!(*refs, n, "the closed cells named the set");
        *refs = 1;
        self.close(slot);
    }

    /// A new slot holding the single earlier read `first` and read `me`: as `open(&[first])`
    /// and then [`ReadSets::add`] of `me`.
    #[inline]
    pub(super) fn open_first_and(&mut self, first: Reader, me: Access) -> u32 {
        if first.0 == me.who {
            let slot = self.open(&[first]);
            self.add_in_place(slot, me);
            return slot;
        }
        self.open_pair(first, (me.who, me.clock))
    }

    /// One cell fewer names `slot` (moved to another set): freed with the last, and forgotten
    /// by the memo then (the slot may hold another set next).
    #[inline(always)]
    fn release(&mut self, slot: u32, memo: &mut ReadMemo) {
        if self.slots[slot as usize].refs > 1 {
            self.slots[slot as usize].refs -= 1;
            return;
        }
        self.close(slot);
        if memo
            .added
            .is_some_and(|(from, to)| from == slot || to == slot)
        {
            memo.added = None;
        }
        if memo.opened.is_some_and(|(_, s)| s == slot) {
            memo.opened = None;
        }
    }

    /// Records read `me` in the unshared set of `slot`.
    #[inline(always)]
    fn add_in_place(&mut self, slot: u32, me: Access) {
        let n = self.slots[slot as usize].len;
        if n & SPILLED != 0 {
            let i = (n & !SPILLED) as usize;
            let set = &mut self.spilled[i];
            let (word, bit) = ((me.who as usize / 64) % 4, 1u64 << (me.who % 64));
            let who = &mut self.spilled_who[i][word];
            if *who & bit != 0
                && let Some((_, c)) = set.iter_mut().find(|(who, _)| *who == me.who)
            {
                *c = (*c).max(me.clock);
            } else {
                *who |= bit;
                set.push((me.who, me.clock));
            }
            return;
        }
        let at = slot as usize * INLINE_READERS;
        let set = &mut self.inline[at..at + n as usize];
        if let Some((_, c)) = set.iter_mut().find(|(who, _)| *who == me.who) {
            *c = (*c).max(me.clock);
        } else if (n as usize) < INLINE_READERS {
            self.inline[at + n as usize] = (me.who, me.clock);
            self.slots[slot as usize].len = n + 1;
        } else {
            let mut set = [(0, 0); INLINE_READERS + 1];
            set[..INLINE_READERS].copy_from_slice(&self.inline[at..at + INLINE_READERS]);
            set[INLINE_READERS] = (me.who, me.clock);
            self.slots[slot as usize].len = self.spill(&set);
        }
    }

    /// Empties the sets, as new, keeping the allocations (for the next cluster run on the thread:
    /// a matmul's sets grew to thousands of slots in every cluster, a reallocation at each
    /// doubling).
    pub(super) fn reset(&mut self) {
        self.inline.clear();
        self.slots.clear();
        self.spilled.clear();
        self.spilled_who.clear();
        self.free.clear();
        self.free_spilled.clear();
    }

    /// One cell fewer names `slot` (its cell was written): freed with the last.
    #[inline]
    pub(super) fn close(&mut self, slot: u32) {
        if self.slots[slot as usize].refs > 1 {
            self.slots[slot as usize].refs -= 1;
            return;
        }
        self.slots[slot as usize].refs = 0;
        let n = self.slots[slot as usize].len;
        if n & SPILLED != 0 {
            self.spilled[(n & !SPILLED) as usize].clear();
            self.spilled_who[(n & !SPILLED) as usize] = [0; 4];
            self.free_spilled.push(n & !SPILLED);
        }
        self.slots[slot as usize].len = 0;
        self.free.push(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cell as far as its reads go: the single latest read, and its set's slot (0: none).
    #[derive(Clone, Copy, Default)]
    struct Cell {
        read: Option<Reader>,
        reads: u32,
    }

    fn access((who, clock): Reader) -> Access {
        Access {
            who,
            clock,
            pc: 0,
            instr: 0,
        }
    }

    /// The general path: `record_read` of a read concurrent with the cell's single one.
    fn record(sets: &mut ReadSets, cell: &mut Cell, me: Reader) {
        if cell.reads != 0 {
            cell.reads = sets.add(cell.reads, access(me));
        } else if let Some(first) = cell.read.filter(|r| r.0 != me.0) {
            let slot = sets.open(&[first]);
            cell.reads = sets.add(slot, access(me));
        }
        cell.read = Some(me);
    }

    /// The same with the memo of one reader's run of cells.
    fn record_memo(sets: &mut ReadSets, cell: &mut Cell, me: Reader, memo: &mut ReadMemo) {
        if cell.reads != 0 {
            cell.reads = sets.add_memo(cell.reads, access(me), memo);
        } else if let Some(first) = cell.read.filter(|r| r.0 != me.0) {
            cell.reads = sets.open_memo(first, access(me), memo);
        }
        cell.read = Some(me);
    }

    fn set_of(sets: &ReadSets, cell: &Cell) -> Vec<Reader> {
        let mut v = if cell.reads == 0 {
            Vec::new()
        } else {
            sets.get(cell.reads).to_vec()
        };
        v.sort_unstable();
        v
    }

    /// Runs of reads by one reader over ranges of cells, with the memo, leave every cell the
    /// set that reading the cells one by one gives, through writes (which free the slots) and
    /// sets large enough to spill; and each slot is counted once per cell that names it.
    #[test]
    fn shared_sets_hold_what_per_cell_sets_hold() {
        let mut seed = 11u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        const N: usize = 48;
        let (mut plain, mut shared) = (ReadSets::default(), ReadSets::default());
        let (mut a, mut b) = ([Cell::default(); N], [Cell::default(); N]);
        let mut most_shared = 0;
        for step in 0..4000 {
            let lo = next(N as u64) as usize;
            let hi = lo + 1 + next((N - lo) as u64) as usize;
            if next(8) == 0 {
                for c in a[lo..hi].iter_mut() {
                    if c.reads != 0 {
                        plain.close(c.reads);
                    }
                    *c = Cell::default();
                }
                for c in b[lo..hi].iter_mut() {
                    if c.reads != 0 {
                        shared.close(c.reads);
                    }
                    *c = Cell::default();
                }
            } else {
                let me = (next(14) as u32, 1 + next(4) as u32);
                let mut memo = ReadMemo::default();
                for i in lo..hi {
                    record(&mut plain, &mut a[i], me);
                    record_memo(&mut shared, &mut b[i], me, &mut memo);
                }
                shared.settle(&mut memo);
            }
            for i in 0..N {
                assert_eq!(a[i].read, b[i].read, "step {step} cell {i}");
                assert_eq!(
                    set_of(&plain, &a[i]),
                    set_of(&shared, &b[i]),
                    "step {step} cell {i}"
                );
            }
            let mut named = vec![0u32; shared.slots.len().max(1)];
            for c in &b {
                named[c.reads as usize] += 1;
            }
            for (slot, &n) in named.iter().enumerate().skip(1) {
                assert_eq!(shared.slots[slot].refs, n, "step {step} slot {slot}");
            }
            most_shared = most_shared.max(named.iter().skip(1).copied().max().unwrap_or(0));
        }
        assert!(most_shared > 8, "cells shared sets");
        assert!(
            shared.slots.iter().any(|s| s.len & SPILLED != 0),
            "some set spilled"
        );
    }
}
