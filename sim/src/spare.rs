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

use std::cell::RefCell;

/// Buffers a thread kept: register files and shared memories, each of any size.
#[derive(Default)]
struct Spare {
    regs: Vec<Vec<u64>>,
    shared: Vec<Vec<u8>>,
}

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

/// A zeroed register file of `len` values.
pub(crate) fn regs(len: usize) -> Vec<u64> {
    SPARE
        .try_with(|s| take(&mut s.borrow_mut().regs, len))
        .unwrap_or_else(|_| vec![0; len])
}

/// A zeroed shared memory of `len` bytes.
pub(crate) fn shared(len: usize) -> Vec<u8> {
    SPARE
        .try_with(|s| take(&mut s.borrow_mut().shared, len))
        .unwrap_or_else(|_| vec![0; len])
}

/// Keeps a finished cluster's register files and shared memories for the thread's next cluster.
pub(crate) fn give_back(
    regs: impl Iterator<Item = Vec<u64>>,
    shared: impl Iterator<Item = Vec<u8>>,
) {
    // `try_with`: buffers given back while the thread's locals are torn down are dropped.
    let _ = SPARE.try_with(|s| {
        let mut s = s.borrow_mut();
        for v in regs {
            if s.regs.len() < KEEP {
                s.regs.push(v);
            }
        }
        for v in shared {
            if s.shared.len() < KEEP {
                s.shared.push(v);
            }
        }
    });
}
