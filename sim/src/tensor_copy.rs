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

/// A run of a box's elements ([`TensorCopy::runs`]): shared offset, byte offset in the global
/// buffer (`None` outside the tensor), elements.
pub(crate) type Run = (u32, Option<usize>, u32);

/// The runs of the last box walked, with what they are a function of (the map, the
/// coordinates, the shared address, the global buffer and offset): CUTLASS's epilogue issues
/// each TMA store from every lane of a warp, 32 copies of one box one after another, and the
/// walk of a 128 x 32 box's 512 swizzled chunks was half the cost of completing one.
#[derive(Default)]
pub(crate) struct RunsMemo {
    key: Option<BoxKey>,
    runs: Vec<Run>,
}

/// What a box's runs are a function of: map, coordinates, shared address, global buffer and
/// offset ([`TensorCopy`]'s fields).
type BoxKey = (TensorMap, [i64; 5], u32, Option<(usize, i64)>);

impl RunsMemo {
    /// `copy`'s runs in order, as [`TensorCopy::runs`] gives them.
    pub(crate) fn runs(&mut self, copy: &TensorCopy) -> &[Run] {
        let same = self
            .key
            .as_ref()
            .is_some_and(|(map, coords, smem, global)| {
                (*coords, *smem, *global) == (copy.coords, copy.smem, copy.global)
                    && *map == copy.map
            });
        if !same {
            self.runs.clear();
            copy.runs(|s, g, n| self.runs.push((s, g, n)));
            self.key = Some((copy.map.clone(), copy.coords, copy.smem, copy.global));
        }
        &self.runs
    }
}

impl TensorCopy {
    /// Calls `f(shared offset, byte offset in the global buffer or None when outside the
    /// tensor, elements)` for every run of the box's elements, in shared-memory order: a run
    /// is consecutive elements whose shared bytes follow one another and whose global bytes do
    /// too (or which are all outside the tensor). Copying a run at once is copying its
    /// elements one by one (no two of them share a byte), without an overlay lookup and a
    /// call per element (a TMA copy of CUTLASS's GEMMs moves 2-byte elements, eight to a
    /// 16-byte swizzle chunk). The offsets and bounds of a row (the dimensions above the
    /// first) are computed once per row.
    pub(crate) fn runs(&self, mut f: impl FnMut(u32, Option<usize>, u32)) {
        let m = &self.map;
        let r = m.rank as usize;
        let e = m.dtype.bytes();
        let mut counts = [1u32; 5];
        for (i, c) in counts.iter_mut().enumerate().take(r) {
            *c = m.box_count(i);
        }
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
        let (step0, stride0) = (step(0), stride(0));
        let pitch = m.smem_pitch();
        let mut idx = [0u32; 5];
        let mut row = 0u32;
        loop {
            let mut row_inside = true;
            let mut row_off = 0i64;
            for (i, &k) in idx.iter().enumerate().take(r).skip(1) {
                let c = self.coords[i] + k as i64 * step(i);
                row_inside &= c >= 0 && (c as u64) < m.dims[i];
                row_off += c * stride(i);
            }
            let mut run: Option<(u32, Option<usize>, u32)> = None;
            // Extends the current run by `q` elements at `s` and `global`, or emits it and
            // starts another.
            let mut place = |run: &mut Option<(u32, Option<usize>, u32)>, s, global, q| match run {
                Some((s0, g0, n))
                    if s == *s0 + *n * e
                        && match (*g0, global) {
                            (None, None) => true,
                            (Some(a), Some(b)) => b == a + (*n * e) as usize,
                            _ => false,
                        } =>
                {
                    *n += q
                }
                _ => {
                    if let Some((s0, g0, n)) = *run {
                        f(s0, g0, n);
                    }
                    *run = Some((s, global, q));
                }
            };
            let in_dim0 = |c: i64| row_inside && c >= 0 && (c as u64) < m.dims[0];
            let a0 = self.smem + row * pitch;
            let c0 = self.coords[0];
            let last = c0 + counts[0] as i64 - 1;
            // A row inside the tensor that starts a 16-byte chunk and fills its last one (a
            // GEMM tile's): each chunk is what the loop below makes of it (all its elements
            // inside, consecutive in both memories), placed without the per-element checks.
            if let Some((_, base)) = self.global
                && step0 == 1
                && in_dim0(c0)
                && in_dim0(last)
                && a0.is_multiple_of(16)
                && (counts[0] * e).is_multiple_of(16)
            {
                let g0 = base + row_off + c0 * stride0;
                for j in 0..counts[0] * e / 16 {
                    let global = Some((g0 + 16 * j as i64) as usize);
                    place(&mut run, m.swizzle.apply(a0 + 16 * j), global, 16 / e);
                }
            }
            let mut k = if run.is_some() { counts[0] } else { 0 };
            while k < counts[0] {
                let c = self.coords[0] + k as i64 * step0;
                let inside = in_dim0(c);
                let global = match self.global {
                    Some((_, base)) if inside => Some((base + row_off + c * stride0) as usize),
                    _ => None,
                };
                let a = self.smem + row * pitch + k * e;
                // The elements up to the next 16-byte boundary of the unswizzled address, when
                // consecutive (no element stride) and all inside the tensor or all outside on
                // one side: they are a run of their own, as element by element (a swizzle
                // permutes 16-byte chunks and keeps each in one piece; consecutive coordinates
                // are consecutive global elements), placed at once.
                let room = 16 - a % 16;
                let mut q = if step0 == 1 && room.is_multiple_of(e) {
                    (room / e).min(counts[0] - k)
                } else {
                    1
                };
                let last = c + (q as i64 - 1);
                if q > 1 && (in_dim0(last) != inside || (!inside && (c < 0) != (last < 0))) {
                    q = 1;
                }
                place(&mut run, m.swizzle.apply(a), global, q);
                k += q;
            }
            if let Some((s0, g0, n)) = run {
                f(s0, g0, n);
            }
            // Next row, dimension 1 fastest.
            let mut i = 1;
            loop {
                if i >= r {
                    return;
                }
                idx[i] += 1;
                if idx[i] < counts[i] {
                    break;
                }
                idx[i] = 0;
                i += 1;
            }
            row += 1;
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
        let (pitch, per_row) = (m.smem_pitch(), inner / 16);
        // A dense box (each row right after the previous) from a 128-byte boundary to one, as
        // GEMMs' tiles are: a swizzle changes address bits 4 to 6 only, so it permutes the
        // 16-byte chunks within each 128-byte line, and the chunks are the whole range, each
        // once (what the merge below makes of them), without a start per chunk.
        let total = rows * pitch;
        if per_row * 16 == pitch
            && total > 0
            && self.smem.is_multiple_of(128)
            && total.is_multiple_of(128)
        {
            return vec![(self.smem - SHARED_BASE, total)];
        }
        let mut starts = Vec::with_capacity(rows as usize * per_row as usize);
        for r in 0..rows {
            for j in 0..per_row {
                starts.push(m.swizzle.apply(self.smem + r * pitch + 16 * j));
            }
        }
        let mut runs: Vec<(u32, u32)> = Vec::new();
        let mut merge = |s: u32| match runs.last_mut() {
            Some((a, n)) if *a + *n == s => *n += 16,
            _ => runs.push((s, 16)),
        };
        // The starts in increasing order: counted over their span when they are 16 bytes
        // apart and fill most of it (a swizzle permutes chunks within a box that is laid out
        // densely), else sorted; either way each start is merged as often as it occurs.
        let lo = starts.iter().copied().min().unwrap_or(0);
        let hi = starts.iter().copied().max().unwrap_or(0);
        let span = ((hi - lo) / 16) as usize + 1;
        if span <= 2 * starts.len() && starts.iter().all(|s| (s - lo) % 16 == 0) {
            let mut count = vec![0u32; span];
            for &s in &starts {
                count[((s - lo) / 16) as usize] += 1;
            }
            for (i, &c) in count.iter().enumerate() {
                for _ in 0..c {
                    merge(lo + 16 * i as u32);
                }
            }
        } else {
            starts.sort_unstable();
            for s in starts {
                merge(s);
            }
        }
        runs.into_iter()
            .map(|(a, n)| (a - SHARED_BASE, n))
            .collect()
    }

    /// [`TensorCopy::chunks`] by a sort of every start: the definition it must agree with.
    #[cfg(test)]
    fn chunks_sorted(&self) -> Vec<(u32, u32)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensormap::{Swizzle, TmaDataType};

    /// The box's elements one at a time, every dimension's offset and bound recomputed per
    /// element: the definition [`TensorCopy::runs`] must agree with.
    fn each_element(copy: &TensorCopy) -> Vec<(u32, Option<usize>)> {
        let m = &copy.map;
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
        let mut out = Vec::new();
        let (mut idx, mut row) = ([0u32; 5], 0u32);
        loop {
            let (mut inside, mut off) = (true, 0i64);
            for (i, &k) in idx.iter().enumerate().take(r) {
                let c = copy.coords[i] + k as i64 * step(i);
                inside &= c >= 0 && (c as u64) < m.dims[i];
                off += c * stride(i);
            }
            let global = match copy.global {
                Some((_, base)) if inside => Some((base + off) as usize),
                _ => None,
            };
            out.push((
                m.swizzle
                    .apply(copy.smem + row * m.smem_pitch() + idx[0] * e),
                global,
            ));
            let mut i = 0;
            loop {
                idx[i] += 1;
                if idx[i] < counts[i] {
                    break;
                }
                idx[i] = 0;
                i += 1;
                if i == r {
                    return out;
                }
            }
            if i > 0 {
                row += 1;
            }
        }
    }

    #[test]
    fn runs_are_the_elements_in_order() {
        let maps = [
            (
                TmaDataType::F16,
                vec![256u64, 64, 8],
                vec![512u64, 512 * 64],
                vec![64u32, 16, 2],
            ),
            (TmaDataType::F32, vec![100, 50], vec![400], vec![32, 8]),
            (TmaDataType::U8, vec![300], vec![], vec![128]),
        ];
        let (mut merged, mut whole) = (false, false);
        for (dtype, dims, strides, box_dims) in maps {
            for swizzle in [Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128] {
                for element_strides in [false, true] {
                    let mut map = TensorMap::tiled(dtype, 0, &dims, &strides, &box_dims).unwrap();
                    let Ok(m) = map.clone().with_swizzle(swizzle) else {
                        continue;
                    };
                    map = m;
                    if element_strides {
                        let s: Vec<u32> = (0..dims.len() as u32).map(|i| i + 1).collect();
                        map = map.with_element_strides(&s).unwrap();
                    }
                    // Boxes inside the tensor, across its start and across its end.
                    for (shift, global) in [
                        (0i64, Some((0, 4096))),
                        (-5, Some((0, 64))),
                        (90, None),
                        (90, Some((0, 0))),
                    ] {
                        let mut coords = [0i64; 5];
                        for (i, c) in coords.iter_mut().enumerate().take(dims.len()) {
                            *c = shift * (i as i64 + 1) / 2;
                        }
                        let copy = TensorCopy {
                            map: map.clone(),
                            coords,
                            global,
                            cta: 0,
                            smem: SHARED_BASE + 1024,
                            mbar: None,
                            reduce: None,
                        };
                        let mut got = Vec::new();
                        let mut runs = 0;
                        copy.runs(|s, g, n| {
                            runs += 1;
                            let e = copy.map.dtype.bytes();
                            got.extend(
                                (0..n).map(|j| (s + j * e, g.map(|g| g + (j * e) as usize))),
                            );
                        });
                        let want = each_element(&copy);
                        assert_eq!(got, want, "{dtype:?} {swizzle:?} {element_strides} {shift}");
                        merged |= runs < want.len();
                        // The shared chunks for the race check, at aligned and unaligned
                        // places (the latter sorted).
                        let mut copy = copy;
                        for smem in [SHARED_BASE + 1024, SHARED_BASE + 1032, SHARED_BASE + 48] {
                            copy.smem = smem;
                            let chunks = copy.chunks();
                            assert_eq!(chunks, copy.chunks_sorted(), "{dtype:?} {swizzle:?}");
                            whole |= chunks.len() == 1 && smem % 128 == 0;
                        }
                    }
                }
            }
        }
        assert!(merged, "some elements are copied in runs");
        assert!(whole, "some dense aligned boxes are one range");
    }
}
