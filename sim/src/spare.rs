//! The register files and shared memories of the clusters a worker thread ran, kept for the
//! next cluster it runs.
//!
//! A cluster's warps and CTAs start with zeroed registers and shared memory; each cluster
//! allocated them anew (about 4 MB of registers and 0.2 MB of shared memory per cluster of the
//! CUTLASS cooperative GEMM, 1299 registers × 32 lanes × 12 warps), and freeing and allocating
//! that much per cluster made the allocator return the memory to the system and fault it in
//! again (page faults were about 12 % of that launch's time). The buffers of a finished
//! cluster go back to the thread's pool ([`give_back`]) and the next cluster takes them zeroed
//! ([`regs`], [`shared`]): the same zeroed memory, without the faults.
//!
//! A register file goes back zeroed: only the registers its warp may have written are reset
//! (the slots its executed ops name, [`Program::op_slots`], its special registers and the
//! carry flag), so that the reuse costs what the cluster touched, never the whole file. A
//! warp-specialised kernel's producer warp runs a small part of the program (a CUTLASS GEMM
//! names about 1,300 registers, a third of a megabyte a warp and 8 MB a cluster of the
//! ping-pong GEMM, most of them the consumers' accumulators): resetting whole files cost more
//! than fresh, untouched pages.

use crate::decode::Program;
use std::cell::RefCell;

/// Buffers a thread kept: register files (all zero) and shared memories, each of any size.
#[derive(Default)]
struct Spare {
    regs: Vec<Vec<u64>>,
    shared: Vec<Vec<u8>>,
    /// Per register slot, whether it is in `slots` (scratch of [`written`], all false
    /// between calls).
    marked: Vec<bool>,
    slots: Vec<u32>,
    /// The registers warps that ran the same ops may have written, as worked out last
    /// ([`written`]): the warps of a cluster, and of the next clusters, mostly run the same
    /// ops (all of a Triton kernel's warps, a warp-specialised kernel's consumers), and
    /// working the slots out costs more than resetting them.
    memo: Vec<Written>,
}

/// The registers that may be other than zero in the file of a warp that ran the ops `ran` of
/// program `prog` ([`crate::decode::Program::id`]): the runs `[from, to)` of their slots.
struct Written {
    prog: u64,
    ran: Vec<u64>,
    runs: Vec<(u32, u32)>,
}

/// How many [`Written`] a thread remembers.
const MEMO: usize = 8;

/// More than any cluster has (32 CTAs of 32 warps): the pool never grows past one cluster's
/// buffers plus this bound.
const KEEP: usize = 1024;

thread_local! {
    static SPARE: RefCell<Spare> = RefCell::new(Spare::default());
}

/// A zeroed vector of `len` elements: one of `pool`'s if it has one, else a new one.
fn take<T: Copy + Default>(pool: &mut Vec<Vec<T>>, len: usize) -> Vec<T> {
    match pool.pop() {
        Some(mut v) => {
            v.clear();
            v.resize(len, T::default());
            v
        }
        None => vec![T::default(); len],
    }
}

/// A zeroed register file of `len` values: a kept one (all zero already, so only a longer
/// file's new values are written) or a new one.
pub(crate) fn regs(len: usize) -> Vec<u64> {
    SPARE
        .try_with(|s| match s.borrow_mut().regs.pop() {
            Some(mut v) => {
                v.resize(len, 0);
                v
            }
            None => vec![0; len],
        })
        .unwrap_or_else(|_| vec![0; len])
}

/// A zeroed shared memory of `len` bytes.
pub(crate) fn shared(len: usize) -> Vec<u8> {
    SPARE
        .try_with(|s| take(&mut s.borrow_mut().shared, len))
        .unwrap_or_else(|_| vec![0; len])
}

/// Keeps a finished cluster's register files and shared memories for the thread's next
/// cluster: `regs` gives each warp's file and the bits of the ops it ran ([`Warp::ran`]); a
/// file is kept with the registers those ops name reset to zero.
///
/// [`Warp::ran`]: crate::machine::Warp::ran
pub(crate) fn give_back(
    prog: &Program,
    regs: impl Iterator<Item = (Vec<u64>, Vec<u64>)>,
    shared: impl Iterator<Item = Vec<u8>>,
) {
    // `try_with`: buffers given back while the thread's locals are torn down are dropped.
    let _ = SPARE.try_with(|s| {
        let s = &mut *s.borrow_mut();
        for (mut file, ran) in regs {
            if s.regs.len() >= KEEP {
                continue;
            }
            let nregs = file.len() / 32;
            let i = match s
                .memo
                .iter()
                .position(|m| m.prog == prog.id && m.ran == ran)
            {
                Some(i) => i,
                None => {
                    let runs = written(prog, nregs, &ran, &mut s.marked, &mut s.slots);
                    if s.memo.len() == MEMO {
                        s.memo.remove(0);
                    }
                    s.memo.push(Written {
                        prog: prog.id,
                        ran,
                        runs,
                    });
                    s.memo.len() - 1
                }
            };
            for &(from, to) in &s.memo[i].runs {
                file[from as usize * 32..to as usize * 32].fill(0);
            }
            // Every register a warp writes is named by an op it ran: checked in the test builds.
            debug_assert!(
                file.iter().all(|&v| v == 0),
                "a register written by no op the warp ran: {:?}",
                file.iter()
                    .position(|&v| v != 0)
                    .map(|i| &prog.reg_names[i / 32])
            );
            s.regs.push(file);
        }
        for v in shared {
            if s.shared.len() < KEEP {
                s.shared.push(v);
            }
        }
    });
}

/// The registers of an `nregs`-register file that a warp that ran the ops of `ran` may have
/// written, as runs `[from, to)` of slots: the slots those ops name, the special registers
/// (written when the warp was built) and the carry flag; the whole file when they are most of
/// it (one fill is faster than many). `marked` and `slots` are scratch, `marked` all false on
/// entry and on return.
fn written(
    prog: &Program,
    nregs: usize,
    ran: &[u64],
    marked: &mut Vec<bool>,
    slots: &mut Vec<u32>,
) -> Vec<(u32, u32)> {
    if marked.len() < nregs {
        marked.resize(nregs, false);
    }
    slots.clear();
    let mut mark = |slot: u32| {
        if (slot as usize) < nregs && !marked[slot as usize] {
            marked[slot as usize] = true;
            slots.push(slot);
        }
    };
    for &(_, slot) in &prog.sregs {
        mark(slot);
    }
    mark(prog.carry);
    for (i, &word) in ran.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let pc = i * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            for &slot in prog.op_slots(pc) {
                mark(slot);
            }
        }
    }
    for &slot in slots.iter() {
        marked[slot as usize] = false;
    }
    if slots.len() * 4 >= nregs * 3 {
        return vec![(0, nregs as u32)];
    }
    slots.sort_unstable();
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &slot in slots.iter() {
        match runs.last_mut() {
            Some((_, to)) if *to == slot => *to += 1,
            _ => runs.push((slot, slot + 1)),
        }
    }
    runs
}
