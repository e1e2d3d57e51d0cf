//! The box one tensor copy moves (PTX ISA §5.5.3): its elements in shared-memory order with
//! their places in the global tensor, and the shared-memory ranges it covers. A data type of
//! the async-operation queue (`async_copy`); `exec::tma` issues and completes the copies.

use crate::decode::AtomOp;
use crate::memory::SHARED_BASE;
use crate::tensormap::{Interleave, TensorMap};

/// One tensor copy in flight (`AsyncKind::Tensor`).
#[derive(Clone, Debug)]
pub(crate) struct TensorCopy {
    pub map: TensorMap,
    pub coords: [i64; 5],
    /// The global buffer holding the tensor and the byte offset of the map's address in it;
    /// `None` when no element of the box is inside the tensor.
    pub global: Option<(usize, i64)>,
    /// The CTA and the offset (from the window's start, [`SHARED_BASE`] included) of the box
    /// in shared memory.
    pub cta: u32,
    pub smem: u32,
    /// A load's mbarrier (CTA, offset); `None` for stores.
    pub mbar: Option<(u32, u32)>,
    pub reduce: Option<AtomOp>,
}

impl TensorCopy {
    /// Calls `f(shared offset, byte offset in the global buffer or None when outside the
    /// tensor)` for every element of the box, in shared-memory order.
    pub(crate) fn each(&self, mut f: impl FnMut(u32, Option<usize>)) {
        let m = &self.map;
        let r = m.rank as usize;
        let e = m.dtype.bytes();
        let counts: Vec<u32> = (0..r).map(|i| m.box_count(i)).collect();
        let step = |i: usize| {
            if i == 0 && m.interleave == Interleave::None {
                1
            } else {
                m.element_strides[i] as i64
            }
        };
        let stride = |i: usize| {
            if i == 0 {
                e as i64
            } else {
                m.strides[i - 1] as i64
            }
        };
        let pitch = m.smem_pitch();
        let mut idx = [0u32; 5];
        let mut row = 0u32;
        loop {
            let mut inside = true;
            let mut off = 0i64;
            for (i, &k) in idx.iter().enumerate().take(r) {
                let c = self.coords[i] + k as i64 * step(i);
                inside &= c >= 0 && (c as u64) < m.dims[i];
                off += c * stride(i);
            }
            let global = match self.global {
                Some((_, base)) if inside => Some((base + off) as usize),
                _ => None,
            };
            let unswizzled = self.smem + row * pitch + idx[0] * e;
            f(m.swizzle.apply(unswizzled), global);
            // Next element, dimension 0 fastest.
            let mut i = 0;
            loop {
                idx[i] += 1;
                if idx[i] < counts[i] {
                    break;
                }
                idx[i] = 0;
                i += 1;
                if i == r {
                    return;
                }
            }
            if i > 0 {
                row += 1;
            }
        }
    }

    /// The shared-memory byte ranges the box covers (16-byte chunks, merged), for the race
    /// check; offsets from [`SHARED_BASE`].
    pub(crate) fn chunks(&self) -> Vec<(u32, u32)> {
        let m = &self.map;
        let inner = m.box_count(0) * m.dtype.bytes();
        let rows = (1..m.rank as usize)
            .map(|i| m.box_count(i))
            .product::<u32>();
        let mut starts: Vec<u32> = (0..rows)
            .flat_map(|r| (0..inner / 16).map(move |j| (r, j)))
            .map(|(r, j)| m.swizzle.apply(self.smem + r * m.smem_pitch() + 16 * j))
            .collect();
        starts.sort_unstable();
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for s in starts {
            match runs.last_mut() {
                Some((a, n)) if *a + *n == s => *n += 16,
                _ => runs.push((s, 16)),
            }
        }
        runs.into_iter()
            .map(|(a, n)| (a - SHARED_BASE, n))
            .collect()
    }
}
