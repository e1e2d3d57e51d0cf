//! The tensor-core state of the cluster in flight: each warp's wgmma operations issued and not
//! yet complete, which registers they hold, and each warpgroup's log of issued wgmma (kept as
//! data here, so `machine` owns it without naming the instructions in `exec::tensor`).

use crate::decode::{Elem, Src};
use crate::race::Clock;
use std::collections::{HashMap, VecDeque};

/// How a pending `wgmma.mma_async` uses a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Accumulator,
    A,
}

/// A `wgmma.mma_async` issued and not yet complete.
#[derive(Clone, Debug)]
pub(crate) struct Pending {
    pub(crate) pc: u32,
    /// (n, k, dtype, atype, btype): accumulator accesses across wgmma of one shape are ordered.
    pub(crate) shape: (u32, u32, Elem, Elem, Elem),
    pub(crate) d: Vec<u32>,
    pub(crate) a_regs: Vec<u32>,
    /// The result: `d.len()` rows of 32 lanes.
    pub(crate) values: Vec<u64>,
    /// For f32 accumulators, the tile `values` were rounded from (row-major, `n` columns):
    /// the next `wgmma` of a chain on the same registers takes its accumulators from it
    /// ([`WarpMma::chained`]) instead of from `values`' lanes. Empty when not kept.
    pub(crate) tile: Vec<f64>,
    pub(crate) vc: Clock,
    /// Its index among its warpgroup's wgmma.mma_async ([`WarpgroupLog`]); `None` once the
    /// log gave up.
    pub(crate) seq: Option<u64>,
}

/// The wgmma state of one warp.
#[derive(Default)]
pub(crate) struct WarpMma {
    /// The warp executed a `wgmma.fence`: its register accesses are tracked from then on.
    pub(crate) fenced: bool,
    /// Registers accessed by other instructions since the last `wgmma.fence` (a bit per slot).
    pub(crate) touched: Vec<u64>,
    pub(crate) open: Vec<Pending>,
    pub(crate) groups: VecDeque<Vec<Pending>>,
    /// Registers of pending operations: the role and the op's program counter, by register
    /// slot (a flat table: the executing loop looks up every register of every op of a warp
    /// with a fence).
    in_flight: Vec<Option<(Role, u32)>>,
    /// The slots set in `in_flight`.
    in_flight_regs: Vec<u32>,
}

/// Marks the registers of pending operation `p` in `in_flight` (after those of the operations
/// before it): its accumulators take a register over, its A operand keeps a register's first
/// role; `in_flight_regs` lists the slots marked.
#[inline]
fn mark(in_flight: &mut Vec<Option<(Role, u32)>>, in_flight_regs: &mut Vec<u32>, p: &Pending) {
    let mut set = |r: u32, entry: (Role, u32), overwrite: bool| {
        let i = r as usize;
        if in_flight.len() <= i {
            in_flight.resize(i + 1, None);
        }
        if in_flight[i].is_none() {
            in_flight_regs.push(r);
            in_flight[i] = Some(entry);
        } else if overwrite {
            in_flight[i] = Some(entry);
        }
    };
    for &r in &p.d {
        set(r, (Role::Accumulator, p.pc), true);
    }
    for &r in &p.a_regs {
        set(r, (Role::A, p.pc), false);
    }
}

impl WarpMma {
    pub(crate) fn pending(&self) -> impl Iterator<Item = &Pending> {
        self.groups.iter().flatten().chain(self.open.iter())
    }
    /// The role of register `r` in a pending operation, and the operation's program counter.
    #[inline]
    pub(crate) fn in_flight(&self, r: u32) -> Option<(Role, u32)> {
        self.in_flight.get(r as usize).copied().flatten()
    }
    pub(crate) fn rebuild(&mut self) {
        let WarpMma {
            groups,
            open,
            in_flight,
            in_flight_regs,
            ..
        } = self;
        for r in in_flight_regs.drain(..) {
            in_flight[r as usize] = None;
        }
        // A later op's accumulator takes a register over; an A operand keeps the first role.
        for p in groups.iter().flatten().chain(open.iter()) {
            mark(in_flight, in_flight_regs, p);
        }
    }

    /// Appends `p` to the open operations and marks its registers (`pushed_marks_are_a_rebuilds`
    /// checks it against a rebuild): what [`WarpMma::rebuild`]
    /// then gives, since the marks are a fold over the pending operations in order (groups,
    /// then open ones), `p` the last, and the table holds the fold over those before it (every
    /// change of the pending operations but this and a commit, which keeps their order, is
    /// followed by a rebuild). A rebuild walked every pending operation's registers at each
    /// `wgmma` (a chain's dozens, 64 to 128 registers each): 1 % of a `wgmma` kernel.
    pub(crate) fn push_open(&mut self, p: Pending) {
        self.open.push(p);
        let WarpMma {
            open,
            in_flight,
            in_flight_regs,
            ..
        } = self;
        if let Some(p) = open.last() {
            mark(in_flight, in_flight_regs, p);
        }
    }

    /// The marked registers and their roles, in slot order (for the test of `push_open`).
    #[cfg(test)]
    fn table(&self) -> Vec<(usize, (Role, u32))> {
        self.in_flight
            .iter()
            .enumerate()
            .filter_map(|(r, e)| e.map(|e| (r, e)))
            .collect()
    }

    /// The values an op issued now reads from accumulator register `r` (32 lanes): the newest
    /// pending result for it, if any.
    pub(crate) fn pending_values(&self, r: u32) -> Option<&[u64]> {
        fn newest(ops: &[Pending], r: u32) -> Option<&[u64]> {
            ops.iter().rev().find_map(|p| {
                p.d.iter()
                    .position(|&x| x == r)
                    .map(|i| &p.values[i * 32..i * 32 + 32])
            })
        }
        newest(&self.open, r).or_else(|| self.groups.iter().rev().find_map(|g| newest(g, r)))
    }
    /// [`WarpMma::pending_values`] of each register of `d`, in order. When the newest pending
    /// op accumulates into the same registers (consecutive `wgmma` of a k loop) and they are
    /// distinct (in increasing order as Triton numbers them, decreasing as nvcc does for
    /// CUTLASS, or any order), each register's newest result is in it at the same place: one
    /// pass instead of a search of every pending op's registers for each register.
    pub(crate) fn pending_values_of<'a>(&'a self, d: &[u32]) -> Vec<Option<&'a [u64]>> {
        if let Some(p) = self.chained(d) {
            return (0..d.len())
                .map(|j| Some(&p.values[j * 32..j * 32 + 32]))
                .collect();
        }
        d.iter().map(|&r| self.pending_values(r)).collect()
    }
    /// The newest pending op when it accumulates into the distinct registers `d` (the k loop
    /// of a chain): every register of `d` then reads its result ([`Self::pending_values_of`]).
    pub(crate) fn chained(&self, d: &[u32]) -> Option<&Pending> {
        let newest = self
            .open
            .last()
            .or_else(|| self.groups.iter().rev().find_map(|g| g.last()));
        newest.filter(|p| p.d == d && distinct(d))
    }
    pub(crate) fn touch(&mut self, r: u32) {
        let (i, b) = (r as usize / 64, r % 64);
        if i >= self.touched.len() {
            self.touched.resize(i + 1, 0);
        }
        self.touched[i] |= 1 << b;
    }
    pub(crate) fn touched(&self, r: u32) -> bool {
        self.touched
            .get(r as usize / 64)
            .is_some_and(|w| w >> (r % 64) & 1 == 1)
    }
}

/// Tensor-core state of the cluster in flight.
#[derive(Default)]
pub(crate) struct TensorState {
    /// Some warp executed `wgmma.fence`: the executing loop reports register accesses.
    pub active: bool,
    pub(crate) warps: Vec<WarpMma>,
    /// The registers each op accesses, by program counter, computed when first needed.
    pub(crate) regs_of: Vec<Option<Box<[u32]>>>,
    /// Per warpgroup (CTA rank, warpgroup index): the wgmma.mma_async its warps issued.
    pub(crate) warpgroups: HashMap<(u32, u32), WarpgroupLog>,
    /// The C matrix of an `mma.sync`, kept between MMAs for its allocation (an allocation
    /// per matrix per MMA was 5 % of the `mma.sync` matmul's host instructions; A and B are
    /// kept in `frag_memo`).
    pub(crate) scratch: Vec<f64>,
    /// The A and B matrices of the last `mma.sync` fragments gathered, with the registers
    /// they came from ([`FragMemo`]).
    pub(crate) frag_memo: [FragMemo; 2],
    /// The same for `wgmma.mma_async`.
    pub(crate) wgmma_scratch: WgmmaScratch,
    /// Result vectors of completed `wgmma.mma_async`, for the next ones' results.
    pub(crate) spare_values: Vec<Vec<u64>>,
    /// Their tiles ([`Pending::tile`]), likewise.
    pub(crate) spare_tiles: Vec<Vec<f64>>,
}

/// A `wgmma.mma_async`'s matrices and its operands' chunk lists, kept between operations for
/// their allocations: a fresh zeroed matrix per operand and output tile (32 KB each for
/// m64n256k16) was 8 % of the wgmma matmul's host instructions.
#[derive(Default)]
pub(crate) struct WgmmaScratch {
    /// A (the warp's 16 rows by k, f32) as read, and as `exec::mac::accumulate` reads it
    /// (signed, each element twice).
    pub(crate) a: Vec<f32>,
    pub(crate) a2: Vec<f32>,
    /// B in `accumulate`'s panels (f32).
    pub(crate) b: Vec<f32>,
    pub(crate) d: Vec<f64>,
    pub(crate) operand: OperandScratch,
    /// The B matrices decoded last, with what they were decoded from.
    pub(crate) b_memo: OperandMemo,
    /// Where the last B operands' chunks lie, with their race checks' needs.
    pub(crate) b_places: OperandPlaces,
}

/// Where the last [`PLACED_OPERANDS`] `wgmma` B operands read from shared memory lie, chunk
/// by chunk, each with what a reader of its chunks must have seen for their race checks to
/// pass ([`crate::race::ChunkNeed`]). The four warps of a warpgroup read the same B one after
/// the other (and a cooperative kernel's warpgroups the same B again); each found its
/// chunks' places (a descriptor's divisions and a bounds test a chunk) and checked every
/// chunk's write, each time, for the same answers. Kept here, with the needs, the `wgmma`
/// matmul 256³ went from 241.13 to 215.95 host instructions per thread-instruction (its
/// `wgmma_operand` 41.6 M → 25.3 M), the `wgmma` attention from 120.55 to 111.66, CUTLASS's
/// cooperative GEMM from 174.55 to 166.76 (the book's seventeenth round).
#[derive(Default)]
pub(crate) struct OperandPlaces {
    pub(crate) entries: Vec<Placed>,
    /// The entry new places replace next.
    pub(crate) next: usize,
}

/// How many operands an [`OperandPlaces`] keeps: a warpgroup's B, and the other
/// warpgroups' while the warps of two interleave.
pub(crate) const PLACED_OPERANDS: usize = 4;

/// What places a B operand's chunks: the descriptor's fields (start, leading and stride
/// byte offsets, base offset, swizzle), the element type, the mn range, k, MN-major, the
/// reading CTA, and its mbarrier slots' [`crate::machine::Cta::mbar_epoch`] (a chunk on an
/// mbarrier is not a plain shared read).
pub(crate) type PlacesKey = ([u32; 5], Elem, (u32, u32), u32, bool, u32, u64);

/// One operand's chunks (`(mn, k)` of each chunk's first element) and where each lies:
/// `(CTA, offset, 16)`, every one in the reading CTA's shared memory, 16-byte aligned, on no
/// mbarrier (only such operands are kept).
#[derive(Default)]
pub(crate) struct Placed {
    pub(crate) key: Option<PlacesKey>,
    pub(crate) chunks: Vec<(u32, u32)>,
    pub(crate) at: Vec<(u32, u32, u32)>,
    pub(crate) needs: Vec<crate::race::ChunkNeed>,
}

/// Which matrix of an MMA a register fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Fragment {
    A,
    B,
    C,
}

/// The last [`MEMO_FRAGMENTS`] matrices an operand of `mma.sync` was gathered into, each with
/// the registers and values it came from (`Machine::gather_memo`).
#[derive(Default)]
pub(crate) struct FragMemo {
    pub(crate) entries: Vec<FragEntry>,
    /// The entry a new matrix replaces next.
    pub(crate) next: usize,
}

/// How many matrices a [`FragMemo`] keeps.
pub(crate) const MEMO_FRAGMENTS: usize = 4;

/// What a [`FragEntry`]'s matrix is: the element type, the matrix's dimensions and the
/// fragment's shape.
type FragKey = (Elem, (usize, usize), (Fragment, u32));

/// A gathered fragment matrix and what it was gathered from.
#[derive(Default)]
pub(crate) struct FragEntry {
    pub(crate) key: Option<FragKey>,
    pub(crate) srcs: Vec<Src>,
    /// Each register's 32 lanes (zeros for an immediate), in `srcs` order.
    pub(crate) values: Vec<u64>,
    /// In the layout `exec::mac::accumulate` reads (f32, A's elements twice).
    pub(crate) matrix: Vec<f32>,
}

/// The last [`MEMO_OPERANDS`] operand matrices a cluster's `wgmma` decoded from shared memory,
/// each with the operand it came from: a warpgroup's four warps (and a cooperative kernel's
/// warpgroups) read the same B, each warp its k steps in turn, so a warp whose operand is
/// one of these, byte for byte in the same places, takes its matrix as decoded.
#[derive(Default)]
pub(crate) struct OperandMemo {
    pub(crate) entries: Vec<Decoded>,
    /// The entry a new matrix replaces next.
    pub(crate) next: usize,
}

/// How many matrices an [`OperandMemo`] keeps.
pub(crate) const MEMO_OPERANDS: usize = 8;

/// A decoded operand matrix and the operand it came from.
#[derive(Default)]
pub(crate) struct Decoded {
    /// (element type, rows, k, first mn, MN-major, k rows): with `at`, where each element of
    /// `matrix` came from.
    pub(crate) key: Option<(Elem, usize, u32, u32, bool, bool)>,
    pub(crate) at: Vec<(u32, u32, u32)>,
    /// The 16 bytes of each chunk of `at`, in order.
    pub(crate) bytes: Vec<u8>,
    /// As `wgmma_operand` decoded it (f32, in the layout `accumulate` reads).
    pub(crate) matrix: Vec<f32>,
}

/// The 16-byte chunks of one shared-memory operand and where each lies.
#[derive(Default)]
pub(crate) struct OperandScratch {
    pub(crate) chunks: Vec<(u32, u32)>,
    pub(crate) at: Vec<(u32, u32, u32)>,
}

/// What one warpgroup's wgmma.mma_async were, in issue order: each warp's k-th must be the
/// others' k-th (the same instruction, descriptors and scale-d: §9.7.15.5.2 "the contents of a
/// matrix descriptor must be same across all the warps in the warpgroup").
///
/// The k-th is one operation of the warpgroup: it starts once all four warps have issued it,
/// so a `wgmma.wait_group` that sees it complete, in any of the warps, comes after each warp's
/// issue of it. The entry keeps the join of the four issuing clocks for those waits.
#[derive(Default)]
pub(crate) struct WarpgroupLog {
    /// The number of entries dropped from the front (all four warps issued and waited past them).
    pub(crate) base: u64,
    pub(crate) entries: VecDeque<WarpgroupEntry>,
    /// How many each warp of the warpgroup issued.
    pub(crate) counts: [u64; 4],
    /// How many of them each warp's `wgmma.wait_group` completed.
    pub(crate) waited: [u64; 4],
    /// Some warp ran 65536 wgmma ahead of another: no more checks for this warpgroup.
    pub(crate) given_up: bool,
}

/// One wgmma.mma_async of a warpgroup.
pub(crate) struct WarpgroupEntry {
    pub(crate) pc: u32,
    pub(crate) a_desc: Option<u64>,
    pub(crate) b_desc: u64,
    pub(crate) scale_d: bool,
    /// The warp that issued it first.
    pub(crate) first: usize,
    /// The join of the issuing warps' clocks so far.
    pub(crate) vc: Clock,
}

impl WarpgroupLog {
    /// The entry of the `seq`-th operation once all four warps issued it, `None` before then.
    pub(crate) fn issued_by_all(&self, seq: u64) -> Option<&WarpgroupEntry> {
        if self.counts.iter().any(|&c| c <= seq) {
            return None;
        }
        seq.checked_sub(self.base)
            .and_then(|i| self.entries.get(i as usize))
    }

    /// Drops the entries every warp issued and waited past.
    pub(crate) fn trim(&mut self) {
        let done = (0..4)
            .map(|q| self.counts[q].min(self.waited[q]))
            .min()
            .expect("four warps");
        while self.base < done && !self.entries.is_empty() {
            self.entries.pop_front();
            self.base += 1;
        }
    }
}

/// Whether no register occurs twice in `d`.
fn distinct(d: &[u32]) -> bool {
    if d.windows(2).all(|w| w[0] < w[1]) || d.windows(2).all(|w| w[0] > w[1]) {
        return true;
    }
    let mut sorted = d.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).all(|w| w[0] != w[1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(d: &[u32], seed: u64) -> Pending {
        Pending {
            pc: 0,
            shape: (8, 16, Elem::F32, Elem::Bf16, Elem::Bf16),
            d: d.to_vec(),
            a_regs: Vec::new(),
            values: (0..d.len() as u64 * 32).map(|i| i * 7 + seed).collect(),
            tile: Vec::new(),
            vc: Vec::new(),
            seq: None,
        }
    }

    /// Pushing an operation marks its registers as a rebuild of all pending operations does:
    /// random pushes (accumulators and A registers from a few slots, so that they overlap),
    /// commits and waits for the oldest group, against a state rebuilt after each push.
    #[test]
    fn pushed_marks_are_a_rebuilds() {
        let mut rng = crate::rng::Rng::new(23);
        let (mut pushed, mut rebuilt) = (WarpMma::default(), WarpMma::default());
        let mut overlaps = 0;
        for step in 0..20_000u32 {
            match rng.below(8) {
                0 | 1 => {
                    for st in [&mut pushed, &mut rebuilt] {
                        let open = std::mem::take(&mut st.open);
                        st.groups.push_back(open);
                    }
                }
                2 => {
                    for st in [&mut pushed, &mut rebuilt] {
                        st.groups.pop_front();
                        st.rebuild();
                    }
                }
                _ => {
                    let regs = |rng: &mut crate::rng::Rng| -> Vec<u32> {
                        (0..rng.below(5)).map(|_| rng.below(12) as u32).collect()
                    };
                    let mut p = pending(&regs(&mut rng), 0);
                    p.a_regs = regs(&mut rng);
                    p.pc = step;
                    overlaps +=
                        p.d.iter()
                            .chain(&p.a_regs)
                            .any(|&r| pushed.in_flight(r).is_some()) as u32;
                    pushed.push_open(p.clone());
                    rebuilt.open.push(p);
                    rebuilt.rebuild();
                }
            }
            assert_eq!(pushed.table(), rebuilt.table(), "step {step}");
        }
        assert!(overlaps > 1000, "pushes onto marked registers: {overlaps}");
    }

    /// The one-pass lookup gives each register's newest result, as the search per register
    /// does, for registers in any order, and searches when one occurs twice.
    #[test]
    fn pending_values_of_agrees_with_the_search_per_register() {
        let orders: [&[u32]; 4] = [&[3, 4, 5, 6], &[9, 8, 7, 6], &[5, 9, 6, 8], &[4, 7, 4, 8]];
        for d in orders {
            for older in [&[6u32, 7, 8, 9][..], &[1, 2]] {
                let mut st = WarpMma::default();
                st.groups.push_back(vec![pending(older, 1)]);
                st.open.push(pending(d, 1000));
                let fast = st.pending_values_of(d);
                let slow: Vec<Option<&[u64]>> = d.iter().map(|&r| st.pending_values(r)).collect();
                assert_eq!(fast, slow, "{d:?} after {older:?}");
            }
        }
        assert!(distinct(&[9, 8, 7]) && distinct(&[5, 9, 6]) && !distinct(&[4, 7, 4]));
    }
}
