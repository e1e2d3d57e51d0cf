//! Happens-before: vector clocks per thread, and shadow memory of shared accesses
//! (FastTrack-style epochs: one write epoch and one read epoch per byte, inflated to a read
//! vector clock only when reads are concurrent).
//!
//! Clock components: one per thread of the cluster, then one per thread's *async agent*, the
//! asynchronous proxy acting for that thread (`cp.async.bulk`, `cp.async`). Barrier
//! operations release and acquire clocks as the spec orders memory:
//! - `bar.sync/red/arrive` (§9.7.13.1): every arrival releases, `sync`/`red` acquire the join;
//! - mbarrier arrive-on (release) and a successful `test_wait`/`try_wait` (acquire) of the
//!   completed phase (§9.7.13.15.16), complete-tx by a bulk copy releases the copy;
//! - `barrier.cluster.arrive` (release unless `.relaxed` without a preceding fence) and
//!   `barrier.cluster.wait` (acquire) (§9.7.13.3).
//!
//! `fence.proxy.async` is tracked per thread: a generic write is visible to a later async-proxy
//! read only through a fence of its writer that happens before the read.

use std::collections::HashMap;

/// A vector clock.
pub(crate) type Clock = Vec<u32>;

pub(crate) fn join_into(into: &mut [u32], from: &[u32]) {
    let n = into.len().min(from.len());
    let (into, from) = (&mut into[..n], &from[..n]);
    for i in 0..n {
        into[i] = into[i].max(from[i]);
    }
}

/// Who made an access: a thread or the async agent of a thread, at which op.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Access {
    /// Clock component (thread, or `threads + thread` for an async agent).
    pub who: u32,
    /// Its clock at the access; 0 = no access.
    pub clock: u32,
    pub pc: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    write: Access,
    /// Fences of the writer before the write (see module docs).
    write_fences: u32,
    read: Access,
    /// The reads since the last write are in the shadow's read sets (concurrent readers).
    shared_reads: bool,
    /// This 4-byte granule is tracked per byte (in `Shadow::bytes`) since a narrower access.
    split: bool,
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
#[derive(Default)]
struct Shadow {
    cells: Vec<Vec<Cell>>,
    bytes: HashMap<(u32, u32), [Cell; 4]>,
    /// Concurrent readers of a cell, by (cta, first byte of the cell).
    read_sets: HashMap<(u32, u32), Clock>,
}

impl Shadow {
    /// Calls `f` on every cell covering `[off, off + len)` of CTA `cta`, with the cell's key.
    #[inline(always)]
    fn visit(&mut self, cta: u32, off: u32, len: u32, mut f: impl FnMut(&mut Cell, &mut HashMap<(u32, u32), Clock>, u32) -> Result<(), Conflict>) -> Result<(), Conflict> {
        let aligned = off.is_multiple_of(4) && len.is_multiple_of(4);
        let cells = &mut self.cells[cta as usize];
        for g in off / 4..(off + len).div_ceil(4) {
            let cell = &mut cells[g as usize];
            if aligned && !cell.split {
                f(cell, &mut self.read_sets, g * 4)?;
                continue;
            }
            if !cell.split {
                let whole = Cell { split: false, ..*cell };
                if whole.shared_reads
                    && let Some(set) = self.read_sets.get(&(cta, g * 4)).cloned()
                {
                    for b in 1..4 {
                        self.read_sets.insert((cta, g * 4 + b), set.clone());
                    }
                }
                self.bytes.insert((cta, g), [whole; 4]);
                cell.split = true;
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

#[inline(always)]
fn sees(seen: &[u32], a: Access) -> bool {
    a.clock == 0 || seen[a.who as usize] >= a.clock
}

/// Records a read by `me` (whose clock is `seen`) in `cell`.
#[inline(always)]
fn record_read(cell: &mut Cell, sets: &mut HashMap<(u32, u32), Clock>, cta: u32, key: u32, me: Access, seen: &[u32]) {
    if cell.shared_reads {
        let set = sets.entry((cta, key)).or_insert_with(|| vec![0; seen.len()]);
        set[me.who as usize] = set[me.who as usize].max(me.clock);
    } else if cell.read.clock == 0 || cell.read.who == me.who || sees(seen, cell.read) {
        cell.read = me;
    } else {
        let mut set = vec![0; seen.len()];
        set[cell.read.who as usize] = cell.read.clock;
        set[me.who as usize] = me.clock;
        sets.insert((cta, key), set);
        cell.shared_reads = true;
        cell.read = me;
    }
}

/// Checks that a writer that has seen `seen` is ordered after every access in `cell`.
#[inline(always)]
fn check_write(cell: &Cell, sets: &HashMap<(u32, u32), Clock>, cta: u32, key: u32, seen: &[u32]) -> Result<(), Conflict> {
    if !sees(seen, cell.write) {
        return Err(Conflict { earlier: cell.write, earlier_write: true, offset: key, missing_fence: false });
    }
    if cell.shared_reads {
        if let Some(set) = sets.get(&(cta, key))
            && let Some((who, &c)) = set.iter().enumerate().find(|(i, c)| **c > seen[*i])
        {
            return Err(Conflict { earlier: Access { who: who as u32, clock: c, pc: cell.read.pc }, earlier_write: false, offset: key, missing_fence: false });
        }
    } else if !sees(seen, cell.read) {
        return Err(Conflict { earlier: cell.read, earlier_write: false, offset: key, missing_fence: false });
    }
    Ok(())
}

#[inline(always)]
fn set_written(cell: &mut Cell, sets: &mut HashMap<(u32, u32), Clock>, cta: u32, key: u32, me: Access, fences: u32) {
    if cell.shared_reads {
        sets.remove(&(cta, key));
    }
    *cell = Cell { write: me, write_fences: fences, read: Access::default(), shared_reads: false, split: cell.split };
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
    agent_clock: Vec<u32>,
    /// A `fence.sc`/`acq_rel` makes the thread's next `.relaxed` cluster arrive a release.
    pub fenced: Vec<bool>,
    /// Empty when checking is off.
    shadow: Shadow,
}

impl Race {
    pub(crate) fn new(threads: usize, ctas: usize, shared_bytes: usize, check: bool) -> Race {
        let dims = threads * 2;
        let mut clocks = vec![0u32; threads * dims];
        for t in 0..threads {
            clocks[t * dims + t] = 1;
        }
        Race {
            threads,
            dims,
            width: threads,
            clocks,
            fences: vec![Vec::new(); threads],
            agent_clock: vec![0; threads],
            fenced: vec![false; threads],
            shadow: Shadow { cells: if check { (0..ctas).map(|_| vec![Cell::default(); shared_bytes.div_ceil(4)]).collect() } else { Vec::new() }, ..Shadow::default() },
        }
    }

    pub(crate) fn checking(&self) -> bool {
        !self.shadow.cells.is_empty()
    }

    pub(crate) fn clock(&self, t: u32) -> &[u32] {
        &self.clocks[t as usize * self.dims..(t as usize + 1) * self.dims]
    }

    fn clock_mut(&mut self, t: u32) -> &mut [u32] {
        &mut self.clocks[t as usize * self.dims..(t as usize + 1) * self.dims]
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
        join_into(&mut into[..w], &self.clock(t)[..w]);
        self.clock_mut(t)[t as usize] += 1;
        self.fenced[t as usize] = false;
    }

    /// A copy of `t`'s clock into `into`, then a new epoch of `t`: a release whose clock the
    /// caller keeps.
    pub(crate) fn release_copy(&mut self, t: u32, into: &mut Clock) {
        into.clear();
        into.extend_from_slice(self.clock(t));
        self.clock_mut(t)[t as usize] += 1;
        self.fenced[t as usize] = false;
    }

    /// Acquire: `t` learns everything `from` has seen.
    pub(crate) fn acquire(&mut self, t: u32, from: &[u32]) {
        if from.is_empty() {
            return;
        }
        let (dims, w) = (self.dims, self.width);
        join_into(&mut self.clocks[t as usize * dims..t as usize * dims + w], from);
    }

    /// A snapshot of `t`'s clock with a new event of `t`'s async agent: the clock of an async
    /// operation `t` issues now.
    pub(crate) fn issue_async(&mut self, t: u32) -> (Clock, u32) {
        self.width = self.dims;
        self.agent_clock[t as usize] += 1;
        let c = self.agent_clock[t as usize];
        let mut vc = self.clock(t).to_vec();
        vc[self.threads + t as usize] = c;
        // The thread's later accesses are not ordered before the operation.
        self.clock_mut(t)[t as usize] += 1;
        (vc, c)
    }

    pub(crate) fn fence_proxy_async(&mut self, t: u32) {
        let now = self.now(t);
        self.fences[t as usize].push(now);
    }

    /// A generic-proxy read by thread `t`.
    pub(crate) fn read(&mut self, t: u32, cta: u32, offset: u32, len: u32, pc: u32) -> Result<(), Conflict> {
        let dims = self.dims;
        let seen = &self.clocks[t as usize * dims..(t as usize + 1) * dims];
        let me = Access { who: t, clock: seen[t as usize], pc };
        self.shadow.visit(cta, offset, len, |cell, sets, key| {
            if !sees(seen, cell.write) {
                return Err(Conflict { earlier: cell.write, earlier_write: true, offset: key, missing_fence: false });
            }
            record_read(cell, sets, cta, key, me, seen);
            Ok(())
        })
    }

    /// A generic-proxy write by thread `t`.
    pub(crate) fn write(&mut self, t: u32, cta: u32, offset: u32, len: u32, pc: u32) -> Result<(), Conflict> {
        let dims = self.dims;
        let seen = &self.clocks[t as usize * dims..(t as usize + 1) * dims];
        let me = Access { who: t, clock: seen[t as usize], pc };
        let fences = self.fences[t as usize].len() as u32;
        self.shadow.visit(cta, offset, len, |cell, sets, key| {
            check_write(cell, sets, cta, key, seen)?;
            set_written(cell, sets, cta, key, me, fences);
            Ok(())
        })
    }

    /// A write by the async agent of thread `t` whose operation has clock `vc`.
    pub(crate) fn async_write(&mut self, t: u32, vc: &[u32], cta: u32, offset: u32, len: u32, pc: u32) -> Result<(), Conflict> {
        let who = self.threads as u32 + t;
        let me = Access { who, clock: vc[who as usize], pc };
        self.shadow.visit(cta, offset, len, |cell, sets, key| {
            check_write(cell, sets, cta, key, vc)?;
            set_written(cell, sets, cta, key, me, 0);
            Ok(())
        })
    }

    /// A read by the async agent of thread `t`: generic writes must be ordered before it and
    /// fenced with `fence.proxy.async` by their writer.
    pub(crate) fn async_read(&mut self, t: u32, vc: &[u32], cta: u32, offset: u32, len: u32, pc: u32) -> Result<(), Conflict> {
        let who = self.threads as u32 + t;
        let me = Access { who, clock: vc[who as usize], pc };
        let threads = self.threads;
        let fences = &self.fences;
        self.shadow.visit(cta, offset, len, |cell, sets, key| {
            let w = cell.write;
            if !sees(vc, w) {
                return Err(Conflict { earlier: w, earlier_write: true, offset: key, missing_fence: false });
            }
            // The writer's first fence after the write must be visible to the operation.
            if w.clock != 0 && (w.who as usize) < threads && fences[w.who as usize].get(cell.write_fences as usize).is_none_or(|&f| vc[w.who as usize] < f) {
                return Err(Conflict { earlier: w, earlier_write: true, offset: key, missing_fence: true });
            }
            record_read(cell, sets, cta, key, me, vc);
            Ok(())
        })
    }
}
