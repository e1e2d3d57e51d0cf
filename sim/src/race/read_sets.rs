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
#[derive(Default)]
pub(super) struct ReadSets {
    /// `INLINE_READERS` entries per slot; slot 0 is never used (a cell's 0 means no set).
    inline: Vec<Reader>,
    /// Per slot: how many readers it holds in `inline`, or [`SPILLED`] plus the index of its
    /// set in `spilled`.
    len: Vec<u32>,
    /// Sets too large for a slot; freed ones keep their capacity for the next.
    spilled: Vec<Vec<Reader>>,
    /// Per set of `spilled`: bit `who % 256` of each reader it holds, so that a new reader,
    /// the usual case, is mostly added without a search of the set.
    spilled_who: Vec<[u64; 4]>,
    free: Vec<u32>,
    free_spilled: Vec<u32>,
}

/// The bit of [`ReadSets::len`] that marks a slot whose set is in `spilled`.
const SPILLED: u32 = 1 << 31;

impl ReadSets {
    /// A new slot holding `first`.
    #[inline]
    pub(super) fn open(&mut self, first: &[Reader]) -> u32 {
        if self.len.is_empty() {
            self.len.push(0);
            self.inline.resize(INLINE_READERS, (0, 0));
        }
        let slot = self.free.pop().unwrap_or_else(|| {
            self.len.push(0);
            self.inline
                .resize(self.inline.len() + INLINE_READERS, (0, 0));
            (self.len.len() - 1) as u32
        });
        if first.len() <= INLINE_READERS {
            let at = slot as usize * INLINE_READERS;
            self.inline[at..at + first.len()].copy_from_slice(first);
            self.len[slot as usize] = first.len() as u32;
        } else {
            self.len[slot as usize] = self.spill(first);
        }
        slot
    }

    /// A set of its own holding `readers`: the [`ReadSets::len`] of its slot.
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

    #[inline(always)]
    pub(super) fn get(&self, slot: u32) -> &[Reader] {
        let n = self.len[slot as usize];
        if n & SPILLED != 0 {
            return &self.spilled[(n & !SPILLED) as usize];
        }
        let at = slot as usize * INLINE_READERS;
        &self.inline[at..at + n as usize]
    }

    /// Records read `me` in `slot`: a reader already there keeps its latest clock.
    #[inline(always)]
    pub(super) fn add(&mut self, slot: u32, me: Access) {
        let n = self.len[slot as usize];
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
            self.len[slot as usize] = n + 1;
        } else {
            let mut set = [(0, 0); INLINE_READERS + 1];
            set[..INLINE_READERS].copy_from_slice(&self.inline[at..at + INLINE_READERS]);
            set[INLINE_READERS] = (me.who, me.clock);
            self.len[slot as usize] = self.spill(&set);
        }
    }

    /// Frees `slot` (its cell was written).
    #[inline]
    pub(super) fn close(&mut self, slot: u32) {
        let n = self.len[slot as usize];
        if n & SPILLED != 0 {
            self.spilled[(n & !SPILLED) as usize].clear();
            self.spilled_who[(n & !SPILLED) as usize] = [0; 4];
            self.free_spilled.push(n & !SPILLED);
        }
        self.len[slot as usize] = 0;
        self.free.push(slot);
    }
}
