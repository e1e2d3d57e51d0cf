//! Happens-before: vector clocks per thread, and shadow memory of shared accesses
//! (FastTrack-style epochs: one write epoch and one read epoch per byte, inflated to a read
//! vector clock only when reads are concurrent).
//!
//! Clock components: one per thread of the cluster, then one per *async agent*, the
//! asynchronous proxy acting for a thread that issued `cp.async.bulk` or `cp.async` (given out
//! as threads issue their first operation). A thread's async operations share its agent's
//! component, which counts them in issue order: an access ordered after the completion of one
//! of them counts as ordered after the thread's earlier operations too (a source of missed
//! races, never of false ones). Barrier
//! operations release and acquire clocks as the spec orders memory:
//! - `bar.sync/red/arrive` (§9.7.13.1): every arrival releases, `sync`/`red` acquire the join;
//! - mbarrier arrive-on (release) and a successful `test_wait`/`try_wait` (acquire) of the
//!   completed phase (§9.7.13.15.16), complete-tx by a bulk copy releases the copy;
//! - `barrier.cluster.arrive` (release unless `.relaxed` without a preceding fence) and
//!   `barrier.cluster.wait` (acquire) (§9.7.13.3).
//!
//! `fence.proxy.async` is tracked per thread: a generic write is visible to a later async-proxy
//! read only through a proxy fence on a causality path from the write to the read (PTX ISA
//! §8.9.5, proxy-preserved base causality order): a fence of the writer after the write that
//! happens before the read, or a fence of the thread that issues the read, before the issue,
//! that the write happens before (threads write, `bar.sync`, every thread fences, one issues:
//! Triton's order). Fences of third threads on the path are not followed (missed fences are
//! reported: precision over recall stops there).

use rustc_hash::FxHashMap;

mod read_sets;
use read_sets::{ReadMemo, ReadSets};

/// A vector clock.
pub(crate) type Clock = Vec<u32>;

/// What an access has seen, component by component: a thread's clock (a slice) or an async
/// operation's ([`OpClock`]). The shadow-memory checks read clocks through it.
pub(crate) trait Seen {
    /// Component `i`.
    fn at(&self, i: usize) -> u32;
    /// How many components the clock has (the cluster's clock width).
    fn width(&self) -> usize;
    /// The clock as a plain vector, into `into`: component `i` of it is `self.at(i)` for
    /// every `i` below [`Seen::width`].
    fn write_to(&self, into: &mut Vec<u32>);
}

impl Seen for [u32] {
    #[inline(always)]
    fn at(&self, i: usize) -> u32 {
        self[i]
    }

    fn width(&self) -> usize {
        self.len()
    }

    fn write_to(&self, into: &mut Vec<u32>) {
        into.clear();
        into.extend_from_slice(self);
    }
}

/// A shared snapshot of a thread's clock with two components apart: the thread's own and its
/// async agent's. Snapshots are what make clocks cheap to hand around: a thread's clock is its
/// snapshot in every other component, an acquire gives it a new one (shared by the lanes that
/// acquire the same clock: [`Race::acquire`]), and after a CTA barrier every waiting thread's
/// clock *is* the barrier's joined clock but for those two, so a CTA's threads share one.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot<B> {
    base: B,
    /// The thread and its own component.
    thread: usize,
    own: u32,
    /// The component of the thread's async agent (`u32::MAX as usize`: none yet) and its value.
    agent: usize,
    agent_value: u32,
}

impl<B: std::ops::Deref<Target = [u32]>> Seen for Snapshot<B> {
    #[inline(always)]
    fn at(&self, i: usize) -> u32 {
        if i == self.thread {
            self.own
        } else if i == self.agent {
            self.agent_value
        } else {
            self.base[i]
        }
    }

    fn width(&self) -> usize {
        self.base.len()
    }

    fn write_to(&self, into: &mut Vec<u32>) {
        into.clear();
        into.extend_from_slice(&self.base);
        // The agent's component last: `at` takes the thread's first where they are one.
        for (i, v) in [(self.agent, self.agent_value), (self.thread, self.own)] {
            if let Some(x) = into.get_mut(i) {
                *x = v;
            }
        }
    }
}

/// The clock of an async operation: its issuing thread's clock at the issue, with a new event
/// of the thread's async agent; the snapshot is shared with the thread ([`Race::issue_async`]),
/// so issuing copies no clock (one warp instruction's 32 `cp.async`, and the CTA's until the
/// next barrier, share one).
pub(crate) type OpClock = Snapshot<std::sync::Arc<[u32]>>;

/// A thread's clock as the shadow-memory checks read it when its row is out of date: its
/// snapshot, with its own component and its agent's (always current in the row) apart.
pub(crate) type ThreadClock<'a> = Snapshot<&'a [u32]>;

/// The clock of one lane's `cp.async`, read from the parts its operation keeps
/// ([`IssuedAsync`] and the issuing thread's snapshot): the same clock as the [`OpClock`]
/// [`Race::issue_async`] gives, without a shared pointer per lane.
pub(crate) type LaneClock<'a> = Snapshot<&'a [u32]>;

impl<B> Snapshot<B> {
    /// The clock of an async operation of `thread` issued with `issued` on `base`.
    pub(crate) fn of(base: B, thread: u32, issued: IssuedAsync) -> Snapshot<B> {
        Snapshot {
            base,
            thread: thread as usize,
            own: issued.own,
            agent: issued.agent as usize,
            agent_value: issued.event,
        }
    }
}

/// What an async operation's clock holds besides its issuing thread's snapshot
/// ([`Race::issue_async_parts`]): the thread's own component at the issue, its agent's
/// component and the operation's event there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IssuedAsync {
    pub own: u32,
    pub agent: u32,
    pub event: u32,
}

impl OpClock {
    /// The operation's event in its agent's component.
    pub(crate) fn event(&self) -> u32 {
        self.agent_value
    }

    /// `into = max(into, self)`, widening `into` to the clock's width.
    pub(crate) fn join_into(&self, into: &mut Clock) {
        if into.len() < self.base.len() {
            into.resize(self.base.len(), 0);
        }
        join_into(into, &self.base);
        for i in [self.thread, self.agent] {
            into[i] = into[i].max(self.at(i));
        }
    }

    /// The clock as a vector (for the operations that release it into an mbarrier).
    pub(crate) fn to_clock(&self) -> Clock {
        let mut vc = self.base.to_vec();
        vc[self.thread] = self.own;
        vc[self.agent] = self.agent_value;
        vc
    }
}

/// `into = max(into, from)` componentwise. Clocks stay below 2^31, so the signed maximum
/// (one compare and blend per lane with baseline SSE2) gives the same result.
pub(crate) fn join_into(into: &mut [u32], from: &[u32]) {
    let n = into.len().min(from.len());
    let (into, from) = (&mut into[..n], &from[..n]);
    for i in 0..n {
        into[i] = (into[i] as i32).max(from[i] as i32) as u32;
    }
}

/// Who made an access: a thread or the async agent of a thread, at which op.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Access {
    /// Clock component (a thread's, or an async agent's: see [`Race::agent`]).
    pub who: u32,
    /// Its clock at the access; 0 = no access.
    pub clock: u32,
    pub pc: u32,
    /// The warp-wide execution of a store the access belongs to (0: none). The lanes of one
    /// store instruction that write one address are not a race: one of the values lands
    /// (CUDA C++ Programming Guide, SIMT architecture), as when every lane of a warp stores
    /// the same reduced value (Triton's softmax).
    pub instr: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    write: Access,
    /// Fences of the writer before the write (see module docs).
    write_fences: u32,
    read: Access,
    /// The reads since the last write are in this slot of the shadow's read sets (concurrent
    /// readers); 0: none, `read` is the only one that counts.
    reads: u32,
    /// This 4-byte granule is tracked per byte (in `Shadow::bytes`) since a narrower access.
    split: bool,
    /// The last write was an element-wise reduction of the async proxy (`cp.reduce.async.bulk`):
    /// reductions are atomic with respect to each other, so another one need not be ordered
    /// after it.
    reduced: bool,
    /// The last write was a `cp.async`'s: an async agent's, but in the generic proxy (only the
    /// bulk copies and wgmma are async-proxy operations), so an async-proxy read needs a
    /// `fence.proxy.async` after it too (its issuing thread's, or the reader's).
    generic: bool,
}

/// A conflict: the earlier access and whether it was a write.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conflict {
    pub earlier: Access,
    pub earlier_write: bool,
    pub offset: u32,
    /// For async reads of generic writes: the writer had no fence.proxy.async before the read.
    pub missing_fence: bool,
}

/// Shadow memory of one cluster's shared memory: a cell per 4-byte granule, split into
/// per-byte cells for granules that see narrower accesses.
///
/// The cells are also grouped in *quads*, the 4 cells of an aligned 16 bytes: the unit of a
/// `cp.async` lane's write, an `ldmatrix` row, a `wgmma` operand chunk, and the rows of TMA
/// boxes. A quad marked *uniform* ([`Shadow::uniform`]) has 4 equal cells (equal in every
/// field, naming one read set, none split), which an access of the whole quad leaves equal:
/// the access then checks the first cell only and copies it to the other three
/// ([`Shadow::quads`]). The checks' cost is then per quad, not per cell, while every cell
/// stays in place for the paths that take cells one by one (which unmark the quads they
/// touch). A write of a whole quad marks it, whatever its cells were.
#[derive(Default)]
struct Shadow {
    cells: Vec<Vec<Cell>>,
    /// Per CTA, per quad (16 bytes, 4 cells), whether its 4 cells are equal, so that an access
    /// of the whole quad may take the first cell for all four. Cleared by every access
    /// through the cell-by-cell paths ([`Shadow::aligned`], [`Shadow::visit`]). (Kept in the
    /// cells instead, as a mark in each of the 4 that any change of a cell clears, it
    /// counted more host instructions: see the book's fourteenth round.)
    uniform: Vec<Vec<bool>>,
    bytes: FxHashMap<(u32, u32), [Cell; 4]>,
    /// Per CTA, whether any of its granules is split (in `bytes`): until one is, the accessors'
    /// loops need not look for split cells (a test a cell, on every access).
    any_split: Vec<bool>,
    /// Concurrent readers of the cells that have them.
    read_sets: ReadSets,
}

impl Shadow {
    /// The cells of `ctas` CTAs of `shared_bytes` each, every one [`Cell::default`]: those of
    /// the last cluster this thread ran, reset when it left them ([`Shadow::drop`]), else new.
    /// Each cluster's shadow was a new vector of 44-byte cells (megabytes for a Hopper GEMM's
    /// CTA), its pages faulted in anew. (Resetting only the cells a cluster accessed, noted at
    /// each access, counted more host instructions than resetting them all.)
    fn new(ctas: usize, shared_bytes: usize) -> Shadow {
        let (mut cells, read_sets) = SPARE_CELLS.with(|s| std::mem::take(&mut *s.borrow_mut()));
        cells.truncate(ctas);
        cells.resize_with(ctas, Vec::new);
        for c in &mut cells {
            c.resize(shared_bytes.div_ceil(4), Cell::default());
        }
        // Every cell starts as the default: every quad is uniform.
        let uniform = cells
            .iter()
            .map(|c| vec![true; c.len().div_ceil(4)])
            .collect();
        Shadow {
            cells,
            uniform,
            bytes: FxHashMap::default(),
            read_sets,
            any_split: vec![false; ctas],
        }
    }

    /// Marks the quads overlapping `[off, off + len)` of CTA `cta` as not uniform: an access
    /// cell by cell is about to change some of their cells.
    #[inline(always)]
    fn unmark(&mut self, cta: u32, off: u32, len: u32) {
        let flags = &mut self.uniform[cta as usize];
        let (first, end) = ((off / 16) as usize, (off + len).div_ceil(16) as usize);
        if end == first + 1 {
            flags[first] = false;
        } else {
            flags[first..end].fill(false);
        }
    }

    /// The quads of `[off, off + len)` with their marks when the range is whole quads (16-byte
    /// aligned) none of whose cells is split: the accessors' quad paths.
    #[inline(always)]
    #[allow(clippy::type_complexity)]
    fn quads(
        &mut self,
        cta: u32,
        off: u32,
        len: u32,
    ) -> Option<(&mut [[Cell; 4]], &mut [bool], &mut ReadSets)> {
        if !off.is_multiple_of(16) || !len.is_multiple_of(16) || len == 0 {
            return None;
        }
        let cells = &mut self.cells[cta as usize][(off / 4) as usize..((off + len) / 4) as usize];
        if self.any_split[cta as usize] && cells.iter().any(|c| c.split) {
            return None;
        }
        let flags =
            &mut self.uniform[cta as usize][(off / 16) as usize..((off + len) / 16) as usize];
        Some((cells.as_chunks_mut::<4>().0, flags, &mut self.read_sets))
    }

    /// The cells of `[off, off + len)` when it covers whole granules none of which is split:
    /// the common case, which the accessors run as a plain loop. The quads it overlaps are
    /// unmarked (the caller may change their cells one by one).
    #[inline(always)]
    fn aligned(&mut self, cta: u32, off: u32, len: u32) -> Option<(&mut [Cell], &mut ReadSets)> {
        if !off.is_multiple_of(4) || !len.is_multiple_of(4) {
            return None;
        }
        self.unmark(cta, off, len);
        let cells = &mut self.cells[cta as usize][(off / 4) as usize..((off + len) / 4) as usize];
        if self.any_split[cta as usize] && cells.iter().any(|c| c.split) {
            return None;
        }
        Some((cells, &mut self.read_sets))
    }

    /// The cell of the granule at `off` (4-byte aligned) unless it is split, its quad
    /// unmarked: [`Shadow::aligned`] of 4 bytes without the range's arithmetic (the quads it
    /// overlaps, a slice of cells, a loop), which the scalar accesses paid for since the
    /// quads came (the fourteenth round).
    #[inline(always)]
    fn granule(&mut self, cta: u32, off: u32) -> Option<(&mut Cell, &mut ReadSets)> {
        debug_assert!(off.is_multiple_of(4));
        self.uniform[cta as usize][(off / 16) as usize] = false;
        let cell = &mut self.cells[cta as usize][(off / 4) as usize];
        if self.any_split[cta as usize] && cell.split {
            return None;
        }
        Some((cell, &mut self.read_sets))
    }

    /// Calls `f` on every cell covering `[off, off + len)` of CTA `cta`, with the cell's key:
    /// a plain loop over whole granules when none is split (the common case), else [`Shadow::visit`].
    #[inline(always)]
    fn each(
        &mut self,
        cta: u32,
        off: u32,
        len: u32,
        mut f: impl FnMut(&mut Cell, &mut ReadSets, u32) -> Result<(), Conflict>,
    ) -> Result<(), Conflict> {
        if let Some((cells, sets)) = self.aligned(cta, off, len) {
            for (k, cell) in cells.iter_mut().enumerate() {
                f(cell, sets, off + 4 * k as u32)?;
            }
            return Ok(());
        }
        self.visit(cta, off, len, f)
    }

    /// Calls `f` on every cell covering `[off, off + len)` of CTA `cta`, with the cell's key.
    #[inline(always)]
    fn visit(
        &mut self,
        cta: u32,
        off: u32,
        len: u32,
        mut f: impl FnMut(&mut Cell, &mut ReadSets, u32) -> Result<(), Conflict>,
    ) -> Result<(), Conflict> {
        self.unmark(cta, off, len);
        let aligned = off.is_multiple_of(4) && len.is_multiple_of(4);
        let cells = &mut self.cells[cta as usize];
        for g in off / 4..(off + len).div_ceil(4) {
            let cell = &mut cells[g as usize];
            if aligned && !cell.split {
                f(cell, &mut self.read_sets, g * 4)?;
                continue;
            }
            if !cell.split {
                let whole = Cell {
                    split: false,
                    ..*cell
                };
                // Each byte gets its own copy of the granule's read set (byte 0 keeps it).
                let mut split = [whole; 4];
                if whole.reads != 0 {
                    let set = self.read_sets.get(whole.reads).to_vec();
                    for byte in &mut split[1..] {
                        byte.reads = self.read_sets.open(&set);
                    }
                }
                self.bytes.insert((cta, g), split);
                cell.split = true;
                self.any_split[cta as usize] = true;
            }
            let bytes = self.bytes.get_mut(&(cta, g)).expect("split granule");
            for b in 0..4 {
                let byte = g * 4 + b;
                if byte >= off && byte < off + len {
                    f(&mut bytes[b as usize], &mut self.read_sets, byte)?;
                }
            }
        }
        Ok(())
    }
}

/// [`Shadow::each`] with `$body` written out in the loop over whole granules rather than
/// called: as a closure, the body of a generic read or write was a call per cell that the
/// compiler would not inline (it is also passed to [`Shadow::visit`], the rare case).
macro_rules! each_cell {
    ($shadow:expr, $cta:expr, $off:expr, $len:expr, |$cell:ident, $sets:ident, $key:ident| $body:expr) => {{
        let shadow: &mut Shadow = $shadow;
        let (cta, off, len) = ($cta, $off, $len);
        if len == 4 && off.is_multiple_of(4) {
            // One whole granule (a scalar access, a 4-byte `cp.async`): the cell alone.
            match shadow.granule(cta, off) {
                Some((granule, $sets)) => {
                    let $cell = granule;
                    let $key = off;
                    $body
                }
                None => shadow.visit(cta, off, len, |$cell, $sets, $key| $body),
            }
        } else {
            each_cell!(@cells shadow, cta, off, len, |$cell, $sets, $key| $body)
        }
    }};
    (@cells $shadow:ident, $cta:ident, $off:ident, $len:ident, |$cell:ident, $sets:ident, $key:ident| $body:expr) => {{
        let (shadow, cta, off, len) = ($shadow, $cta, $off, $len);
        match shadow.aligned(cta, off, len) {
            Some((cells, $sets)) => {
                let mut r = Ok(());
                for (k, $cell) in cells.iter_mut().enumerate() {
                    let $key = off + 4 * k as u32;
                    r = $body;
                    if r.is_err() {
                        break;
                    }
                }
                r
            }
            None => shadow.visit(cta, off, len, |$cell, $sets, $key| $body),
        }
    }};
}

#[inline(always)]
fn sees<S: Seen + ?Sized>(seen: &S, a: Access) -> bool {
    a.clock == 0 || seen.at(a.who as usize) >= a.clock
}

/// Records a read by `me` (whose clock is `seen`) in `cell`.
#[inline(always)]
fn record_read<S: Seen + ?Sized>(cell: &mut Cell, sets: &mut ReadSets, me: Access, seen: &S) {
    if cell.reads != 0 {
        cell.reads = sets.add(cell.reads, me);
    } else if cell.read.clock == 0 || cell.read.who == me.who || sees(seen, cell.read) {
        cell.read = me;
    } else {
        cell.reads = sets.open_first_and((cell.read.who, cell.read.clock), me);
        cell.read = me;
    }
}

/// [`record_read`] in a run of cells that one operation reads: cells whose read sets were
/// equal share the result ([`ReadMemo`]).
#[inline(always)]
fn record_read_memo<S: Seen + ?Sized>(
    cell: &mut Cell,
    sets: &mut ReadSets,
    me: Access,
    seen: &S,
    memo: &mut ReadMemo,
) {
    if cell.reads != 0 {
        cell.reads = sets.add_memo(cell.reads, me, memo);
    } else if cell.read.clock == 0 || cell.read.who == me.who || sees(seen, cell.read) {
        cell.read = me;
    } else {
        cell.reads = sets.open_memo((cell.read.who, cell.read.clock), me, memo);
        cell.read = me;
    }
}

/// [`record_read_memo`] of the first cell of a uniform quad, whose four cells name one set
/// ([`ReadSets::add_quad`]).
#[inline(always)]
fn record_read_quad<S: Seen + ?Sized>(
    cell: &mut Cell,
    sets: &mut ReadSets,
    me: Access,
    seen: &S,
    memo: &mut ReadMemo,
) {
    if cell.reads != 0 {
        cell.reads = sets.add_quad(cell.reads, me, memo);
    } else {
        record_read_memo(cell, sets, me, seen, memo);
    }
}

/// A generic read by `me` (whose clock is `seen`) of `cell`: the last write must be ordered
/// before it. `memo`: the cell is one of a run of cells that one read covers
/// ([`record_read_memo`]); without, the read's only cell.
#[inline(always)]
fn read_cell<S: Seen + ?Sized>(
    cell: &mut Cell,
    sets: &mut ReadSets,
    key: u32,
    me: Access,
    seen: &S,
    memo: Option<&mut ReadMemo>,
) -> Result<(), Conflict> {
    if !sees(seen, cell.write) {
        return Err(Conflict {
            earlier: cell.write,
            earlier_write: true,
            offset: key,
            missing_fence: false,
        });
    }
    match memo {
        Some(memo) => record_read_memo(cell, sets, me, seen, memo),
        None => record_read(cell, sets, me, seen),
    }
    Ok(())
}

/// The slot of the last read set that a run of cells one write covers found ordered before
/// the writer (0: none yet): the cells of a row that the same lanes read (a `cp.async`'s 16
/// bytes, an `ldmatrix` row) share their set ([`ReadMemo`]), and all but the first skip its
/// search. Within the run the sets do not change but by the run's own writes, which close
/// slots, and a slot is freed only when no cell names it any more.
#[derive(Default)]
struct WriteMemo(u32);

impl WriteMemo {
    /// [`check_write`] of `cell`, without the search of its read set if that passed already.
    #[inline(always)]
    fn check<S: Seen + ?Sized>(
        &mut self,
        cell: &Cell,
        sets: &ReadSets,
        key: u32,
        seen: &S,
        instr: u32,
    ) -> Result<(), Conflict> {
        if cell.reads == 0 || cell.reads != self.0 {
            check_write(cell, sets, key, seen, instr)?;
            self.0 = cell.reads;
            return Ok(());
        }
        check_write_only(cell, key, seen, instr)
    }
}

/// A write by `me` (whose clock is `seen`, with `fences` proxy fences before it) of `cell`,
/// checked against the cell's accesses (`me.instr`: the store's serial, see [`Access::instr`]).
/// `memo`: the cell is one of a run of cells that one write covers; without, the write's only
/// cell.
#[inline(always)]
fn write_cell<S: Seen + ?Sized>(
    cell: &mut Cell,
    sets: &mut ReadSets,
    key: u32,
    me: Access,
    seen: &S,
    fences: u32,
    memo: Option<&mut WriteMemo>,
) -> Result<(), Conflict> {
    match memo {
        Some(memo) => memo.check(cell, sets, key, seen, me.instr)?,
        None => check_write(cell, sets, key, seen, me.instr)?,
    }
    set_written(cell, sets, me, fences);
    Ok(())
}

/// Checks that a writer that has seen `seen` is ordered after every access in `cell`.
#[inline(always)]
fn check_write<S: Seen + ?Sized>(
    cell: &Cell,
    sets: &ReadSets,
    key: u32,
    seen: &S,
    instr: u32,
) -> Result<(), Conflict> {
    check_write_only(cell, key, seen, instr)?;
    check_after_reads(cell, sets, key, seen)
}

/// Checks that a writer that has seen `seen` is ordered after the last write in `cell`.
#[inline(always)]
fn check_write_only<S: Seen + ?Sized>(
    cell: &Cell,
    key: u32,
    seen: &S,
    instr: u32,
) -> Result<(), Conflict> {
    let same_store = instr != 0 && cell.write.instr == instr;
    if !sees(seen, cell.write) && !same_store {
        return Err(Conflict {
            earlier: cell.write,
            earlier_write: true,
            offset: key,
            missing_fence: false,
        });
    }
    Ok(())
}

/// Checks that a writer that has seen `seen` is ordered after every read in `cell`.
#[inline(always)]
fn check_after_reads<S: Seen + ?Sized>(
    cell: &Cell,
    sets: &ReadSets,
    key: u32,
    seen: &S,
) -> Result<(), Conflict> {
    if cell.reads != 0 {
        // The unordered read of the lowest component, whatever order the set is in.
        if let Some(&(who, c)) = sets
            .get(cell.reads)
            .iter()
            .filter(|(who, c)| *c > seen.at(*who as usize))
            .min_by_key(|(who, _)| *who)
        {
            return Err(Conflict {
                earlier: Access {
                    who,
                    clock: c,
                    pc: cell.read.pc,
                    instr: 0,
                },
                earlier_write: false,
                offset: key,
                missing_fence: false,
            });
        }
    } else if !sees(seen, cell.read) {
        return Err(Conflict {
            earlier: cell.read,
            earlier_write: false,
            offset: key,
            missing_fence: false,
        });
    }
    Ok(())
}

#[inline(always)]
fn set_written(cell: &mut Cell, sets: &mut ReadSets, me: Access, fences: u32) {
    if cell.reads != 0 {
        sets.close(cell.reads);
    }
    *cell = Cell {
        write: me,
        write_fences: fences,
        read: Access::default(),
        reads: 0,
        split: cell.split,
        reduced: false,
        generic: false,
    };
}

/// The other three cells of a uniform quad made equal to its first, which the access has
/// just checked and changed: what the access does to each of them, the cells being equal
/// (and the read sets' counts brought to it by the caller).
#[inline(always)]
fn copy_first(quad: &mut [Cell; 4]) {
    let first = quad[0];
    quad[1] = first;
    quad[2] = first;
    quad[3] = first;
}

/// A generic read by `me` (whose clock is `seen`) of whole quads (the first at `off`), one
/// check a uniform quad: as [`read_cell`] of each cell in order with the run's `memo`. A
/// uniform quad's cells are equal, so each would pass as its first does and be recorded as it
/// is, sharing the set the first's record gave ([`ReadSets::repeat_memo`]).
#[inline(always)]
fn read_quads<S: Seen + ?Sized>(
    quads: &mut [[Cell; 4]],
    marks: &[bool],
    sets: &mut ReadSets,
    off: u32,
    me: Access,
    seen: &S,
    memo: &mut ReadMemo,
) -> Result<(), Conflict> {
    for (q, (quad, &uniform)) in quads.iter_mut().zip(marks).enumerate() {
        let key = off + 16 * q as u32;
        if uniform {
            let before = quad[0].reads;
            if !sees(seen, quad[0].write) {
                return Err(Conflict {
                    earlier: quad[0].write,
                    earlier_write: true,
                    offset: key,
                    missing_fence: false,
                });
            }
            record_read_quad(&mut quad[0], sets, me, seen, memo);
            sets.repeat_memo(before, quad[0].reads, 3, memo);
            copy_first(quad);
        } else {
            for (k, cell) in quad.iter_mut().enumerate() {
                read_cell(cell, sets, key + 4 * k as u32, me, seen, Some(memo))?;
            }
        }
    }
    Ok(())
}

/// [`read_quads`] of one uniform quad at `off`, a read of its own (its memo settled after):
/// the check of the first cell's write, its record, the other three given the result.
#[inline(always)]
fn read_uniform_quad<S: Seen + ?Sized>(
    quad: &mut [Cell; 4],
    sets: &mut ReadSets,
    off: u32,
    me: Access,
    seen: &S,
) -> Result<(), Conflict> {
    if !sees(seen, quad[0].write) {
        return Err(Conflict {
            earlier: quad[0].write,
            earlier_write: true,
            offset: off,
            missing_fence: false,
        });
    }
    let mut memo = ReadMemo::default();
    let before = quad[0].reads;
    record_read_quad(&mut quad[0], sets, me, seen, &mut memo);
    sets.repeat_memo(before, quad[0].reads, 3, &mut memo);
    copy_first(quad);
    sets.settle(&mut memo);
    Ok(())
}

/// A write by `me` (whose clock is `seen`, with `fences` proxy fences before it) of whole
/// quads (the first at `off`): as [`write_cell`] of each cell in order with one
/// [`WriteMemo`], each cell then marked `generic` or not (a `cp.async`'s write or a store). A
/// uniform quad's cells pass as its first does (the memo skips the same set's search for the
/// others); every quad written is uniform after.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn write_quads<S: Seen + ?Sized>(
    quads: &mut [[Cell; 4]],
    marks: &mut [bool],
    sets: &mut ReadSets,
    off: u32,
    me: Access,
    seen: &S,
    fences: u32,
    generic: bool,
) -> Result<(), Conflict> {
    let mut memo = WriteMemo::default();
    for (q, (quad, uniform)) in quads.iter_mut().zip(marks).enumerate() {
        let key = off + 16 * q as u32;
        if *uniform {
            memo.check(&quad[0], sets, key, seen, me.instr)?;
            let before = quad[0].reads;
            set_written(&mut quad[0], sets, me, fences);
            if before != 0 {
                sets.close_n(before, 3);
            }
            quad[0].generic = generic;
            copy_first(quad);
        } else {
            for (k, cell) in quad.iter_mut().enumerate() {
                write_cell(
                    cell,
                    sets,
                    key + 4 * k as u32,
                    me,
                    seen,
                    fences,
                    Some(&mut memo),
                )?;
                cell.generic = generic;
            }
            *uniform = true;
        }
    }
    Ok(())
}

/// The check and record of an async-proxy write by `me` (an operation with clock `vc`) of
/// `cell` ([`Race::async_write`]).
#[inline(always)]
fn async_write_cell<S: Seen + ?Sized>(
    cell: &mut Cell,
    sets: &mut ReadSets,
    key: u32,
    me: Access,
    vc: &S,
    reduction: bool,
) -> Result<(), Conflict> {
    if reduction && cell.reduced {
        check_after_reads(cell, sets, key, vc)
    } else {
        check_write(cell, sets, key, vc, 0)
    }
    .map(|()| {
        set_written(cell, sets, me, 0);
        cell.reduced = reduction;
    })
}

/// [`async_write_cell`] of every cell of whole quads (the first at `off`), one check a
/// uniform quad (its cells pass as the first does); every quad written is uniform after.
#[inline(always)]
fn async_write_quads<S: Seen + ?Sized>(
    quads: &mut [[Cell; 4]],
    marks: &mut [bool],
    sets: &mut ReadSets,
    off: u32,
    me: Access,
    vc: &S,
    reduction: bool,
) -> Result<(), Conflict> {
    for (q, (quad, uniform)) in quads.iter_mut().zip(marks).enumerate() {
        let key = off + 16 * q as u32;
        if *uniform {
            let before = quad[0].reads;
            async_write_cell(&mut quad[0], sets, key, me, vc, reduction)?;
            if before != 0 {
                sets.close_n(before, 3);
            }
            copy_first(quad);
        } else {
            for (k, cell) in quad.iter_mut().enumerate() {
                async_write_cell(cell, sets, key + 4 * k as u32, me, vc, reduction)?;
            }
            *uniform = true;
        }
    }
    Ok(())
}

/// Runs `$body` with `$shadow` bound to the shadow memory and `$seen` to thread `$t`'s clock:
/// its row when current (the common case outside barrier phases), else its snapshot
/// ([`ThreadClock`]), without bringing the row up to date. The body is compiled once for each,
/// so the common case reads the row with no indirection.
macro_rules! with_thread_clock {
    ($race:expr, $t:expr, |$shadow:ident, $seen:ident| $body:expr) => {{
        let race: &mut Race = $race;
        let i = $t as usize;
        let row = &race.clocks[i * race.dims..(i + 1) * race.dims];
        let $shadow = &mut race.shadow;
        if race.stale[i] {
            let agent = race.agent_of[i] as usize;
            let $seen = &ThreadClock {
                base: &race.snapshot[i],
                thread: i,
                own: row[i],
                agent,
                agent_value: row.get(agent).copied().unwrap_or(0),
            };
            $body
        } else {
            let $seen = row;
            $body
        }
    }};
}

pub(crate) struct Race {
    pub threads: usize,
    dims: usize,
    /// Components in use: the threads', and the async agents' once an operation was issued
    /// (joins skip the rest, which are zero).
    width: usize,
    clocks: Vec<u32>,
    /// Fences of each thread: the thread's own clock at each `fence.proxy.async`.
    fences: Vec<Vec<u32>>,
    /// Each thread's clock at its latest `fence.proxy.async` (empty before the first).
    fence_vc: Vec<Clock>,
    agent_clock: Vec<u32>,
    /// Clock component of each thread's async agent (`u32::MAX`: none yet), and the thread
    /// of each agent component: components are given to agents as threads issue operations,
    /// so clocks stay narrow when one thread issues them all.
    agent_of: Vec<u32>,
    pub owner: Vec<u32>,
    /// A `fence.sc`/`acq_rel` makes the thread's next `.relaxed` cluster arrive a release.
    pub fenced: Vec<bool>,
    /// Empty when checking is off.
    shadow: Shadow,
    /// The serial of the store instruction being executed (see [`Access::instr`]).
    instr: u32,
    /// Per thread, a snapshot equal to its clock in every component but its own and its
    /// agent's (see [`OpClock`]).
    snapshot: Vec<std::sync::Arc<[u32]>>,
    /// The last snapshot [`Race::acquired_from`] made.
    acquire_memo: Option<AcquireMemo>,
    /// Per thread, whether its row of `clocks` is out of date but for its own component and
    /// its agent's (always current): its clock is then its snapshot. A CTA barrier gives its waiters the
    /// barrier's joined clock this way, without writing hundreds of rows
    /// ([`Race::acquire_barrier`]).
    stale: Vec<bool>,
    /// Per thread, whether it acquired anything since its latest release.
    acquired: Vec<bool>,
    /// The needs of the last boxes read by [`Race::async_read_box`], most recent last. Kept
    /// here, not with the machine's other TMA state: a need holds for the cells of this
    /// cluster's shadow, with this cluster's fences.
    box_needs: Vec<BoxNeeds>,
    /// [`Race::async_read_box`]'s copy of the operation's clock (kept for its allocation).
    box_clock: Vec<u32>,
}

thread_local! {
    /// The clock matrix of the last cluster this thread ran, for the next one to reuse
    /// (`Race::new`).
    static SPARE_CLOCKS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
}

thread_local! {
    /// The shadow cells of the last cluster this thread ran, reset to [`Cell::default`], and its
    /// read sets, emptied, for the next one to reuse ([`Shadow::new`]).
    static SPARE_CELLS: std::cell::RefCell<(Vec<Vec<Cell>>, ReadSets)> = std::cell::RefCell::new(Default::default());
}

impl Drop for Shadow {
    /// Resets the cells and the read sets and leaves them for the thread's next cluster.
    fn drop(&mut self) {
        let mut cells = std::mem::take(&mut self.cells);
        if cells.is_empty() {
            return;
        }
        for c in cells.iter_mut() {
            c.fill(Cell::default());
        }
        let mut sets = std::mem::take(&mut self.read_sets);
        sets.reset();
        // `try_with`: a shadow dropped while the thread's locals are torn down keeps nothing.
        let _ = SPARE_CELLS.try_with(|s| {
            let mut spare = s.borrow_mut();
            let size = |v: &Vec<Vec<Cell>>| v.iter().map(Vec::capacity).sum::<usize>();
            if size(&spare.0) < size(&cells) {
                *spare = (cells, sets);
            }
        });
    }
}

impl Drop for Race {
    fn drop(&mut self) {
        let clocks = std::mem::take(&mut self.clocks);
        // `try_with`: a race dropped while the thread's locals are torn down keeps nothing.
        let _ = SPARE_CLOCKS.try_with(|s| {
            let mut spare = s.borrow_mut();
            if spare.capacity() < clocks.capacity() {
                *spare = clocks;
            }
        });
    }
}

/// A snapshot [`Race::acquired_from`] made: (the snapshot, the clock acquired, their join, the
/// shared clock the acquired one was, if it was one).
type AcquireMemo = (
    std::sync::Arc<[u32]>,
    Clock,
    std::sync::Arc<[u32]>,
    Option<std::sync::Arc<[u32]>>,
);

/// The releases into a CTA barrier's phase: the joined clock, and the thread snapshots already
/// joined into it. After a barrier every thread's clock is the same snapshot but for its own
/// component, so the next phase's releases join that snapshot once and then set one
/// component each ([`Race::release_lanes`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct Releases {
    pub vc: Clock,
    bases: Vec<std::sync::Arc<[u32]>>,
}

impl Releases {
    /// The joined clock, shared; the releases start over.
    pub(crate) fn take(&mut self) -> std::sync::Arc<[u32]> {
        self.bases.clear();
        std::mem::take(&mut self.vc).into()
    }
}

impl Race {
    /// The detector of a cluster of `threads` threads; `agents`: whether the program has an
    /// instruction that issues asynchronous operations (their async agents take a component
    /// each: without one the clocks are half as wide, and the matrix half as large).
    pub(crate) fn new(
        threads: usize,
        ctas: usize,
        shared_bytes: usize,
        check: bool,
        agents: bool,
    ) -> Race {
        let dims = if agents { threads * 2 } else { threads };
        // Every row starts stale on the zero snapshot (below), so only each thread's own
        // component (and its agent's, when it gets one: `Race::agent`) is read from the row
        // until the row is materialized: the matrix need not be zeroed, and the previous
        // cluster's is taken as it is (zeroing a few hundred kilobytes per cluster was 3 % of
        // softmax's host instructions).
        let mut clocks = SPARE_CLOCKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
        if clocks.capacity() < threads * dims {
            clocks = vec![0u32; threads * dims];
        } else if clocks.len() < threads * dims {
            clocks.resize(threads * dims, 0);
        } else {
            clocks.truncate(threads * dims);
        }
        for t in 0..threads {
            clocks[t * dims + t] = 1;
        }
        Race {
            threads,
            dims,
            width: threads,
            clocks,
            fences: vec![Vec::new(); threads],
            fence_vc: vec![Vec::new(); threads],
            agent_clock: vec![0; threads],
            agent_of: vec![u32::MAX; threads],
            owner: Vec::new(),
            fenced: vec![false; threads],
            shadow: if check {
                Shadow::new(ctas, shared_bytes)
            } else {
                Shadow::default()
            },
            instr: 0,
            // At the launch every thread has seen nothing but its own first epoch: one zero
            // snapshot serves them all.
            snapshot: vec![vec![0; dims].into(); threads],
            stale: vec![true; threads],
            acquired: vec![false; threads],
            acquire_memo: None,
            box_needs: Vec::new(),
            box_clock: Vec::new(),
        }
    }

    /// A new warp-wide execution of a store: its lanes' writes share a serial.
    pub(crate) fn next_store(&mut self) {
        self.instr = self.instr.wrapping_add(1).max(1);
    }

    pub(crate) fn checking(&self) -> bool {
        !self.shadow.cells.is_empty()
    }

    /// Thread `t`'s clock as a view, its row not brought up to date: for a look at a
    /// component or two (an mbarrier's initialisation epoch), where [`Race::clock`] copies
    /// the snapshot into the row.
    pub(crate) fn seen(&self, t: u32) -> ThreadClock<'_> {
        let i = t as usize;
        let row = &self.clocks[i * self.dims..(i + 1) * self.dims];
        let agent = self.agent_of[i] as usize;
        ThreadClock {
            base: if self.stale[i] {
                &self.snapshot[i]
            } else {
                row
            },
            thread: i,
            own: row[i],
            agent,
            agent_value: row.get(agent).copied().unwrap_or(0),
        }
    }

    /// Thread `t`'s clock (its row, brought up to date).
    #[cfg(test)]
    pub(crate) fn clock(&mut self, t: u32) -> &[u32] {
        self.materialize(t);
        self.row(t)
    }

    fn row(&self, t: u32) -> &[u32] {
        &self.clocks[t as usize * self.dims..(t as usize + 1) * self.dims]
    }

    /// Brings `t`'s row up to date from its snapshot (see [`Race::stale`]).
    fn materialize(&mut self, t: u32) {
        let i = t as usize;
        if !self.stale[i] {
            return;
        }
        self.stale[i] = false;
        let base = &self.snapshot[i];
        let agent = self.agent_of[i] as usize;
        let row = &mut self.clocks[i * self.dims..(i + 1) * self.dims];
        let (own, agent_value) = (row[i], row.get(agent).copied());
        row.copy_from_slice(base);
        row[i] = own;
        if let Some(v) = agent_value {
            row[agent] = v;
        }
    }

    fn own_mut(&mut self, t: u32) -> &mut u32 {
        &mut self.clocks[t as usize * self.dims + t as usize]
    }

    pub(crate) fn now(&self, t: u32) -> u32 {
        self.clocks[t as usize * self.dims + t as usize]
    }

    /// Release: joins `t`'s clock into `into`, then starts a new epoch of `t`.
    pub(crate) fn release(&mut self, t: u32, into: &mut Clock) {
        if into.len() != self.dims {
            into.resize(self.dims, 0);
        }
        let w = self.width;
        self.materialize(t);
        let (dims, i) = (self.dims, t as usize);
        join_into(&mut into[..w], &self.clocks[i * dims..i * dims + w]);
        self.tick(t);
    }

    /// [`Race::release`] into a CTA barrier's phase of the threads `warp * 32 + lane` for the
    /// lanes of `mask`, in lane order (a warp's arrival): a thread whose clock is a snapshot
    /// already joined into the phase adds only its own component. After a barrier a warp's
    /// lanes share one snapshot, which is looked up among the phase's once, not per lane.
    pub(crate) fn release_lanes(&mut self, warp: u32, mask: u32, into: &mut Releases) {
        let dims = self.dims;
        let mut joined: Option<*const u32> = None;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            let t = warp * 32 + lane;
            let i = t as usize;
            let base = &self.snapshot[i];
            if into.vc.len() != dims {
                into.vc.resize(dims, 0);
            }
            let p = std::sync::Arc::as_ptr(base) as *const u32;
            if joined != Some(p) {
                if !into.bases.iter().any(|b| std::sync::Arc::ptr_eq(b, base)) {
                    join_into(&mut into.vc[..self.width], &base[..self.width]);
                    into.bases.push(base.clone());
                }
                joined = Some(p);
            }
            let row = &self.clocks[i * dims..(i + 1) * dims];
            into.vc[i] = into.vc[i].max(row[i]);
            let a = self.agent_of[i] as usize;
            if let Some(&v) = row.get(a) {
                into.vc[a] = into.vc[a].max(v);
            }
            self.tick(t);
        }
    }

    /// The length of a thread's clock.
    pub(crate) fn dims(&self) -> usize {
        self.dims
    }

    /// The components a clock can have other than 0: the threads' and the agents made so far.
    pub(crate) fn width(&self) -> usize {
        self.width
    }

    /// Joins into `into` (the clock's width) the clocks of the threads `warp * 32 + lane` for
    /// the lanes of `mask`: what joining each thread's [`Race::clock`] gives, without writing
    /// their rows. After a barrier a warp's lanes share one snapshot, equal to each lane's
    /// clock but in its own and its agent's components (which only grow from the snapshot's),
    /// so the snapshot is joined once and each lane adds those two (a `wgmma`'s issue joined
    /// 31 rows of the cluster's clock width, 768 components in CUTLASS's GEMMs).
    pub(crate) fn join_lanes(&self, warp: u32, mask: u32, into: &mut [u32]) {
        #[cfg(debug_assertions)]
        let before = into.to_vec();
        // Components from the width on are 0 in every clock (no thread or agent has them).
        let (dims, w) = (self.dims, self.width.min(into.len()));
        let mut joined: Option<*const u32> = None;
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            let i = (warp * 32 + lane) as usize;
            let row = &self.clocks[i * dims..(i + 1) * dims];
            let base = &self.snapshot[i];
            let p = std::sync::Arc::as_ptr(base) as *const u32;
            if joined != Some(p) {
                join_into(&mut into[..w], &base[..w]);
                joined = Some(p);
            }
            if let Some(x) = into.get_mut(i) {
                *x = (*x).max(row[i]);
            }
            let a = self.agent_of[i] as usize;
            if let (Some(x), Some(&v)) = (into.get_mut(a), row.get(a)) {
                *x = (*x).max(v);
            }
        }
        #[cfg(debug_assertions)]
        {
            // Every test build checks it against the join of each lane's clock.
            let mut slow = before;
            for lane in (0..32).filter(|l| mask >> l & 1 == 1) {
                join_into(&mut slow, &self.current(warp * 32 + lane));
            }
            debug_assert_eq!(slow, into, "the lanes' clocks of warp {warp}");
        }
    }

    /// Joins thread `t`'s clock into `into` (what joining its [`Race::clock`] gives), where
    /// `joined` is a snapshot joined whole into `into` before (kept by the caller while `into`
    /// only grows): when `t`'s clock is that snapshot but for its own and its agent's
    /// components, only those two are joined; else its snapshot is, and becomes `joined`.
    pub(crate) fn join_thread(
        &self,
        t: u32,
        into: &mut [u32],
        joined: &mut Option<std::sync::Arc<[u32]>>,
    ) {
        #[cfg(debug_assertions)]
        let before = into.to_vec();
        let i = t as usize;
        let base = &self.snapshot[i];
        if !joined
            .as_ref()
            .is_some_and(|j| std::sync::Arc::ptr_eq(j, base))
        {
            // Components from the width on are 0 in every clock, this snapshot's for good.
            let w = self.width.min(into.len());
            join_into(&mut into[..w], &base[..w]);
            *joined = Some(base.clone());
        }
        let row = &self.clocks[i * self.dims..(i + 1) * self.dims];
        let a = self.agent_of[i] as usize;
        for c in [i, a] {
            if let (Some(x), Some(&v)) = (into.get_mut(c), row.get(c)) {
                *x = (*x).max(v);
            }
        }
        #[cfg(debug_assertions)]
        {
            // Every test build checks it against the join of the thread's clock (equal when
            // `joined` was joined into `into` before, as the caller says).
            let mut slow = before;
            join_into(&mut slow, &self.current(t));
            debug_assert_eq!(slow, into, "thread {t}'s clock joined");
        }
    }

    /// Thread `t`'s clock, its row brought up to date from its snapshot in a copy.
    #[cfg(debug_assertions)]
    fn current(&self, t: u32) -> Vec<u32> {
        let i = t as usize;
        let mut row = self.row(t).to_vec();
        if self.stale[i] {
            let (own, agent) = (row[i], self.agent_of[i] as usize);
            let agent_value = row.get(agent).copied();
            row.copy_from_slice(&self.snapshot[i]);
            row[i] = own;
            if let Some(v) = agent_value {
                row[agent] = v;
            }
        }
        row
    }

    /// A new epoch of `t`, after the caller released its clock.
    pub(crate) fn tick(&mut self, t: u32) {
        *self.own_mut(t) += 1;
        self.fenced[t as usize] = false;
        self.acquired[t as usize] = false;
    }

    /// Acquire: `t` learns everything `from` has seen.
    ///
    /// Its new snapshot is the join of its snapshot and `from`, and its own and its agent's
    /// components are joined in its row: the lanes of a warp that acquire one clock (an
    /// mbarrier's phase, a `wgmma.wait_group`'s operations), sharing one snapshot before,
    /// share the joined one, made once ([`Race::acquired_from`]), where each brought its row
    /// up to date and joined `from` into it; and the warp's later joins of their clocks join
    /// it once ([`Race::join_lanes`], [`Race::release_lanes`]).
    pub(crate) fn acquire(&mut self, t: u32, from: &[u32]) {
        self.acquire_with(t, from, None);
    }

    /// [`Race::acquire`] of a shared clock (an mbarrier's completed phase, which each waiting
    /// thread acquires in turn): the snapshot it gives is the last one's when the thread's
    /// snapshot and this clock are the last acquire's, told by their pointers instead of a
    /// comparison of the clock's width (`memcmp` of hundreds of components a waiting thread,
    /// 1.6 % of the ping-pong GEMM).
    pub(crate) fn acquire_shared(&mut self, t: u32, from: &std::sync::Arc<[u32]>) {
        self.acquire_with(t, from, Some(from));
    }

    #[inline]
    fn acquire_with(&mut self, t: u32, from: &[u32], shared: Option<&std::sync::Arc<[u32]>>) {
        if from.is_empty() {
            return;
        }
        let i = t as usize;
        let joined = self.acquired_from(self.snapshot[i].clone(), from, shared);
        let (dims, agent) = (self.dims, self.agent_of[i] as usize);
        let row = &mut self.clocks[i * dims..(i + 1) * dims];
        for c in [i, agent] {
            if let (Some(x), Some(&y)) = (row.get_mut(c), from.get(c)) {
                *x = (*x).max(y);
            }
        }
        self.snapshot[i] = joined;
        self.stale[i] = true;
        self.acquired[i] = true;
    }

    /// The join of snapshot `base` and `from` (the rest of `base`'s length as in `base`),
    /// shared: the last one made is kept with what it was made of, for the next lane. `shared`:
    /// `from` is that shared clock, which a memo that holds it (alive, so no other clock has its
    /// address) knows by its pointer: an `Arc<[u32]>` does not change.
    fn acquired_from(
        &mut self,
        base: std::sync::Arc<[u32]>,
        from: &[u32],
        shared: Option<&std::sync::Arc<[u32]>>,
    ) -> std::sync::Arc<[u32]> {
        let w = self.width;
        if let Some((b, f, joined, source)) = &mut self.acquire_memo
            && std::sync::Arc::ptr_eq(b, &base)
        {
            if let (Some(s), Some(m)) = (shared, source.as_ref())
                && std::sync::Arc::ptr_eq(s, m)
            {
                return joined.clone();
            }
            if f.len() == from.len() && f[..w.min(f.len())] == from[..w.min(from.len())] {
                // Both are 0 from the width on.
                if let Some(s) = shared {
                    *source = Some(s.clone());
                }
                return joined.clone();
            }
        }
        let mut v = base.to_vec();
        let n = w.min(v.len());
        join_into(&mut v[..n], from);
        let joined: std::sync::Arc<[u32]> = v.into();
        self.acquire_memo = Some((base, from.to_vec(), joined.clone(), shared.cloned()));
        joined
    }

    /// Acquire of a CTA barrier's joined clock `from` by a thread that waited for the phase:
    /// it released its clock into `from` when it arrived and, blocked since, has acquired
    /// nothing (unless a divergent warp's other lanes made it: then this is [`Race::acquire`]),
    /// so its clock is now `from` in every component but its own, which becomes its snapshot
    /// without writing its row.
    #[inline]
    pub(crate) fn acquire_barrier(&mut self, t: u32, from: &std::sync::Arc<[u32]>) {
        let i = t as usize;
        if self.acquired[i] {
            return self.acquire(t, from);
        }
        debug_assert!(
            {
                let mut me = self.row(t).to_vec();
                if self.stale[i] {
                    me.copy_from_slice(&self.snapshot[i]);
                }
                let agent = self.agent_of[i] as usize;
                let row = self.row(t);
                (0..self.width).all(|c| {
                    let mine = if c == agent { row[c] } else { me[c] };
                    c == i || mine <= from[c]
                })
            },
            "thread {t} acquires a barrier it did not release into"
        );
        let agent = self.agent_of[i] as usize;
        if agent < self.dims {
            self.clocks[i * self.dims + agent] = from[agent];
        }
        self.snapshot[i] = from.clone();
        self.stale[i] = true;
    }

    /// [`Race::acquire_barrier`] for the lanes of `mask` of warp `w`, in lane order.
    pub(crate) fn acquire_barrier_lanes(
        &mut self,
        w: u32,
        mask: u32,
        from: &std::sync::Arc<[u32]>,
    ) {
        let mut m = mask;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.acquire_barrier(w * 32 + lane, from);
        }
    }

    /// `t` acquires the completion of its own async operations up to `event` of its agent
    /// (a `wait_group` that returns): the operations' clocks are `t`'s own clock at their
    /// issue, which `t` has seen, but for that component.
    #[inline]
    pub(crate) fn acquire_agent(&mut self, t: u32, event: u32) {
        if event == 0 {
            return;
        }
        // The agent's component is current in the row even when the rest is the snapshot.
        let slot = self.agent(t) as usize;
        let dims = self.dims;
        let c = &mut self.clocks[t as usize * dims + slot];
        if *c < event {
            *c = event;
            self.acquired[t as usize] = true;
        }
    }

    /// The clock of an async operation `t` issues now: `t`'s clock with a new event of its
    /// async agent (see [`OpClock`]).
    pub(crate) fn issue_async(&mut self, t: u32) -> OpClock {
        let issued = self.issue_async_parts(t);
        OpClock {
            base: self.issued_base(t).clone(),
            thread: t as usize,
            own: issued.own,
            agent: issued.agent as usize,
            agent_value: issued.event,
        }
    }

    /// [`Race::issue_async`] in parts: the operation's clock is `t`'s snapshot
    /// ([`Race::issued_base`]) with these components apart.
    #[inline]
    pub(crate) fn issue_async_parts(&mut self, t: u32) -> IssuedAsync {
        let slot = self.agent(t);
        self.width = self.width.max(slot as usize + 1);
        self.agent_clock[t as usize] += 1;
        let event = self.agent_clock[t as usize];
        let issued = IssuedAsync {
            own: self.now(t),
            agent: slot,
            event,
        };
        // The thread's later accesses are not ordered before the operation.
        *self.own_mut(t) += 1;
        issued
    }

    /// The snapshot of `t` that its async operation issued last is based on
    /// ([`Race::issue_async_parts`]).
    pub(crate) fn issued_base(&self, t: u32) -> &std::sync::Arc<[u32]> {
        &self.snapshot[t as usize]
    }

    /// The clock component of `t`'s async agent.
    #[inline]
    pub(crate) fn agent(&mut self, t: u32) -> u32 {
        if self.agent_of[t as usize] == u32::MAX {
            self.new_agent(t);
        }
        self.agent_of[t as usize]
    }

    /// Gives `t` its async agent's component (its first async operation): out of line, so
    /// that [`Race::agent`], called for every lane's operation, inlines.
    #[cold]
    #[inline(never)]
    fn new_agent(&mut self, t: u32) {
        assert!(
            self.dims > self.threads,
            "an asynchronous operation in a program decoded as issuing none"
        );
        let slot = self.threads + self.owner.len();
        self.agent_of[t as usize] = slot as u32;
        self.owner.push(t);
        // The row may hold a previous cluster's values (`Race::new`); no event of the new
        // agent has happened, so the thread has seen none.
        self.clocks[t as usize * self.dims + slot] = 0;
    }

    /// The thread a clock component belongs to (itself, or the issuer of an async agent).
    pub(crate) fn thread_of(&self, who: u32) -> u32 {
        if (who as usize) < self.threads {
            who
        } else {
            self.owner[who as usize - self.threads]
        }
    }

    pub(crate) fn fence_proxy_async(&mut self, t: u32) {
        let now = self.now(t);
        self.fences[t as usize].push(now);
        // The thread's clock copied from its view into the vector its last fence had: its row
        // is not brought up to date (which copied the snapshot into it, and left the thread
        // without a snapshot for its warp's later joins), and no vector is allocated.
        let mut vc = std::mem::take(&mut self.fence_vc[t as usize]);
        let seen = self.seen(t);
        vc.clear();
        vc.extend_from_slice(seen.base);
        vc[seen.thread] = seen.own;
        if let Some(x) = vc.get_mut(seen.agent) {
            *x = seen.agent_value;
        }
        #[cfg(debug_assertions)]
        debug_assert_eq!(vc, self.current(t), "thread {t}'s clock at its fence");
        self.fence_vc[t as usize] = vc;
    }

    /// A generic-proxy read by thread `t`.
    pub(crate) fn read(
        &mut self,
        t: u32,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
    ) -> Result<(), Conflict> {
        self.read_inline(t, cta, offset, len, pc)
    }

    /// [`Race::read`] of `len` bytes at `offsets[i]` of CTA `cta` by thread `warp * 32 + i`,
    /// for each `i` in order (an `ldmatrix`'s rows): the first conflict, with its `i`. One
    /// call for the warp, each lane's check inlined in its loop.
    pub(crate) fn read_rows(
        &mut self,
        warp: u32,
        cta: u32,
        offsets: &[u32],
        len: u32,
        pc: u32,
    ) -> Result<(), (usize, Conflict)> {
        if len != 16 || !self.checking() || self.shadow.any_split[cta as usize] {
            for (i, &off) in offsets.iter().enumerate() {
                self.read_inline(warp * 32 + i as u32, cta, off, len, pc)
                    .map_err(|c| (i, c))?;
            }
            return Ok(());
        }
        // The usual row, 16 aligned bytes of a CTA without split granules: one quad, whose
        // check and record `read_inline` makes through `Shadow::quads` and `read_quads` (a
        // range of quads, its slices and their iterators, for one quad), here directly: the
        // `mma.sync` matmul's 104,448 rows took 27.9 M host instructions with the in-place
        // add (`ReadSets::add_quad`), 18.7 M so (the matmul 131.36 -> 125.27 host instructions
        // per thread-instruction).
        for (i, &off) in offsets.iter().enumerate() {
            let t = warp * 32 + i as u32;
            let q = (off / 16) as usize;
            if !off.is_multiple_of(16) || !self.shadow.uniform[cta as usize][q] {
                self.read_inline(t, cta, off, len, pc).map_err(|c| (i, c))?;
                continue;
            }
            let me = Access {
                who: t,
                clock: self.now(t),
                pc,
                instr: 0,
            };
            #[cfg(test)]
            tests::ROWS_DIRECT.with(|n| n.set(n.get() + 1));
            with_thread_clock!(self, t, |shadow, seen| {
                let quad = &mut shadow.cells[cta as usize].as_chunks_mut::<4>().0[q];
                read_uniform_quad(quad, &mut shadow.read_sets, off, me, seen)
            })
            .map_err(|c| (i, c))?;
        }
        Ok(())
    }

    #[inline(always)]
    fn read_inline(
        &mut self,
        t: u32,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
    ) -> Result<(), Conflict> {
        let me = Access {
            who: t,
            clock: self.now(t),
            pc,
            instr: 0,
        };
        if len <= 4 {
            // One cell (a scalar load), or the bytes of one: no run to share anything in.
            return with_thread_clock!(self, t, |shadow, seen| each_cell!(
                shadow,
                cta,
                offset,
                len,
                |cell, sets, key| read_cell(cell, sets, key, me, seen, None)
            ));
        }
        // The cells of a read mostly had the same readers (a row that the same lanes read):
        // their new sets are shared ([`ReadMemo`]), one open or add for the run.
        let mut memo = ReadMemo::default();
        let r = with_thread_clock!(
            self,
            t,
            |shadow, seen| match shadow.quads(cta, offset, len) {
                Some((quads, marks, sets)) =>
                    read_quads(quads, marks, sets, offset, me, seen, &mut memo),
                None => each_cell!(shadow, cta, offset, len, |cell, sets, key| read_cell(
                    cell,
                    sets,
                    key,
                    me,
                    seen,
                    Some(&mut memo)
                )),
            }
        );
        self.shadow.read_sets.settle(&mut memo);
        r
    }

    /// Whether every byte of `[offset, offset + len)` of CTA `cta`'s shared memory has been
    /// written (by a thread or a copy) since the launch: shared memory starts undefined on a GPU,
    /// so only bytes a store wrote have a value that a later store can leave unchanged.
    pub(crate) fn written(&mut self, cta: u32, offset: u32, len: u32) -> bool {
        if !self.checking() {
            return false;
        }
        let mut all = true;
        let _ = self.shadow.each(cta, offset, len, |cell, _, _| {
            all &= cell.write.clock != 0;
            Ok(())
        });
        all
    }

    /// A generic-proxy write by thread `t`.
    pub(crate) fn write(
        &mut self,
        t: u32,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
    ) -> Result<(), Conflict> {
        let me = Access {
            who: t,
            clock: self.now(t),
            pc,
            instr: self.instr,
        };
        let fences = self.fences[t as usize].len() as u32;
        if len <= 4 {
            // One cell (a scalar store), or the bytes of one: no run.
            return with_thread_clock!(self, t, |shadow, seen| each_cell!(
                shadow,
                cta,
                offset,
                len,
                |cell, sets, key| write_cell(cell, sets, key, me, seen, fences, None)
            ));
        }
        let mut memo = WriteMemo::default();
        with_thread_clock!(
            self,
            t,
            |shadow, seen| match shadow.quads(cta, offset, len) {
                Some((quads, marks, sets)) => {
                    write_quads(quads, marks, sets, offset, me, seen, fences, false)
                }
                None => each_cell!(shadow, cta, offset, len, |cell, sets, key| write_cell(
                    cell,
                    sets,
                    key,
                    me,
                    seen,
                    fences,
                    Some(&mut memo)
                )),
            }
        )
    }

    /// A write by the async agent of thread `t` whose operation has clock `vc`; `reduction`
    /// for an element-wise reduction (`cp.reduce.async.bulk`), which need not be ordered after
    /// an earlier reduction of the same bytes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn async_write<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
        reduction: bool,
    ) -> Result<(), Conflict> {
        let me = self.agent_access(t, vc, pc);
        let shadow = &mut self.shadow;
        match shadow.quads(cta, offset, len) {
            Some((quads, marks, sets)) => {
                async_write_quads(quads, marks, sets, offset, me, vc, reduction)
            }
            None => each_cell!(shadow, cta, offset, len, |cell, sets, key| {
                async_write_cell(cell, sets, key, me, vc, reduction)
            }),
        }
    }

    /// A write of a `cp.async` of thread `t` (an async agent's write in the generic proxy): as
    /// [`Race::async_write`], and an async-proxy read of it needs a proxy fence (module docs),
    /// of `t` after the write or of the reader.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn cp_async_write<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
    ) -> Result<(), Conflict> {
        let me = self.agent_access(t, vc, pc);
        let fences = self.fences[t as usize].len() as u32;
        let shadow = &mut self.shadow;
        // A 4-byte copy (one granule: its quad is never whole) skips the test for whole quads.
        if len != 4
            && let Some((quads, marks, sets)) = shadow.quads(cta, offset, len)
        {
            return write_quads(quads, marks, sets, offset, me, vc, fences, true);
        }
        let mut memo = WriteMemo::default();
        each_cell!(shadow, cta, offset, len, |cell, sets, key| {
            write_cell(cell, sets, key, me, vc, fences, Some(&mut memo))
                .map(|()| cell.generic = true)
        })
    }

    /// [`Race::cp_async_write`] of each lane of one `cp.async` operation, in lane order, `n`
    /// lanes of `len` bytes to CTA `cta`, lane `i` being `lane(i)`: its thread, its clock and
    /// its offset. The first conflict comes with its lane's index. What the operation's lanes
    /// share is looked at once: the CTA's rows of the shadow (its cells and quads' marks),
    /// whether a granule of it is split, and the copy's size; each lane then takes its granule
    /// (4 bytes) or quad (16 bytes) as `cp_async_write` takes it. A lane whose offset is not
    /// aligned to its size, and an operation of another size or in a CTA with split granules,
    /// take `cp_async_write` itself. Every lane issued the operation, so its thread has an
    /// async agent. (A call of `cp_async_write` per lane found the CTA's rows, the split test
    /// and the size's path again for each lane: with them once, Triton's softmax, 458,752
    /// lanes of 4 bytes, went from 75.98 to 73.00 host instructions per thread-instruction,
    /// the `mma.sync` matmul from 138.91 to 135.46, the `wgmma` one from 216.44 to 210.61.)
    pub(crate) fn cp_async_writes<S: Seen>(
        &mut self,
        cta: u32,
        len: u32,
        pc: u32,
        n: usize,
        lane: impl Fn(usize) -> (u32, S, u32),
    ) -> Result<(), (usize, Conflict)> {
        let mut i = 0;
        if matches!(len, 4 | 16) && !self.shadow.any_split[cta as usize] {
            let Race {
                shadow,
                fences,
                agent_of,
                ..
            } = self;
            let cells = &mut shadow.cells[cta as usize];
            let marks = &mut shadow.uniform[cta as usize];
            let sets = &mut shadow.read_sets;
            while i < n {
                let (t, vc, off) = lane(i);
                if !off.is_multiple_of(len) {
                    break;
                }
                let who = agent_of[t as usize];
                debug_assert_ne!(who, u32::MAX, "a lane's thread has its agent");
                let me = Access {
                    who,
                    clock: vc.at(who as usize),
                    pc,
                    instr: 0,
                };
                let fences = fences[t as usize].len() as u32;
                let q = (off / 16) as usize;
                let written = if len == 4 {
                    // `Shadow::granule`: the quad unmarked, the cell alone.
                    marks[q] = false;
                    let cell = &mut cells[(off / 4) as usize];
                    write_cell(
                        cell,
                        sets,
                        off,
                        me,
                        &vc,
                        fences,
                        Some(&mut WriteMemo::default()),
                    )
                    .map(|()| cell.generic = true)
                } else {
                    // `Shadow::quads` of one quad.
                    let quad = cells[4 * q..4 * q + 4].as_mut_array::<4>().expect("a quad");
                    write_quads(
                        std::slice::from_mut(quad),
                        std::slice::from_mut(&mut marks[q]),
                        sets,
                        off,
                        me,
                        &vc,
                        fences,
                        true,
                    )
                };
                written.map_err(|c| (i, c))?;
                i += 1;
            }
        }
        while i < n {
            let (t, vc, off) = lane(i);
            self.cp_async_write(t, &vc, cta, off, len, pc)
                .map_err(|c| (i, c))?;
            i += 1;
        }
        Ok(())
    }

    /// The access of thread `t`'s async agent, for an operation issued with clock `vc`.
    fn agent_access<S: Seen + ?Sized>(&mut self, t: u32, vc: &S, pc: u32) -> Access {
        let who = self.agent(t);
        Access {
            who,
            clock: vc.at(who as usize),
            pc,
            instr: 0,
        }
    }

    /// A read by the async agent of thread `t`: generic writes must be ordered before it and
    /// fenced with `fence.proxy.async` (module docs).
    pub(crate) fn async_read<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        cta: u32,
        offset: u32,
        len: u32,
        pc: u32,
    ) -> Result<(), Conflict> {
        self.async_reads(t, vc, &[(cta, offset, len)], pc)
            .map_err(|(_, c)| c)
    }

    /// The reads of one async operation of thread `t`: each (CTA, offset, length) of `at`,
    /// checked in that order as [`Race::async_read`] checks each, so the first conflict
    /// (with the index of its read) is the one those calls would report. A `wgmma` reads its
    /// operands as hundreds of 16-byte chunks: the agent, the issuer's fence and the check of
    /// the last write that passed are found once for all of them.
    pub(crate) fn async_reads<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        at: &[(u32, u32, u32)],
        pc: u32,
    ) -> Result<(), (usize, Conflict)> {
        let me = self.agent_access(t, vc, pc);
        let mut check = AsyncReadCheck::of(
            me,
            vc,
            t,
            self.threads,
            &self.fences,
            &self.owner,
            &self.fence_vc,
        );
        let shadow = &mut self.shadow;
        let mut i = 0;
        while i < at.len() {
            // Reads that continue one another (a swizzled operand's chunks often do) are one
            // range: the same cells in the same order, with the work per range done once.
            let (cta, offset, mut len) = at[i];
            let mut end = i + 1;
            while end < at.len() && at[end].0 == cta && at[end].1 == offset + len {
                len += at[end].2;
                end += 1;
            }
            // The usual whole quads a check each when uniform; other whole granules as a loop
            // of their own, the check inlined in it.
            let checked = match shadow.quads(cta, offset, len) {
                Some((quads, marks, sets)) => check.quads(quads, marks, sets, offset),
                None => match shadow.aligned(cta, offset, len) {
                    Some((cells, sets)) => check.cells(cells, sets, offset),
                    None => shadow.visit(cta, offset, len, |cell, sets, key| {
                        check.cell(cell, sets, key)
                    }),
                },
            };
            if let Err(c) = checked {
                shadow.read_sets.settle(&mut check.reads);
                // Reported with the index of the read whose range holds it.
                let held = (i..end).find(|&j| c.offset < at[j].1 + at[j].2);
                return Err((held.unwrap_or(end - 1), c));
            }
            i = end;
        }
        shadow.read_sets.settle(&mut check.reads);
        Ok(())
    }

    /// [`Race::async_reads`] of `at`, 16-byte chunks each a whole quad of CTA `cta`'s shadow,
    /// with `needs`: for each chunk, what a reader must have seen for its cells' write checks
    /// to pass, found from the cells by an earlier read of the same chunks ([`ChunkNeed`]).
    /// The warps of a warpgroup read the same `wgmma` B operand one after the other (and the
    /// warpgroups of a cooperative kernel the same B again): the first reader's checks find
    /// each chunk's need, and a later reader whose chunk's write is still the one the need was
    /// found from, and whose clock meets it, only records its read (the same record as the
    /// check's). A chunk without a need met takes the check, in order, which reports what
    /// `async_reads` reports, and its need is found again. Each chunk is checked as
    /// `async_reads` checks the range of chunks that holds it (`Shadow::quads`, one quad at a
    /// time), without the ranges' search (a swizzled operand's chunks rarely continue one
    /// another), so the conflict and the index of its chunk are the same. In the `wgmma`
    /// matmul 256³ the operands' checks went from 23.5 M host instructions to 15.2 M (B's
    /// 13.9 M here); with the writer's fence alone as the fencing need (Triton fences
    /// through the issuer) one chunk's need in eight was met (the matmul at 225.81 host
    /// instructions per thread-instruction instead of 216.44).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn async_read_chunks<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        cta: u32,
        at: &[(u32, u32, u32)],
        needs: &mut Vec<ChunkNeed>,
        pc: u32,
    ) -> Result<(), (usize, Conflict)> {
        debug_assert!(
            at.iter()
                .all(|&(c, off, len)| c == cta && len == 16 && off.is_multiple_of(16))
        );
        // A split granule takes its ranges' cell-by-cell paths (`async_reads`), as before.
        if self.shadow.any_split[cta as usize] {
            return self.async_reads(t, vc, at, pc);
        }
        if needs.len() != at.len() {
            needs.clear();
            needs.resize(at.len(), ChunkNeed::default());
        }
        let me = self.agent_access(t, vc, pc);
        let mut check = AsyncReadCheck::of(
            me,
            vc,
            t,
            self.threads,
            &self.fences,
            &self.owner,
            &self.fence_vc,
        );
        let shadow = &mut self.shadow;
        let cells = shadow.cells[cta as usize].as_chunks_mut::<4>().0;
        let marks = &shadow.uniform[cta as usize];
        let sets = &mut shadow.read_sets;
        let mut i = 0;
        while i < at.len() {
            // The usual chunk, as in `async_read_box`: its read recorded as a move alone.
            if let Some((from, to)) = check.reads.moving() {
                let start = i;
                for (&(_, off, _), need) in at[i..].iter().zip(&needs[i..]) {
                    let q = (off / 16) as usize;
                    let quad = &mut cells[q];
                    if !(marks[q] && quad[0].reads == from && check.meets(&quad[0], need)) {
                        break;
                    }
                    #[cfg(test)]
                    tests::RUN_MOVES.with(|n| n.set(n.get() + 1));
                    for cell in quad {
                        cell.reads = to;
                    }
                    i += 1;
                }
                check.reads.moved(4 * (i - start) as u32);
                if i == at.len() {
                    break;
                }
            }
            let off = at[i].1;
            let q = (off / 16) as usize;
            if let Err(c) = check.quad_with_need(&mut cells[q], marks[q], sets, off, &mut needs[i])
            {
                sets.settle(&mut check.reads);
                return Err((i, c));
            }
            i += 1;
        }
        sets.settle(&mut check.reads);
        Ok(())
    }

    /// [`Race::async_reads`] of `at`, ranges of CTA `cta` whose offsets and lengths are
    /// multiples of 16 (whole quads), each quad with its [`ChunkNeed`] as
    /// [`Race::async_read_chunks`] takes a chunk: the reads of a TMA store's box. Every lane of
    /// CUTLASS's storing warp issues the store of the same box (its shared-memory tile, 8 KB
    /// in the cooperative GEMM, the 512 quads each written by another thread's `stmatrix`), so
    /// the same cells are read by 32 agents one after the other; the needs are kept by box
    /// (the CTA and the ranges: the last [`BOX_NEEDS`] boxes) for the next. Each quad is
    /// checked as `async_reads` checks the merged range that holds it: in the same order, the
    /// same first conflict, reported with the index of the range that holds it (a CTA with a
    /// split granule, or a range not of whole quads, takes `async_reads` itself). Each quad's
    /// write differs from its neighbour's, so `async_reads`' memo of the last write that passed
    /// missed at every quad: the cooperative GEMM's 512 stores of 512 quads took 27.7 M host
    /// instructions there (106 a quad), 12.6 M here (48), with the run of moves below; the
    /// needs alone, each quad through `quad_with_need`, were no cheaper than the checks (the
    /// GEMM at 170.28 host instructions per thread-instruction against the base's 166.86).
    pub(crate) fn async_read_box<S: Seen + ?Sized>(
        &mut self,
        t: u32,
        vc: &S,
        cta: u32,
        at: &[(u32, u32, u32)],
        pc: u32,
    ) -> Result<(), (usize, Conflict)> {
        if self.shadow.any_split[cta as usize]
            || !at.iter().all(|&(c, off, len)| {
                c == cta && off.is_multiple_of(16) && len.is_multiple_of(16) && len > 0
            })
        {
            return self.async_reads(t, vc, at, pc);
        }
        let quads = at.iter().map(|&(_, _, len)| (len / 16) as usize).sum();
        let kept = match self
            .box_needs
            .iter()
            .position(|b| b.cta == cta && b.at == at)
        {
            Some(i) => i,
            None => {
                if self.box_needs.len() == BOX_NEEDS {
                    self.box_needs.remove(0);
                }
                self.box_needs.push(BoxNeeds {
                    cta,
                    at: at.to_vec(),
                    needs: vec![ChunkNeed::default(); quads],
                });
                self.box_needs.len() - 1
            }
        };
        let mut needs = std::mem::take(&mut self.box_needs[kept].needs);
        debug_assert_eq!(needs.len(), quads);
        // The operation's clock as a plain vector: an `OpClock`'s component is two compares
        // and a load through its snapshot, and the needs' tests read two a quad (the
        // cooperative GEMM 159.15 -> 155.97 host instructions per thread-instruction).
        let mut seen = std::mem::take(&mut self.box_clock);
        vc.write_to(&mut seen);
        let vc = &seen[..];
        let me = self.agent_access(t, vc, pc);
        let mut check = AsyncReadCheck::of(
            me,
            vc,
            t,
            self.threads,
            &self.fences,
            &self.owner,
            &self.fence_vc,
        );
        let shadow = &mut self.shadow;
        let cells = shadow.cells[cta as usize].as_chunks_mut::<4>().0;
        let marks = &shadow.uniform[cta as usize];
        let sets = &mut shadow.read_sets;
        let mut n = 0;
        let mut checked = Ok(());
        'ranges: for (i, &(_, off, len)) in at.iter().enumerate() {
            let (mut q, end) = ((off / 16) as usize, ((off + len) / 16) as usize);
            while q < end {
                // The usual quad once the lanes before have read the box: uniform, its cells'
                // set the one the last add moved a cell from, its write the need's and the
                // need met. `quad_with_need` would record the read of each of its cells as a
                // move to the add's result (`ReadSets::add_memo`, counted as moved) and
                // change nothing else: here in a loop of its own (the cooperative GEMM 189.13
                // M host instructions without it, 176.78 M with it, before the clock's copy).
                if let Some((from, to)) = check.reads.moving() {
                    // Over the range's quads, marks and needs as slices together (no index
                    // checks in the loop: the cooperative GEMM 154.17 -> 151.56).
                    let run = cells[q..end]
                        .iter_mut()
                        .zip(&marks[q..end])
                        .zip(&needs[n..n + end - q]);
                    let start = q;
                    for ((quad, &uniform), need) in run {
                        if !(uniform && quad[0].reads == from && check.meets(&quad[0], need)) {
                            break;
                        }
                        #[cfg(test)]
                        tests::RUN_MOVES.with(|n| n.set(n.get() + 1));
                        for cell in quad {
                            cell.reads = to;
                        }
                        q += 1;
                    }
                    check.reads.moved(4 * (q - start) as u32);
                    n += q - start;
                    if q == end {
                        break;
                    }
                }
                if let Err(c) = check.quad_with_need(
                    &mut cells[q],
                    marks[q],
                    sets,
                    16 * q as u32,
                    &mut needs[n],
                ) {
                    checked = Err((i, c));
                    break 'ranges;
                }
                q += 1;
                n += 1;
            }
        }
        sets.settle(&mut check.reads);
        self.box_needs[kept].needs = needs;
        self.box_clock = seen;
        checked
    }
}

/// How many boxes' needs [`Race::async_read_box`] keeps.
const BOX_NEEDS: usize = 4;

/// The [`ChunkNeed`] of each quad of a box of CTA `cta` read as the ranges `at`
/// ([`Race::async_read_box`]).
struct BoxNeeds {
    cta: u32,
    at: Vec<(u32, u32, u32)>,
    needs: Vec<ChunkNeed>,
}

/// What a reader must have seen for the write checks of an async read
/// ([`AsyncReadCheck::cell`]) of a cell whose [`write_key`] is `key` to pass: its clock at
/// least `seen[0].1` in component `seen[0].0` (the write happens before the read), and the
/// write fenced: its clock at least `seen[1].1` in component `seen[1].0` (the writer's first
/// `fence.proxy.async` after the write; `(0, 0)` where none is needed, `u32::MAX` where the
/// writer had none yet), or the issuing thread's fence before the issue at least `seen[0].1`
/// in component `seen[0].0`. Found from a cell with the key, it holds for every later cell
/// with the key (a thread's fences only grow, an agent's thread never changes). Met, the
/// checks pass; not met, they run ([`Race::async_read_chunks`]), and may pass (a fence made
/// since). `key` [`NOT_PASSED`]: no need known.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkNeed {
    key: (u64, u64),
    seen: [(u32, u32); 2],
}

impl Default for ChunkNeed {
    fn default() -> ChunkNeed {
        ChunkNeed {
            key: NOT_PASSED,
            seen: [(0, 0); 2],
        }
    }
}

/// [`AsyncReadCheck::passed`] before any write passed: clocks stay below 2^31.
const NOT_PASSED: (u64, u64) = (u64::MAX, u64::MAX);

/// What [`AsyncReadCheck::passed`] compares of a cell: its write's writer and clock, and its
/// fence count and proxy, as two words (compared as two words; as a tuple of four it was a
/// compare of each, a third of the cost of a cell whose write passed).
#[inline(always)]
fn write_key(cell: &Cell) -> (u64, u64) {
    let w = cell.write;
    (
        w.who as u64 | (w.clock as u64) << 32,
        cell.write_fences as u64 | (cell.generic as u64) << 32,
    )
}

/// The check of each cell an async read covers ([`Race::async_reads`]): generic writes must be
/// ordered before the read and fenced with `fence.proxy.async` (module docs).
struct AsyncReadCheck<'a, S: Seen + ?Sized> {
    me: Access,
    vc: &'a S,
    threads: usize,
    fences: &'a [Vec<u32>],
    owner: &'a [u32],
    /// The issuing thread's latest fence, if it came before the issue.
    issuer_fence: Option<&'a Clock>,
    /// The checks of the write depend on its writer, clock, fence count and proxy only, and
    /// neighbouring cells mostly share one write (a copy's, a store's): the last write that
    /// passed is not checked again. The check does not depend on the cells' reads, the only
    /// thing a read changes, nor on anything else that changes between the cells: one memo
    /// serves them all. [`NOT_PASSED`] before the first (no clock reaches it).
    passed: (u64, u64),
    reads: ReadMemo,
}

impl<'a, S: Seen + ?Sized> AsyncReadCheck<'a, S> {
    /// The check of the reads of an async operation of thread `t` (clock `vc`) by its agent's
    /// access `me`.
    #[inline(always)]
    fn of(
        me: Access,
        vc: &'a S,
        t: u32,
        threads: usize,
        fences: &'a [Vec<u32>],
        owner: &'a [u32],
        fence_vc: &'a [Clock],
    ) -> AsyncReadCheck<'a, S> {
        AsyncReadCheck {
            me,
            vc,
            threads,
            fences,
            owner,
            // The issuing thread's latest fence, if it came before the issue.
            issuer_fence: Some(&fence_vc[t as usize])
                .filter(|f| !f.is_empty() && f[t as usize] <= vc.at(t as usize)),
            passed: NOT_PASSED,
            reads: ReadMemo::default(),
        }
    }
}

impl<S: Seen + ?Sized> AsyncReadCheck<'_, S> {
    /// The check of the whole quad `quad` (at `off`; `uniform`: its mark) with `need`, as
    /// [`AsyncReadCheck::quads`] checks it ([`Race::async_read_chunks`]): a uniform quad whose
    /// first cell's write is the need's and whose reader meets it only records the read; one
    /// that does not is checked, and its need found again; a quad not uniform takes
    /// [`AsyncReadCheck::cells`].
    /// Whether `need` holds for `cell` and this reader: the cell's write is the need's, and
    /// the reader's clock (or its issuer's fence) meets it ([`ChunkNeed`]).
    #[inline(always)]
    fn meets(&self, cell: &Cell, need: &ChunkNeed) -> bool {
        let [(who, clock), (x, fence)] = need.seen;
        need.key == write_key(cell)
            && self.vc.at(who as usize) >= clock
            && (self.vc.at(x as usize) >= fence
                || self.issuer_fence.is_some_and(|f| f[who as usize] >= clock))
    }

    #[inline(always)]
    fn quad_with_need(
        &mut self,
        quad: &mut [Cell; 4],
        uniform: bool,
        sets: &mut ReadSets,
        off: u32,
        need: &mut ChunkNeed,
    ) -> Result<(), Conflict> {
        if !uniform {
            return self.cells(quad, sets, off);
        }
        let vc = self.vc;
        let before = quad[0].reads;
        if self.meets(&quad[0], need) {
            #[cfg(test)]
            tests::NEEDS_MET.with(|n| n.set(n.get() + 1));
            record_read_memo(&mut quad[0], sets, self.me, vc, &mut self.reads);
        } else {
            self.cell(&mut quad[0], sets, off)?;
            *need = self.need(&quad[0]);
        }
        sets.repeat_memo(before, quad[0].reads, 3, &mut self.reads);
        // A read changes a cell's reads alone: the other three, equal to the first before it,
        // take those (`copy_first` without the rest).
        let (read, reads) = (quad[0].read, quad[0].reads);
        for cell in &mut quad[1..] {
            cell.read = read;
            cell.reads = reads;
        }
        Ok(())
    }

    /// [`AsyncReadCheck::cell`] of each of `cells` (the first at `offset`), in order. The
    /// common cell, whose write is the last one that passed and whose read set is the one
    /// the last add left its predecessor with, is what `cell` does to it (its set becomes
    /// the add's result, counted as moved), in a loop of its own with that state in
    /// registers: the many TMA stores of one tile read runs of such cells where their quads
    /// are not uniform (each lane of CUTLASS's storing warp issues the store, so each cell's
    /// set grows by a reader a store; uniform quads take [`Race::async_read_box`]'s run).
    #[inline(always)]
    fn cells(
        &mut self,
        cells: &mut [Cell],
        sets: &mut ReadSets,
        offset: u32,
    ) -> Result<(), Conflict> {
        let mut k = 0;
        while k < cells.len() {
            if let Some((from, to)) = self.reads.moving() {
                let passed = self.passed;
                let start = k;
                while let Some(cell) = cells.get_mut(k)
                    && cell.reads == from
                    && write_key(cell) == passed
                {
                    cell.reads = to;
                    k += 1;
                }
                self.reads.moved((k - start) as u32);
                if k == cells.len() {
                    break;
                }
            }
            self.cell(&mut cells[k], sets, offset + 4 * k as u32)?;
            k += 1;
        }
        Ok(())
    }

    /// [`AsyncReadCheck::cell`] of each cell of whole quads (the first at `offset`), in
    /// order: a uniform quad's first cell for all four (equal cells pass as it does, and are
    /// recorded as it is: [`ReadSets::repeat_memo`]), other quads through
    /// [`AsyncReadCheck::cells`].
    #[inline(always)]
    fn quads(
        &mut self,
        quads: &mut [[Cell; 4]],
        marks: &[bool],
        sets: &mut ReadSets,
        offset: u32,
    ) -> Result<(), Conflict> {
        for (q, (quad, &uniform)) in quads.iter_mut().zip(marks).enumerate() {
            let key = offset + 16 * q as u32;
            if uniform {
                let before = quad[0].reads;
                self.cell(&mut quad[0], sets, key)?;
                sets.repeat_memo(before, quad[0].reads, 3, &mut self.reads);
                copy_first(quad);
            } else {
                self.cells(quad, sets, key)?;
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn cell(&mut self, cell: &mut Cell, sets: &mut ReadSets, key: u32) -> Result<(), Conflict> {
        let (me, vc) = (self.me, self.vc);
        let w = cell.write;
        let this = write_key(cell);
        if self.passed == this {
            record_read_memo(cell, sets, me, vc, &mut self.reads);
            return Ok(());
        }
        if !sees(vc, w) {
            return Err(Conflict {
                earlier: w,
                earlier_write: true,
                offset: key,
                missing_fence: false,
            });
        }
        // The writer's first fence after the write must be visible to the operation.
        let writer = self.writer(cell);
        if w.clock != 0
            && let Some(x) = writer
            && self.fences[x]
                .get(cell.write_fences as usize)
                .is_none_or(|&f| vc.at(x) < f)
            && self
                .issuer_fence
                .is_none_or(|f| f[w.who as usize] < w.clock)
        {
            return Err(Conflict {
                earlier: w,
                earlier_write: true,
                offset: key,
                missing_fence: true,
            });
        }
        self.passed = this;
        record_read_memo(cell, sets, me, vc, &mut self.reads);
        Ok(())
    }

    /// The thread whose fences count for a generic write of `cell`: its writer, or for a
    /// `cp.async` the thread that issued it; none for an async-proxy write.
    #[inline(always)]
    fn writer(&self, cell: &Cell) -> Option<usize> {
        let who = cell.write.who as usize;
        if who < self.threads {
            Some(who)
        } else if cell.generic {
            Some(self.owner[who - self.threads] as usize)
        } else {
            None
        }
    }

    /// The [`ChunkNeed`] of `cell`'s write: what [`AsyncReadCheck::cell`] asks of a reader's
    /// clock and its issuer's fence.
    #[inline(always)]
    fn need(&self, cell: &Cell) -> ChunkNeed {
        let w = cell.write;
        if w.clock == 0 {
            return ChunkNeed {
                key: write_key(cell),
                seen: [(0, 0); 2],
            };
        }
        let fence = match self.writer(cell) {
            None => (0, 0),
            // No fence yet: a reader's issuer's fence alone can pass it (no clock reaches
            // `u32::MAX`).
            Some(x) => (
                x as u32,
                self.fences[x]
                    .get(cell.write_fences as usize)
                    .copied()
                    .unwrap_or(u32::MAX),
            ),
        };
        ChunkNeed {
            key: write_key(cell),
            seen: [(w.who, w.clock), fence],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// How many chunks [`Race::async_read_chunks`] found their need met for.
        pub(super) static NEEDS_MET: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// How many quads [`Race::async_read_box`] and [`Race::async_read_chunks`] recorded in
        /// their runs of moves (their need met).
        pub(super) static RUN_MOVES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        /// How many rows [`Race::read_rows`] took as one uniform quad directly.
        pub(super) static ROWS_DIRECT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    /// What the checks can tell of a cell: its write, its single read and its sorted read set.
    type CellState = (Access, Access, Vec<(u32, u32)>);

    /// The [`CellState`] of cell `g` of CTA 0.
    fn cell_state(race: &Race, g: usize) -> CellState {
        let cell = race.shadow.cells[0][g];
        let mut set = if cell.reads == 0 {
            Vec::new()
        } else {
            race.shadow.read_sets.get(cell.reads).to_vec()
        };
        set.sort_unstable();
        (cell.write, cell.read, set)
    }

    /// Every cell of the two shadows in the same state (write, single read, read set) after
    /// `step`; the read-set slots of the runs' shadow, cell by cell.
    fn cells_agree(runs: &Race, cells: &Race, step: u32) -> Vec<u32> {
        (0..(BYTES / 4) as usize)
            .map(|g| {
                assert_eq!(
                    cell_state(runs, g),
                    cell_state(cells, g),
                    "step {step} cell {g}"
                );
                runs.shadow.cells[0][g].reads
            })
            .collect()
    }

    /// The threads and shared bytes of the two randomized run-versus-cell tests.
    const THREADS: usize = 8;
    const BYTES: u32 = 64;

    /// Two equal shadows for those tests: one to take the runs' paths, one the single cells'.
    fn shadow_pair(async_agents: bool) -> (Race, Race) {
        let new = || Race::new(THREADS, 1, BYTES as usize, true, async_agents);
        (new(), new())
    }

    /// A barrier of all threads in each shadow, each thread having waited for its async
    /// operations: every thread acquires the join of all threads' clocks, then ticks.
    fn barrier_all(races: [&mut Race; 2]) {
        for r in races {
            let mut joined = vec![0; r.dims()];
            for u in 0..THREADS as u32 {
                let event = r.agent_clock[u as usize];
                r.acquire_agent(u, event);
                join_into(&mut joined, r.clock(u));
            }
            for u in 0..THREADS as u32 {
                r.acquire(u, &joined);
                r.tick(u);
            }
        }
    }

    /// Thread `t` of each shadow acquires what thread `from` of that shadow has seen.
    fn acquire_from(races: [&mut Race; 2], t: u32, from: u32) {
        for r in races {
            let vc = r.clock(from).to_vec();
            r.acquire(t, &vc);
        }
    }

    /// Acquires of shared clocks ([`Race::acquire_shared`], whose memo knows the clock by its
    /// pointer) leave every thread's clock as [`Race::acquire`] of the same clocks does: random
    /// acquires by 8 threads of a few shared clocks (threads' released clocks, and copies of
    /// them in new allocations), among ticks and releases.
    #[test]
    fn shared_acquires_are_acquires() {
        let mut rng = crate::rng::Rng::new(29);
        let mut next = |n: u64| rng.below(n);
        let (mut shared, mut plain) = shadow_pair(true);
        let mut pool: Vec<std::sync::Arc<[u32]>> = Vec::new();
        let mut reused = 0;
        for step in 0..20000 {
            let t = next(THREADS as u64) as u32;
            match next(9) {
                0 => {
                    shared.tick(t);
                    plain.tick(t);
                }
                1 => {
                    let (mut a, mut b) = (Clock::new(), Clock::new());
                    shared.release(t, &mut a);
                    plain.release(t, &mut b);
                    assert_eq!(a, b, "step {step}");
                    pool.push(a.into());
                    if pool.len() > 3 {
                        pool.remove(0);
                    }
                }
                2 => {
                    if let Some(c) = pool.last() {
                        let copy: std::sync::Arc<[u32]> = c.to_vec().into();
                        pool.push(copy);
                    }
                }
                3 => {
                    // A barrier of all threads: after it they share one snapshot.
                    for r in [&mut shared, &mut plain] {
                        let mut joined = Clock::new();
                        for u in 0..THREADS as u32 {
                            r.release(u, &mut joined);
                        }
                        let joined: std::sync::Arc<[u32]> = joined.into();
                        for u in 0..THREADS as u32 {
                            r.acquire_barrier(u, &joined);
                        }
                    }
                }
                _ => {
                    // Some of the threads acquire one clock in turn, as the waiters of an
                    // mbarrier's phase do (those on one snapshot share the memo's).
                    if pool.is_empty() {
                        continue;
                    }
                    let c = pool[next(pool.len() as u64) as usize].clone();
                    let mut last: Option<std::sync::Arc<[u32]>> = None;
                    for u in 0..THREADS as u32 {
                        if next(3) == 0 {
                            continue;
                        }
                        shared.acquire_shared(u, &c);
                        plain.acquire(u, &c);
                        let now = shared.snapshot[u as usize].clone();
                        reused += last
                            .as_ref()
                            .is_some_and(|l| std::sync::Arc::ptr_eq(l, &now))
                            as u32;
                        last = Some(now);
                    }
                }
            }
            for u in 0..THREADS as u32 {
                assert_eq!(shared.clock(u), plain.clock(u), "step {step} thread {u}");
            }
        }
        assert!(
            reused > 1000,
            "snapshots made once for two acquires: {reused}"
        );
    }

    /// A read or write of a run of cells (which shares read sets and skips repeated checks:
    /// [`ReadMemo`], [`WriteMemo`]) finds what the same access does granule by granule
    /// (the single-cell path), stops at the same cell, and leaves every cell as that does:
    /// random accesses of 8 threads, ordered now and then by a release and an acquire.
    #[test]
    fn runs_of_cells_check_as_single_cells() {
        let mut rng = crate::rng::Rng::new(5);
        let mut next = |n: u64| rng.below(n);
        let (mut runs, mut cells) = shadow_pair(false);
        let (mut conflicts, mut shared) = (0, 0);
        for step in 0..20000 {
            let t = next(THREADS as u64) as u32;
            let off = 4 * next(BYTES as u64 / 4) as u32;
            let len = 4 * (1 + next(((BYTES - off) / 4).min(4) as u64) as u32);
            match next(10) {
                0 => {
                    // `t` acquires what another thread has seen.
                    let from = next(THREADS as u64) as u32;
                    acquire_from([&mut runs, &mut cells], t, from);
                }
                1 => {
                    runs.tick(t);
                    cells.tick(t);
                }
                k => {
                    let write = k < 4;
                    if write {
                        runs.next_store();
                        cells.next_store();
                    }
                    let run = if write {
                        runs.write(t, 0, off, len, 7)
                    } else {
                        runs.read(t, 0, off, len, 7)
                    };
                    let mut each = Ok(());
                    for g in (off..off + len).step_by(4) {
                        each = if write {
                            cells.write(t, 0, g, 4, 7)
                        } else {
                            cells.read(t, 0, g, 4, 7)
                        };
                        if each.is_err() {
                            break;
                        }
                    }
                    conflicts += run.is_err() as u32;
                    assert_eq!(
                        format!("{run:?}"),
                        format!("{each:?}"),
                        "step {step}: {} by {t} of {off}+{len}",
                        if write { "write" } else { "read" }
                    );
                }
            }
            for reads in cells_agree(&runs, &cells, step) {
                shared += (reads != 0 && runs.shadow.read_sets.slots_refs(reads) > 1) as u32;
            }
        }
        assert!(conflicts > 100, "conflicts found: {conflicts}");
        assert!(shared > 100, "cells that share a read set: {shared}");
    }

    /// An async operation's reads of ranges ([`Race::async_reads`], whose common cells take
    /// the loop of [`AsyncReadCheck::cells`]) find what the same reads do granule by granule
    /// (a check of its own each, so that nothing is remembered from one to the next), stop at
    /// the same cell, and leave every cell as those do, each read set counted once per cell
    /// that names it: random reads by the agents of 8 threads, among random generic and
    /// `cp.async` writes, generic reads, proxy fences, acquires and ticks.
    #[test]
    fn async_reads_of_ranges_check_as_single_cells() {
        let mut rng = crate::rng::Rng::new(7);
        let mut next = |n: u64| rng.below(n);
        let (mut runs, mut cells) = shadow_pair(true);
        let (mut conflicts, mut shared, mut long) = (0, 0, 0);
        for step in 0..30000 {
            let t = next(THREADS as u64) as u32;
            let off = 4 * next(BYTES as u64 / 4) as u32;
            let len = 4 * (1 + next(((BYTES - off) / 4).min(4) as u64) as u32);
            match next(24) {
                0 | 1 => {
                    let from = next(THREADS as u64) as u32;
                    acquire_from([&mut runs, &mut cells], t, from);
                }
                2 => {
                    // A barrier of all threads, each having waited for its async operations.
                    barrier_all([&mut runs, &mut cells]);
                }
                3 | 4 => {
                    // `t` waits for its async operations (so that writes can be ordered
                    // after their reads).
                    let event = runs.agent_clock[t as usize];
                    runs.acquire_agent(t, event);
                    cells.acquire_agent(t, event);
                }
                5 | 22 | 23 => {
                    runs.fence_proxy_async(t);
                    cells.fence_proxy_async(t);
                }
                6..=8 => {
                    let (a, b) = if next(2) == 0 {
                        runs.next_store();
                        cells.next_store();
                        (
                            runs.write(t, 0, off, len, 3),
                            cells.write(t, 0, off, len, 3),
                        )
                    } else if next(2) == 0 {
                        let vc = runs.issue_async(t);
                        let a = runs.cp_async_write(t, &vc, 0, off, 16.min(len), 4);
                        let vc = cells.issue_async(t);
                        (a, cells.cp_async_write(t, &vc, 0, off, 16.min(len), 4))
                    } else {
                        (runs.read(t, 0, off, len, 5), cells.read(t, 0, off, len, 5))
                    };
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "step {step}");
                }
                _ => {
                    // One to four chunks, each continuing the last now and then.
                    let mut at = Vec::new();
                    let mut o = off;
                    for _ in 0..1 + next(4) {
                        let l = 4 * (1 + next(4) as u32);
                        if o + l > BYTES {
                            break;
                        }
                        at.push((0u32, o, l));
                        o = if next(2) == 0 {
                            o + l
                        } else {
                            4 * next(BYTES as u64 / 4) as u32
                        };
                    }
                    long += at.iter().map(|a| a.2 / 4).sum::<u32>().saturating_sub(1);
                    let vc = runs.issue_async(t);
                    let run = runs.async_reads(t, &vc, &at, 9);
                    let vc = cells.issue_async(t);
                    let mut each = Ok(());
                    'chunks: for (i, &(_, o, l)) in at.iter().enumerate() {
                        for g in (o..o + l).step_by(4) {
                            if let Err(c) = cells.async_read(t, &vc, 0, g, 4, 9) {
                                each = Err((i, c));
                                break 'chunks;
                            }
                        }
                    }
                    conflicts += run.is_err() as u32;
                    assert_eq!(
                        format!("{run:?}"),
                        format!("{each:?}"),
                        "step {step}: reads {at:?} by the agent of {t}"
                    );
                }
            }
            let mut named = std::collections::HashMap::new();
            for reads in cells_agree(&runs, &cells, step) {
                if reads != 0 {
                    *named.entry(reads).or_insert(0) += 1;
                }
            }
            for (&slot, &n) in &named {
                assert_eq!(
                    runs.shadow.read_sets.slots_refs(slot),
                    n,
                    "step {step}: cells naming slot {slot}"
                );
                shared += (n > 1) as u32;
            }
        }

        assert!(conflicts > 100, "conflicts found: {conflicts}");
        assert!(shared > 100, "read sets shared by cells: {shared}");
        assert!(long > 1000, "cells after a range's first: {long}");
    }

    /// Everything the checks can tell of a granule of CTA 0: its cell's state, and each byte's
    /// when it is split.
    fn granule_state(race: &Race, g: usize) -> Vec<CellState> {
        let cell = race.shadow.cells[0][g];
        if !cell.split {
            return vec![cell_state(race, g)];
        }
        race.shadow.bytes[&(0, g as u32)]
            .iter()
            .map(|b| {
                let mut set = if b.reads == 0 {
                    Vec::new()
                } else {
                    race.shadow.read_sets.get(b.reads).to_vec()
                };
                set.sort_unstable();
                (b.write, b.read, set)
            })
            .collect()
    }

    /// Every field of a cell, to compare the cells of a uniform quad.
    fn fields(c: &Cell) -> (Access, u32, Access, u32, bool, bool, bool) {
        (
            c.write,
            c.write_fences,
            c.read,
            c.reads,
            c.split,
            c.reduced,
            c.generic,
        )
    }

    /// Accesses of whole quads ([`Shadow::quads`]: one check a uniform quad, its first cell
    /// copied to the other three) find what the same accesses do granule by granule (the
    /// single-cell paths, which never take a quad), stop at the same cell, and leave every cell
    /// and byte as those do, each read set counted once per cell that names it; and a quad
    /// marked uniform has 4 equal cells. Random generic reads and writes, `cp.async` writes,
    /// async-proxy writes (reductions too), async reads of ranges and `ldmatrix` rows, of whole
    /// quads mostly, among narrower and misaligned accesses (which unmark quads and split
    /// granules), proxy fences, acquires, waits and barriers, by 8 threads and their agents.
    #[test]
    fn quads_check_as_single_cells() {
        const QBYTES: u32 = 128;
        let mut rng = crate::rng::Rng::new(17);
        let mut next = |n: u64| rng.below(n);
        let new = || Race::new(THREADS, 1, QBYTES as usize, true, true);
        let (mut quads, mut cells) = (new(), new());
        let (mut conflicts, mut uniform, mut shared, mut split) = (0, 0u64, 0, 0);
        let (mut read_uniform, mut set_uniform) = (0u64, 0u64);
        // Granule by granule on `cells`: the first conflict, with the index of its range.
        fn by_granules(
            ranges: &[(u32, u32)],
            mut f: impl FnMut(u32) -> Result<(), Conflict>,
        ) -> Result<(), (usize, Conflict)> {
            for (i, &(o, l)) in ranges.iter().enumerate() {
                for g in (o..o + l).step_by(4) {
                    f(g).map_err(|c| (i, c))?;
                }
            }
            Ok(())
        }
        for step in 0..40000 {
            let t = next(THREADS as u64) as u32;
            // Whole quads mostly; now and then 4-byte granules.
            let (off, len) = if next(6) == 0 {
                let off = 4 * next(QBYTES as u64 / 4) as u32;
                (
                    off,
                    4 * (1 + next(((QBYTES - off) / 4).min(4) as u64) as u32),
                )
            } else {
                let off = 16 * next(QBYTES as u64 / 16) as u32;
                (
                    off,
                    16 * (1 + next(((QBYTES - off) / 16).min(3) as u64) as u32),
                )
            };
            let r: (String, String) = match next(26) {
                0 | 1 => {
                    let from = next(THREADS as u64) as u32;
                    acquire_from([&mut quads, &mut cells], t, from);
                    continue;
                }
                2 => {
                    barrier_all([&mut quads, &mut cells]);
                    continue;
                }
                3 | 4 => {
                    let event = quads.agent_clock[t as usize];
                    quads.acquire_agent(t, event);
                    cells.acquire_agent(t, event);
                    continue;
                }
                5 | 6 => {
                    quads.fence_proxy_async(t);
                    cells.fence_proxy_async(t);
                    continue;
                }
                7 => {
                    // A narrow or misaligned access, the same on both: it splits granules (for
                    // good: in the last two quads only) and unmarks quads.
                    let o = QBYTES - 32 + next(24) as u32;
                    let l = 1 + next(8) as u32;
                    let write = next(2) == 0;
                    if write {
                        quads.next_store();
                        cells.next_store();
                    }
                    let [a, b] = [&mut quads, &mut cells].map(|r| {
                        if write {
                            r.write(t, 0, o, l, 2)
                        } else {
                            r.read(t, 0, o, l, 2)
                        }
                    });
                    (format!("{a:?}"), format!("{b:?}"))
                }
                8..=10 => {
                    quads.next_store();
                    cells.next_store();
                    let a = quads.write(t, 0, off, len, 3);
                    let b = by_granules(&[(off, len)], |g| cells.write(t, 0, g, 4, 3));
                    (format!("{a:?}"), format!("{:?}", b.map_err(|e| e.1)))
                }
                11..=13 => {
                    let a = quads.read(t, 0, off, len, 5);
                    let b = by_granules(&[(off, len)], |g| cells.read(t, 0, g, 4, 5));
                    (format!("{a:?}"), format!("{:?}", b.map_err(|e| e.1)))
                }
                14 | 15 => {
                    let l = 16.min(len);
                    let vc = quads.issue_async(t);
                    let a = quads.cp_async_write(t, &vc, 0, off, l, 4);
                    let vc = cells.issue_async(t);
                    let b = by_granules(&[(off, l)], |g| cells.cp_async_write(t, &vc, 0, g, 4, 4));
                    (format!("{a:?}"), format!("{:?}", b.map_err(|e| e.1)))
                }
                16 | 17 => {
                    let reduction = next(3) == 0;
                    let vc = quads.issue_async(t);
                    let a = quads.async_write(t, &vc, 0, off, len, 6, reduction);
                    let vc = cells.issue_async(t);
                    let b = by_granules(&[(off, len)], |g| {
                        cells.async_write(t, &vc, 0, g, 4, 6, reduction)
                    });
                    (format!("{a:?}"), format!("{:?}", b.map_err(|e| e.1)))
                }
                18..=20 => {
                    // An `ldmatrix`: up to 8 rows of 16 bytes, read by the lanes of a warp.
                    let rows: Vec<u32> = (0..1 + next(8))
                        .map(|_| 16 * next(QBYTES as u64 / 16) as u32)
                        .collect();
                    let a = quads.read_rows(0, 0, &rows, 16, 8);
                    let mut b = Ok(());
                    'rows: for (i, &o) in rows.iter().enumerate() {
                        for g in (o..o + 16).step_by(4) {
                            if let Err(c) = cells.read(i as u32, 0, g, 4, 8) {
                                b = Err((i, c));
                                break 'rows;
                            }
                        }
                    }
                    (format!("{a:?}"), format!("{b:?}"))
                }
                _ => {
                    // An async read of one to four ranges (whole quads, or granules now and
                    // then), each continuing the last now and then.
                    let mut at = Vec::new();
                    let mut o = off;
                    for _ in 0..1 + next(4) {
                        // Whole quads, or granules across quads' bounds (the loop of
                        // `AsyncReadCheck::cells` then takes cells of marked quads).
                        let l = if o % 16 == 0 && next(2) != 0 {
                            16 * (1 + next(2) as u32)
                        } else {
                            4 * (1 + next(6) as u32)
                        };
                        if o + l > QBYTES {
                            break;
                        }
                        at.push((0u32, o, l));
                        o = match next(3) {
                            0 => o + l,
                            1 => 16 * next(QBYTES as u64 / 16) as u32,
                            _ => 4 * next(QBYTES as u64 / 4) as u32,
                        };
                    }
                    let vc = quads.issue_async(t);
                    let a = quads.async_reads(t, &vc, &at, 9);
                    let vc = cells.issue_async(t);
                    let ranges: Vec<(u32, u32)> = at.iter().map(|&(_, o, l)| (o, l)).collect();
                    let b = by_granules(&ranges, |g| cells.async_read(t, &vc, 0, g, 4, 9));
                    (format!("{a:?}"), format!("{b:?}"))
                }
            };
            conflicts += r.0.starts_with("Err") as u32;
            assert_eq!(r.0, r.1, "step {step}");
            let mut named = std::collections::HashMap::new();
            for g in 0..(QBYTES / 4) as usize {
                assert_eq!(
                    granule_state(&quads, g),
                    granule_state(&cells, g),
                    "step {step} granule {g}"
                );
                let cell = quads.shadow.cells[0][g];
                if cell.split {
                    split += 1;
                    for b in &quads.shadow.bytes[&(0, g as u32)] {
                        *named.entry(b.reads).or_insert(0) += 1;
                    }
                } else {
                    *named.entry(cell.reads).or_insert(0) += 1;
                }
            }
            named.remove(&0);
            for (&slot, &n) in &named {
                assert_eq!(
                    quads.shadow.read_sets.slots_refs(slot),
                    n,
                    "step {step}: cells naming slot {slot}"
                );
                shared += (n > 4) as u32;
            }
            // And no slot is counted that no cell names (a set that would never be freed).
            for (slot, n) in quads.shadow.read_sets.slots_in_use() {
                assert_eq!(
                    named.get(&slot),
                    Some(&n),
                    "step {step}: slot {slot} in use"
                );
            }
            marked_quads_are_equal(&quads);
            for (quad, &marked) in quads.shadow.cells[0]
                .as_chunks::<4>()
                .0
                .iter()
                .zip(&quads.shadow.uniform[0])
            {
                if marked {
                    uniform += 1;
                    read_uniform += (quad[0].read.clock != 0) as u64;
                    set_uniform += (quad[0].reads != 0) as u64;
                }
            }
        }
        assert!(conflicts > 200, "conflicts found: {conflicts}");
        assert!(
            shared > 200,
            "read sets shared by more than a quad: {shared}"
        );
        assert!(uniform > 30000, "uniform quads seen: {uniform}");
        assert!(read_uniform > 5000, "uniform quads read: {read_uniform}");
        assert!(
            set_uniform > 3000,
            "uniform quads with a read set: {set_uniform}"
        );
        assert!(split > 1000, "split granules seen: {split}");
    }

    /// Quads whose cells are all marked have equal cells (the invariant of [`Shadow::quads`]).
    /// The steps the randomized comparisons of two shadows share, for `k` of 0 to 12 of the
    /// step's draw: an acquire from another thread (0, 1), a barrier of all (2 to 4), a wait
    /// for the thread's agent (5, 6), a proxy fence (7 to 9), all of which the shadows take
    /// alike with nothing to compare (`None`); and a store (10 to 12) of one or two quads, or
    /// of a granule (which unmarks its quad), or from step 30,000 on a narrower one (which
    /// splits its granule), whose two results are compared. Each draws from `next` in the
    /// order the tests did before they shared it, so their runs are the same.
    fn shared_step(
        k: u64,
        both: [&mut Race; 2],
        t: u32,
        off: u32,
        step: usize,
        next: &mut impl FnMut(u64) -> u64,
    ) -> Option<(String, String)> {
        const CBYTES: u32 = 256;
        match k {
            0 | 1 => acquire_from(both, t, next(THREADS as u64) as u32),
            2..=4 => barrier_all(both),
            5 | 6 => {
                let event = both[0].agent_clock[t as usize];
                for r in both {
                    r.acquire_agent(t, event);
                }
            }
            7..=9 => {
                for r in both {
                    r.fence_proxy_async(t);
                }
            }
            _ => {
                let (o, l) = match next(4) {
                    0 => (off + 4 * next(4) as u32, 4),
                    1 if step >= 30000 => (off + next(14) as u32, 1 + next(2) as u32),
                    _ => (off, 16 * (1 + next(2) as u32).min((CBYTES - off) / 16)),
                };
                let [a, b] = both.map(|r| {
                    r.next_store();
                    format!("{:?}", r.write(t, 0, o, l, 3))
                });
                return Some((a, b));
            }
        }
        None
    }

    /// After a step of the randomized comparisons, the fast path's shadow `fast` and the
    /// plain one agree: every granule's state and its fields (with `all_fields` every field;
    /// without, the last write, its thread, the split and the fence, for paths that copy only
    /// the read fields to a quad's other cells), the quads' marks, and before step `split_from`
    /// (after which narrower stores split granules for good) the read sets: each set counts
    /// exactly the cells that name it, and every set in use is named. A marked quad's cells are
    /// equal.
    fn shadows_agree(fast: &Race, plain: &Race, step: usize, split_from: usize, all_fields: bool) {
        let mut named = std::collections::HashMap::new();
        for g in 0..fast.shadow.cells[0].len() {
            assert_eq!(
                granule_state(fast, g),
                granule_state(plain, g),
                "step {step} granule {g}"
            );
            let (x, y) = (fast.shadow.cells[0][g], plain.shadow.cells[0][g]);
            let (fx, fy) = (fields(&x), fields(&y));
            if all_fields {
                assert_eq!(fx, fy, "step {step} granule {g}");
            }
            assert_eq!(fx.0, fy.0, "step {step} granule {g}");
            assert_eq!(fx.1, fy.1, "step {step} granule {g}");
            assert_eq!(fx.4, fy.4, "step {step} granule {g}");
            assert_eq!(fx.6, fy.6, "step {step} granule {g}");
            if !x.split {
                *named.entry(x.reads).or_insert(0) += 1;
            }
        }
        assert_eq!(fast.shadow.uniform, plain.shadow.uniform, "step {step}");
        named.remove(&0);
        if step < split_from {
            for (&slot, &n) in &named {
                assert_eq!(
                    fast.shadow.read_sets.slots_refs(slot),
                    n,
                    "step {step}: cells naming slot {slot}"
                );
            }
            for (slot, n) in fast.shadow.read_sets.slots_in_use() {
                assert_eq!(
                    named.get(&slot),
                    Some(&n),
                    "step {step}: slot {slot} in use"
                );
            }
        }
        marked_quads_are_equal(fast);
    }

    fn marked_quads_are_equal(race: &Race) {
        let quads = race.shadow.cells[0].as_chunks::<4>().0;
        for (q, (quad, &marked)) in quads.iter().zip(&race.shadow.uniform[0]).enumerate() {
            if marked {
                assert!(
                    quad.iter().all(|c| fields(c) == fields(&quad[0])),
                    "quad {q} marked uniform"
                );
            }
        }
    }

    /// [`Race::async_read_chunks`] checks and records as [`Race::async_reads`]: two shadows of
    /// 16 quads take the same 40,000 random steps of 8 threads and their agents (acquires,
    /// barriers, waits for their agents, proxy fences; stores of whole quads, of granules and,
    /// in the last quarter, narrower ones that split granules; `cp.async` and bulk writes),
    /// and four operands (whole quads in a random order, as a swizzled `wgmma` B's chunks) are
    /// read again and again by random threads' agents, on one shadow with the operand's needs
    /// kept between its reads (as `OperandPlaces` keeps them), on the other without. The
    /// results (the conflict and its chunk), every granule's state (its fields and read set),
    /// the marks and the read sets' counts must be the same after every step. It sees over
    /// 20,000 chunks whose need was met, and over 300 conflicts at a chunk whose need had the
    /// chunk's write: a reader that had not seen the write, or whose fences did not cover it,
    /// where an earlier reader's had.
    #[test]
    fn chunk_reads_check_as_async_reads() {
        const CBYTES: u32 = 256;
        let mut rng = crate::rng::Rng::new(23);
        let mut next = |n: u64| rng.below(n);
        let new = || Race::new(THREADS, 1, CBYTES as usize, true, true);
        let (mut chunks, mut plain) = (new(), new());
        let mut operands: Vec<Vec<(u32, u32, u32)>> = Vec::new();
        for _ in 0..4 {
            let mut quads: Vec<u32> = (0..CBYTES / 16).collect();
            for i in (1..quads.len()).rev() {
                quads.swap(i, next(i as u64 + 1) as usize);
            }
            quads.truncate(4 + next(12) as usize);
            operands.push(quads.iter().map(|&q| (0, 16 * q, 16)).collect());
        }
        let mut needs = vec![Vec::new(); operands.len()];
        NEEDS_MET.with(|n| n.set(0));
        let (mut conflicts, mut hidden) = (0, 0);
        for step in 0..40000 {
            let t = next(THREADS as u64) as u32;
            let off = 16 * next(CBYTES as u64 / 16) as u32;
            let k = next(26);
            let r: (String, String) = if k <= 12 {
                match shared_step(k, [&mut chunks, &mut plain], t, off, step, &mut next) {
                    Some(r) => r,
                    None => continue,
                }
            } else {
                let both = [&mut chunks, &mut plain];
                match k {
                    13 | 14 => {
                        let [a, b] = both.map(|r| {
                            let vc = r.issue_async(t);
                            format!("{:?}", r.cp_async_write(t, &vc, 0, off, 16, 4))
                        });
                        (a, b)
                    }
                    15 => {
                        let [a, b] = both.map(|r| {
                            let vc = r.issue_async(t);
                            format!("{:?}", r.async_write(t, &vc, 0, off, 16, 6, false))
                        });
                        (a, b)
                    }
                    _ => {
                        let op = next(operands.len() as u64) as usize;
                        let at = &operands[op];
                        let vc = chunks.issue_async(t).to_clock();
                        let a = chunks.async_read_chunks(t, &vc[..], 0, at, &mut needs[op], 9);
                        let vc = plain.issue_async(t).to_clock();
                        let b = plain.async_reads(t, &vc[..], at, 9);
                        if let Err((i, _)) = a {
                            conflicts += 1;
                            let g = (at[i].1 / 4) as usize;
                            hidden += (needs[op].get(i).map(|n| n.key)
                                == Some(write_key(&chunks.shadow.cells[0][g])))
                                as u32;
                        }
                        (format!("{a:?}"), format!("{b:?}"))
                    }
                }
            };
            assert_eq!(r.0, r.1, "step {step}");
            shadows_agree(&chunks, &plain, step, 30000, false);
        }
        let met = NEEDS_MET.with(|n| n.get());
        assert!(met > 20000, "chunks whose need was met: {met}");
        assert!(conflicts > 10000, "conflicts found: {conflicts}");
        assert!(
            hidden > 2000,
            "conflicts at a chunk with its write's need: {hidden}"
        );
    }

    /// A generic read of two uniform quads whose sets are each shared by two quads: the first
    /// quad's add copies its set (the memo's move of its other three cells pending), and the
    /// second's add must bring the counts up to date before the memo takes it
    /// ([`ReadSets::add_quad`]); then every set is counted once per cell that names it.
    #[test]
    fn a_quad_read_after_moves_counts_them() {
        let mut race = Race::new(THREADS, 1, 64, true, true);
        // Threads 0 and 1 read quads 0 and 1, threads 2 and 3 quads 2 and 3: two sets of eight
        // cells each (the threads are unordered).
        for (t, off) in [(0, 0), (1, 0), (2, 32), (3, 32)] {
            race.read(t, 0, off, 32, 1).expect("read");
        }
        // Thread 4 reads quads 1 and 2.
        race.read(4, 0, 16, 32, 2).expect("read");
        let mut named = std::collections::HashMap::new();
        for cell in &race.shadow.cells[0] {
            *named.entry(cell.reads).or_insert(0) += 1;
        }
        named.remove(&0);
        assert_eq!(named.len(), 4, "sets: {named:?}");
        for (slot, n) in race.shadow.read_sets.slots_in_use() {
            assert_eq!(named.get(&slot), Some(&n), "slot {slot}");
        }
    }

    /// [`Race::async_read_box`] checks and records as [`Race::async_reads`]: two shadows of 16
    /// quads take the same 40,000 random steps of 8 threads (acquires, barriers, waits for
    /// their agents, proxy fences, stores of quads and granules, `cp.async` and bulk writes,
    /// generic reads of quads, `ldmatrix` rows (`Race::read_rows`, whose row of one uniform
    /// quad is checked directly, against each lane's `Race::read`), in the last quarter
    /// narrower stores that split granules), while
    /// six boxes (one to three ranges of one to four quads, in any order; one box with a range
    /// of granules, which takes `async_reads`) are read again and again, each by one to six
    /// threads' agents in turn, each with its operation's clock (an [`OpClock`], which the box's path copies
    /// into a vector), through `async_read_box` on one shadow (six boxes for the four it
    /// keeps) and `async_reads` on the other. The results (the conflict and its range), every
    /// granule's state and fields, the marks and the read sets' counts must agree after every
    /// step. It sees 24,827 quads whose need was met (488 of them in the run of moves), 6,382
    /// conflicts (900 of them at a quad whose need had its write), and 3,957 `ldmatrix` rows
    /// taken as one uniform quad.
    #[test]
    fn box_reads_check_as_async_reads() {
        const CBYTES: u32 = 256;
        let mut rng = crate::rng::Rng::new(31);
        let mut next = |n: u64| rng.below(n);
        let new = || Race::new(THREADS, 1, CBYTES as usize, true, true);
        let (mut boxes, mut plain) = (new(), new());
        let mut shapes: Vec<Vec<(u32, u32, u32)>> = Vec::new();
        for b in 0..6 {
            let mut at = Vec::new();
            for _ in 0..1 + next(3) {
                let quads = 1 + next(4) as u32;
                let q = next((CBYTES / 16 - quads + 1) as u64) as u32;
                at.push((0, 16 * q, 16 * quads));
            }
            if b == 5 {
                at.push((0, 4 * (1 + next(CBYTES as u64 / 4 - 4)) as u32, 8));
            }
            shapes.push(at);
        }
        NEEDS_MET.with(|n| n.set(0));
        RUN_MOVES.with(|n| n.set(0));
        ROWS_DIRECT.with(|n| n.set(0));
        let (mut conflicts, mut hidden) = (0, 0);
        for step in 0..40000 {
            let t = next(THREADS as u64) as u32;
            let off = 16 * next(CBYTES as u64 / 16) as u32;
            let k = next(30);
            let r: (String, String) = if k <= 12 {
                match shared_step(k, [&mut boxes, &mut plain], t, off, step, &mut next) {
                    Some(r) => r,
                    None => continue,
                }
            } else {
                let both = [&mut boxes, &mut plain];
                match k {
                    13 => {
                        let [a, b] = both.map(|r| {
                            let vc = r.issue_async(t);
                            format!("{:?}", r.cp_async_write(t, &vc, 0, off, 16, 4))
                        });
                        (a, b)
                    }
                    14 => {
                        let [a, b] = both.map(|r| {
                            let vc = r.issue_async(t);
                            format!("{:?}", r.async_write(t, &vc, 0, off, 16, 6, false))
                        });
                        (a, b)
                    }
                    15 => {
                        let [a, b] = both.map(|r| format!("{:?}", r.read(t, 0, off, 16, 7)));
                        (a, b)
                    }
                    16 | 17 => {
                        // An `ldmatrix` of up to 8 rows of 16 bytes (now and then one at a
                        // granule, not a quad), read by the lanes of warp 0: `read_rows` on one
                        // shadow, each lane's `read` of its row on the other.
                        let rows: Vec<u32> = (0..1 + next(8))
                            .map(|_| match next(8) {
                                0 => 4 * next(CBYTES as u64 / 4 - 3) as u32,
                                _ => 16 * next(CBYTES as u64 / 16) as u32,
                            })
                            .collect();
                        let a = boxes.read_rows(0, 0, &rows, 16, 8);
                        let b = rows.iter().enumerate().try_for_each(|(i, &o)| {
                            plain.read(i as u32, 0, o, 16, 8).map_err(|c| (i, c))
                        });
                        (format!("{a:?}"), format!("{b:?}"))
                    }
                    _ => {
                        // One box read by up to six threads in turn (as the lanes of a warp
                        // store one box), the results compared together.
                        let shape = next(shapes.len() as u64) as usize;
                        let at = &shapes[shape];
                        let (mut a, mut b) = (Ok(()), Ok(()));
                        for k in 0..1 + next(6) as u32 {
                            let t = (t + k) % THREADS as u32;
                            let vc = boxes.issue_async(t);
                            a = boxes.async_read_box(t, &vc, 0, at, 9);
                            let vc = plain.issue_async(t);
                            b = plain.async_reads(t, &vc, at, 9);
                            if a.is_err() || b.is_err() {
                                break;
                            }
                        }
                        if let Err((_, c)) = a
                            && shape != 5
                            && c.offset.is_multiple_of(16)
                        {
                            conflicts += 1;
                            let q = c.offset / 16;
                            let kept = boxes.box_needs.iter().find(|b| b.at == *at);
                            let mut quads = at.iter().flat_map(|&(_, o, l)| o / 16..(o + l) / 16);
                            let i = quads.position(|x| x == q);
                            if let (Some(kept), Some(i)) = (kept, i) {
                                hidden += (kept.needs[i].key
                                    == write_key(&boxes.shadow.cells[0][(q * 4) as usize]))
                                    as u32;
                            }
                        }
                        (format!("{a:?}"), format!("{b:?}"))
                    }
                }
            };
            assert_eq!(r.0, r.1, "step {step}");
            shadows_agree(&boxes, &plain, step, 30000, false);
        }
        let met = NEEDS_MET.with(|n| n.get());
        let moves = RUN_MOVES.with(|n| n.get());
        let direct = ROWS_DIRECT.with(|n| n.get());
        assert!(met > 18000, "quads whose need was met: {met}");
        assert!(moves > 300, "quads of the run of moves: {moves}");
        assert!(direct > 2500, "rows of one uniform quad: {direct}");
        assert!(conflicts > 4000, "conflicts found: {conflicts}");
        assert!(
            hidden > 500,
            "conflicts at a quad with its write's need: {hidden}"
        );
    }

    /// [`Race::cp_async_writes`] checks and records as [`Race::cp_async_write`] of each lane
    /// in turn: two shadows of 16 quads take the same 30,000 random steps of 8 threads
    /// (acquires, barriers, waits for their agents, proxy fences, stores and reads of quads and
    /// granules, async reads, and in the last sixth narrower stores that split granules), and
    /// `cp.async` operations of 1 to 8 lanes (threads), each lane 4 or 16 bytes (now and then
    /// 8, or an offset not aligned to the size), each lane's clock its thread's issue. The
    /// first conflict and its lane, every granule's state and fields, the marks and the read
    /// sets' counts must be the same after every step. It sees over 5,000 conflicts, over
    /// 3,000 of them at a lane after the first.
    #[test]
    fn cp_async_lanes_check_as_single_lanes() {
        const CBYTES: u32 = 256;
        let mut rng = crate::rng::Rng::new(29);
        let mut next = |n: u64| rng.below(n);
        let new = || Race::new(THREADS, 1, CBYTES as usize, true, true);
        let (mut lanes, mut single) = (new(), new());
        let (mut conflicts, mut later) = (0, 0);
        for step in 0..30000 {
            let t = next(THREADS as u64) as u32;
            let off = 16 * next(CBYTES as u64 / 16) as u32;
            let both = [&mut lanes, &mut single];
            let r: (String, String) = match next(28) {
                0 | 1 => {
                    acquire_from(both, t, next(THREADS as u64) as u32);
                    continue;
                }
                2 | 3 | 24.. => {
                    barrier_all(both);
                    continue;
                }
                4 | 5 => {
                    let event = both[0].agent_clock[t as usize];
                    for r in both {
                        r.acquire_agent(t, event);
                    }
                    continue;
                }
                6 => {
                    for r in both {
                        r.fence_proxy_async(t);
                    }
                    continue;
                }
                7..=9 => {
                    let (o, l) = match next(4) {
                        0 => (off + 4 * next(4) as u32, 4),
                        1 if step >= 25000 => (off + next(14) as u32, 1 + next(2) as u32),
                        _ => (off, 16),
                    };
                    let write = next(2) == 0;
                    let [a, b] = both.map(|r| {
                        if write {
                            r.next_store();
                            format!("{:?}", r.write(t, 0, o, l, 3))
                        } else {
                            format!("{:?}", r.read(t, 0, o, l, 5))
                        }
                    });
                    (a, b)
                }
                10 => {
                    let [a, b] = both.map(|r| {
                        let vc = r.issue_async(t);
                        format!("{:?}", r.async_read(t, &vc, 0, off, 16, 9))
                    });
                    (a, b)
                }
                11..=13 => {
                    // Reads of a quad: concurrent readers share a read set over its cells.
                    let [a, b] = both.map(|r| format!("{:?}", r.read(t, 0, off, 16, 5)));
                    (a, b)
                }
                14..=23 => {
                    // One operation: each lane a thread of its own, its clock its issue's.
                    let len = [4, 4, 16, 16, 16, 8][next(6) as usize];
                    let n = 1 + next(8) as usize;
                    let mut threads: Vec<u32> = (0..THREADS as u32).collect();
                    for i in (1..threads.len()).rev() {
                        threads.swap(i, next(i as u64 + 1) as usize);
                    }
                    // The lanes' offsets mostly within two quads (lanes that write cells of
                    // one read set, each checked against it by its own clock).
                    let window = if next(2) == 0 { 32 } else { CBYTES };
                    let first = off.min(CBYTES - window);
                    let offs: Vec<u32> = (0..n)
                        .map(|_| {
                            let o = first + len * next((window / len) as u64) as u32;
                            if next(40) != 0 {
                                o
                            } else if o >= 4 {
                                o - 4
                            } else {
                                o + 4
                            }
                        })
                        .collect();
                    // As `issue_cp_async` issues them: each lane's clock its thread's
                    // snapshot with its issue's components (`LaneClock`).
                    type Issued = Vec<(u32, std::sync::Arc<[u32]>, IssuedAsync)>;
                    fn issue(r: &mut Race, threads: &[u32]) -> Issued {
                        threads
                            .iter()
                            .map(|&u| {
                                let parts = r.issue_async_parts(u);
                                (u, r.issued_base(u).clone(), parts)
                            })
                            .collect()
                    }
                    fn lane<'a>(
                        issued: &'a Issued,
                        offs: &[u32],
                        i: usize,
                    ) -> (u32, LaneClock<'a>, u32) {
                        let (u, base, parts) = &issued[i];
                        (*u, LaneClock::of(&base[..], *u, *parts), offs[i])
                    }
                    let [x, y] = both;
                    let issued = issue(x, &threads[..n]);
                    let a = format!(
                        "{:?}",
                        x.cp_async_writes(0, len, 4, n, |i| lane(&issued, &offs, i))
                    );
                    let issued = issue(y, &threads[..n]);
                    let mut b = Ok(());
                    for i in 0..n {
                        let (u, vc, o) = lane(&issued, &offs, i);
                        if let Err(c) = y.cp_async_write(u, &vc, 0, o, len, 4) {
                            b = Err((i, c));
                            break;
                        }
                    }
                    let b = format!("{b:?}");
                    if a.starts_with("Err((") {
                        conflicts += 1;
                        later += !a.starts_with("Err((0,") as u32;
                    }
                    (a, b)
                }
            };
            assert_eq!(r.0, r.1, "step {step}");
            shadows_agree(&lanes, &single, step, 25000, true);
        }
        assert!(conflicts > 5000, "conflicts found: {conflicts}");
        assert!(later > 3000, "conflicts at a lane after the first: {later}");
    }

    /// Each lane of a `cp.async` is checked against a cell's readers by its own clock, even
    /// when the lane before it wrote a cell of the same read set and passed: threads 1 and 2
    /// read a quad concurrently (its cells share their set), thread 3 learns both reads,
    /// thread 4 neither; an operation whose lanes (threads 3 and 4) write granules 0 and 1
    /// fails at its second lane, with thread 1's read, as `cp_async_write` of each lane fails
    /// (a write memo shared by the lanes, which skips the search of a set that passed, missed
    /// it).
    #[test]
    fn cp_async_lanes_check_each_lane_against_the_readers() {
        let mut race = Race::new(THREADS, 1, 64, true, true);
        for t in 0..THREADS as u32 {
            race.tick(t);
        }
        race.read(1, 0, 0, 16, 5).unwrap();
        race.read(2, 0, 0, 16, 5).unwrap();
        let reads = race.shadow.cells[0][0].reads;
        assert!(reads != 0 && race.shadow.cells[0][1].reads == reads);
        for from in [1, 2] {
            let vc = race.clock(from).to_vec();
            race.acquire(3, &vc);
        }
        let issued: Vec<_> = [3u32, 4]
            .iter()
            .map(|&u| {
                let parts = race.issue_async_parts(u);
                (u, race.issued_base(u).clone(), parts)
            })
            .collect();
        let r = race.cp_async_writes(0, 4, 4, 2, |i| {
            let (u, base, parts) = &issued[i];
            (*u, LaneClock::of(&base[..], *u, *parts), 4 * i as u32)
        });
        let Err((1, c)) = r else {
            panic!("the second lane's conflict: {r:?}")
        };
        assert_eq!(
            (c.earlier.who, c.earlier_write, c.offset),
            (1, false, 4),
            "{c:?}"
        );
    }

    /// The loop of [`AsyncReadCheck::cells`] (an async read of granules that are not whole
    /// quads) that goes on into a marked quad and stops inside it leaves it unmarked: a store of two quads read by two agents (so that both share one read
    /// set), then a third agent's read of the granules 3 to 5.
    #[test]
    fn a_run_into_a_quad_unmarks_it() {
        let (mut quads, mut cells) = shadow_pair(true);
        for r in [&mut quads, &mut cells] {
            r.next_store();
            r.write(0, 0, 0, 32, 1).expect("the first store");
            r.fence_proxy_async(0);
            let mut joined = vec![0; r.dims()];
            for u in 0..THREADS as u32 {
                join_into(&mut joined, r.clock(u));
            }
            for u in 0..THREADS as u32 {
                r.acquire(u, &joined);
            }
        }
        for t in [1, 2] {
            let vc = quads.issue_async(t);
            quads.async_reads(t, &vc, &[(0, 0, 32)], 2).expect("read");
            let vc = cells.issue_async(t);
            for g in (0..32).step_by(4) {
                cells.async_read(t, &vc, 0, g, 4, 2).expect("read");
            }
        }
        marked_quads_are_equal(&quads);
        assert!(quads.shadow.uniform[0][1], "quad 1 marked");
        let vc = quads.issue_async(3);
        quads.async_reads(3, &vc, &[(0, 12, 12)], 3).expect("read");
        let vc = cells.issue_async(3);
        for g in (12..24).step_by(4) {
            cells.async_read(3, &vc, 0, g, 4, 3).expect("read");
        }
        for g in 0..8 {
            assert_eq!(cell_state(&quads, g), cell_state(&cells, g), "cell {g}");
        }
        assert_ne!(
            cell_state(&quads, 5),
            cell_state(&quads, 6),
            "the run stopped in quad 1"
        );
        marked_quads_are_equal(&quads);
    }
}
