//! The multiply-accumulate core of the tensor-core instructions (`mma.sync`, `wgmma`).
//!
//! Each output is its initial value plus the products of its row of A and column of B, added
//! in k order in f64 (`tensor`'s module docs). Computed one output at a time, that is a chain
//! of dependent additions per output; here a row's outputs are computed a panel of columns at
//! a time, k step by k step, so one k step's products over the panel are independent of each
//! other (the compiler keeps the panel's sums in vector registers) while every output still
//! sees exactly the same additions and multiplications in the same order, hence the same bits.
//!
//! The operands are kept as f32, widened to f64 as they are read (one `cvtps2pd` per two
//! elements, which loads them too): every operand type (f16, bf16, tf32, e4m3, e5m2, s8, u8)
//! is exact in f32, and so is every value its decoding gives, the canonical NaN included, so
//! the widened operand is the f64 the sum used before, bit for bit.
//!
//! Which NaN a sum ends with is spelled out ([`chain`]) rather than left to the compiler's
//! choice of operand order: a sum that is NaN keeps its NaN, and a product of two NaNs is B's
//! (what the f64 loops before this layout computed, compiled as they were: `addpd` into the
//! sum, `mulpd` into B's element). The blocked loop's outputs that end NaN are computed again
//! one by one by that rule; the others cannot depend on the order (an addition with one NaN
//! operand gives that NaN, and an invalid one the default NaN, either way round).
//!
//! An f32 is half the bytes
//! of an f64 to decode into and to read, and A holds each element twice, so that a k step's
//! element of A is one widening away from a pair of f64 to multiply two outputs by. B is laid
//! out in panels of [`PANEL`] columns, each panel's k rows one after another ([`b_index`]):
//! the k loop reads both operands front to back, with no index arithmetic or bounds checks.

/// Columns per panel of B: the outputs [`accumulate`] keeps in registers across the k loop
/// (eight SSE2 registers of two f64; 24 columns would leave too few for the operands).
pub(crate) const PANEL: usize = 16;

/// Where B's element (`c`, `kk`) of an operand with `k` rows of `n` columns lies in
/// [`accumulate`]'s panel layout: panel `c / PANEL` holds its columns' k rows, each as wide as
/// the panel (the last panel `n % PANEL` wide when that is not 0).
#[inline(always)]
pub(crate) fn b_index(c: usize, kk: usize, k: usize, n: usize) -> usize {
    let p = c / PANEL;
    let width = PANEL.min(n - p * PANEL);
    p * PANEL * k + kk * width + c % PANEL
}

/// `d[r][c] = d[r][c] + a[r][kk] * b[kk][c]` for `kk` = 0, 1, ..., `k - 1` in that order,
/// for the row-major tile `d` (`rows x n`), `a2` (`rows x k`, each element twice in a row:
/// `a2[2 * (r * k + kk)]` and the one after it) and `b` (`k x n`, in panels: [`b_index`]).
///
/// On a CPU with AVX2 the sums are four-wide ([`wide::accumulate`]); elsewhere two-wide
/// ([`accumulate_sse2`], the portable loops). Both give the same bits (the module's docs).
#[inline(always)]
pub(crate) fn accumulate(d: &mut [f64], a2: &[f32], b: &[f32], k: usize, n: usize) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: `wide::accumulate` is compiled for AVX2 and nothing more, and the CPU was
        // just found to have it (the check is a cached load after its first time).
        unsafe { wide::accumulate(d, a2, b, k, n) };
        return;
    }
    accumulate_sse2(d, a2, b, k, n);
}

/// [`accumulate`] with two-wide sums: what any x86-64 CPU runs (SSE2), and the code for other
/// targets as the compiler makes it.
#[inline(always)]
pub(crate) fn accumulate_sse2(d: &mut [f64], a2: &[f32], b: &[f32], k: usize, n: usize) {
    debug_assert_eq!(b.len(), k * n);
    debug_assert_eq!(a2.len() * n, 2 * k * d.len());
    if n == 8 {
        // `mma.sync`'s tile, one panel of 8 columns, two rows at a time: eight independent
        // two-wide sums, where one row's four each waited on its last addition every k step.
        let panel = b.as_chunks::<8>().0;
        let mut rows = d.as_chunks_mut::<8>().0.iter_mut();
        let mut a_rows = a2.chunks_exact(2 * k).map(|r| r.as_chunks::<2>().0);
        while let (Some(out), Some(a_row)) = (rows.next(), a_rows.next()) {
            match (rows.next(), a_rows.next()) {
                (Some(out1), Some(a_row1)) => row_pair_sums([out, out1], [a_row, a_row1], panel),
                _ => panel_sums(out, a_row, panel),
            }
        }
        return;
    }
    for (d_row, a_row) in d.chunks_exact_mut(n).zip(a2.chunks_exact(2 * k)) {
        let (a_row, _) = a_row.as_chunks::<2>();
        let mut panels = b.chunks(PANEL * k);
        let (whole, tail) = d_row.as_chunks_mut::<PANEL>();
        for (out, panel) in whole.iter_mut().zip(&mut panels) {
            panel_sums(out, a_row, panel.as_chunks::<PANEL>().0);
        }
        let Some(panel) = panels.next() else { continue };
        if let Ok(out) = <&mut [f64; 8]>::try_from(&mut *tail) {
            // n an odd multiple of 8 (every shape is a multiple of 8: `mma.sync`'s 8 columns).
            panel_sums(out, a_row, panel.as_chunks::<8>().0);
        } else {
            let width = tail.len();
            for (c, out) in tail.iter_mut().enumerate() {
                *out = chain(*out, a_row, panel.chunks_exact(width).map(|y| y[c]));
            }
        }
    }
}

/// [`accumulate`] four-wide: the sums of [`accumulate_sse2`] in another blocking, written
/// with AVX intrinsics (256-bit registers: four f64 a vector where SSE2 holds two) and chosen
/// at run time, where the CPU has AVX2.
///
/// Each output's sum is still its own chain of additions in k order, one product (exact in
/// f64) at a time: only which outputs share a vector changes, and with it how many
/// instructions a k step takes. A k step widens one row of a panel of B once
/// (`vcvtps2pd`) for several rows of A, and broadcasts one element of A per row: two rows of
/// a 16-column panel (eight vectors of sums, four of B's row, two of A's elements: 14 of the
/// 16 registers), or four rows of `mma.sync`'s 8 columns. (AVX2 CPUs have FMA, but a
/// product of two f32 values is exact in f64, so a fused multiply-add would round as the
/// addition does: it is not enabled, as it would save no rounding and the compiler does not
/// contract `s + x * y` on its own.)
#[cfg(target_arch = "x86_64")]
mod wide {
    use super::{PANEL, chain, settle_nans};
    use std::arch::x86_64::*;

    /// [`super::accumulate`] for AVX2 CPUs: to be called only where the CPU has AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn accumulate(d: &mut [f64], a2: &[f32], b: &[f32], k: usize, n: usize) {
        debug_assert_eq!(b.len(), k * n);
        debug_assert_eq!(a2.len() * n, 2 * k * d.len());
        if n == 0 || k == 0 {
            return;
        }
        if n == 8 {
            // `mma.sync`'s tile: four rows of 8 columns at a time (eight vectors of sums).
            let (blocks, rest) = d.as_chunks_mut::<32>();
            let (a_blocks, a_rest) = a2.split_at(blocks.len() * 8 * k);
            for (out, a) in blocks.iter_mut().zip(a_blocks.chunks_exact(8 * k)) {
                four_rows_of_eight(out, a, b.as_chunks().0);
            }
            for (d, a2) in rest.chunks_exact_mut(8).zip(a_rest.chunks_exact(2 * k)) {
                row_block::<1>(d, a2, b, k, n);
            }
            return;
        }
        // Two rows of every panel of 16 columns (eight vectors of sums).
        for (d, a2) in d.chunks_mut(2 * n).zip(a2.chunks(4 * k)) {
            if d.len() == 2 * n {
                row_block::<2>(d, a2, b, k, n);
            } else {
                row_block::<1>(d, a2, b, k, n);
            }
        }
    }

    /// Four rows (`out`, row-major) of an 8-column `panel` (`a`: their rows of A, each
    /// element twice): [`panel_rows`] for `mma.sync`, where a tile's 128 outputs leave
    /// little to spread a block's setup over, written out so that the sums stay in
    /// registers from the load of the initial values to the store of the results.
    #[target_feature(enable = "avx2")]
    fn four_rows_of_eight(out: &mut [f64; 32], a: &[f32], panel: &[[f32; 8]]) {
        let k = panel.len();
        let (rows, _) = a.as_chunks::<2>();
        let (a0, rows) = rows.split_at(k);
        let (a1, rows) = rows.split_at(k);
        let (a2, a3) = rows.split_at(k);
        let (init, _) = out.as_chunks::<4>();
        let mut s: [__m256d; 8] = [_mm256_setzero_pd(); 8];
        for (s, x) in s.iter_mut().zip(init) {
            *s = load_pd(x);
        }
        let steps = panel.iter().zip(a0).zip(a1).zip(a2).zip(a3);
        for ((((y, x0), x1), x2), x3) in steps {
            let (y0, y1) = y.split_at(4);
            let y0 = _mm256_cvtps_pd(load_ps(y0.try_into().expect("4")));
            let y1 = _mm256_cvtps_pd(load_ps(y1.try_into().expect("4")));
            for (r, x) in [x0, x1, x2, x3].into_iter().enumerate() {
                let x = _mm256_cvtps_pd(_mm_broadcast_ss(&x[0]));
                s[2 * r] = _mm256_add_pd(s[2 * r], _mm256_mul_pd(x, y0));
                s[2 * r + 1] = _mm256_add_pd(s[2 * r + 1], _mm256_mul_pd(x, y1));
            }
        }
        let probe = _mm256_add_pd(
            _mm256_add_pd(s[0], s[1]),
            _mm256_add_pd(_mm256_add_pd(s[2], s[3]), _mm256_add_pd(s[4], s[5])),
        );
        let probe = _mm256_add_pd(probe, _mm256_add_pd(s[6], s[7]));
        if _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(probe, probe)) == 0 {
            for (o, v) in out.as_chunks_mut::<4>().0.iter_mut().zip(s) {
                store_pd(o, v);
            }
            return;
        }
        // Some output is NaN (or two are opposite infinities): each row's sums settled as
        // [`settle_nans`] settles them, from the initial values still in `out`.
        for (r, (row, a_row)) in out
            .as_chunks_mut::<8>()
            .0
            .iter_mut()
            .zip([a0, a1, a2, a3])
            .enumerate()
        {
            let mut sums = [0.0f64; 8];
            for (o, v) in sums
                .as_chunks_mut::<4>()
                .0
                .iter_mut()
                .zip(&s[2 * r..2 * r + 2])
            {
                store_pd(o, *v);
            }
            settle_row(sums, row, a_row, panel);
        }
    }

    /// `R` rows of the tile (`d` their `R * n` outputs, `a2` their `R * 2k` elements of A)
    /// over every panel of B.
    #[target_feature(enable = "avx2")]
    fn row_block<const R: usize>(d: &mut [f64], a2: &[f32], b: &[f32], k: usize, n: usize) {
        let a_rows: [&[[f32; 2]]; R] =
            std::array::from_fn(|r| a2[2 * k * r..2 * k * (r + 1)].as_chunks::<2>().0);
        let mut c0 = 0;
        for panel in b.chunks(PANEL * k) {
            let width = PANEL.min(n - c0);
            match width {
                PANEL => panel_rows::<R, PANEL>(d, (c0, n), a_rows, panel.as_chunks().0),
                8 => panel_rows::<R, 8>(d, (c0, n), a_rows, panel.as_chunks().0),
                _ => {
                    for (r, a_row) in a_rows.iter().enumerate() {
                        for c in 0..width {
                            let column = panel.chunks_exact(width).map(|y| y[c]);
                            let out = &mut d[r * n + c0 + c];
                            *out = chain(*out, a_row, column);
                        }
                    }
                }
            }
            c0 += width;
        }
    }

    /// The `W` outputs from column `c0` of `R` rows (`d`'s rows `n` long), `W` a multiple
    /// of 4 up to 16: one widening of each k row of the panel (`vcvtps2pd`, four columns a
    /// vector) serves the `R` rows, each of which multiplies it by its element of A
    /// (broadcast: `vbroadcastss`, `vcvtps2pd`) and adds the products to its own sums.
    /// Written with the intrinsics: left to the compiler, the same loops over arrays came
    /// out with half-width vectors, lane inserts and sums kept in memory.
    #[target_feature(enable = "avx2")]
    fn panel_rows<const R: usize, const W: usize>(
        d: &mut [f64],
        (c0, n): (usize, usize),
        a_rows: [&[[f32; 2]]; R],
        panel: &[[f32; W]],
    ) {
        const { assert!(W.is_multiple_of(4) && W <= 16) };
        let mut acc = [[_mm256_setzero_pd(); 4]; R];
        for (r, acc) in acc.iter_mut().enumerate() {
            let row: &[f64; W] = d[r * n + c0..][..W].try_into().expect("a panel's outputs");
            for (v, x) in acc.iter_mut().zip(row.as_chunks::<4>().0) {
                *v = load_pd(x);
            }
        }
        // Each row of A as long as the panel, so that its k loop needs no bounds checks.
        assert!(a_rows.iter().all(|a| a.len() == panel.len()), "k");
        for (kk, y) in panel.iter().enumerate() {
            let mut b = [_mm256_setzero_pd(); 4];
            for (v, y) in b.iter_mut().zip(y.as_chunks::<4>().0) {
                *v = _mm256_cvtps_pd(load_ps(y));
            }
            for (acc, a_row) in acc.iter_mut().zip(a_rows) {
                let x = _mm256_cvtps_pd(_mm_broadcast_ss(&a_row[kk][0]));
                for (s, y) in acc.iter_mut().zip(&b).take(W / 4) {
                    *s = _mm256_add_pd(*s, _mm256_mul_pd(x, *y));
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            let out: &mut [f64; W] = (&mut d[r * n + c0..][..W])
                .try_into()
                .expect("a panel's outputs");
            // A row's sums are NaN-free when their sum is (as `settle_nans` tests); else its
            // outputs, still the initial values, are what the NaN ones are computed again from.
            let mut probe = acc[0];
            for v in &acc[1..W / 4] {
                probe = _mm256_add_pd(probe, *v);
            }
            let (chunks, _) = out.as_chunks_mut::<4>();
            if _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(probe, probe)) == 0 {
                for (o, v) in chunks.iter_mut().zip(acc) {
                    store_pd(o, *v);
                }
            } else {
                let mut sums = [0.0f64; W];
                for (o, v) in sums.as_chunks_mut::<4>().0.iter_mut().zip(acc) {
                    store_pd(o, *v);
                }
                settle_row(sums, out, a_rows[r], panel);
            }
        }
    }

    /// A row's sums `acc` of which one is NaN (or two are opposite infinities), settled
    /// ([`settle_nans`]) from the initial values in `out`, and stored there. Out of line and
    /// cold: inlined, the compiler loaded the initial values for it on the common path.
    #[cold]
    #[inline(never)]
    fn settle_row<const W: usize>(
        mut acc: [f64; W],
        out: &mut [f64; W],
        a_row: &[[f32; 2]],
        panel: &[[f32; W]],
    ) {
        settle_nans(&mut acc, out, a_row, panel);
        *out = acc;
    }

    /// Four f32 as a vector.
    #[inline(always)]
    fn load_ps(x: &[f32; 4]) -> __m128 {
        // SAFETY: an unaligned load of the 16 bytes `x` borrows (SSE, which every x86-64
        // CPU has).
        unsafe { _mm_loadu_ps(x.as_ptr()) }
    }

    /// Four f64 as a vector.
    #[target_feature(enable = "avx2")]
    fn load_pd(x: &[f64; 4]) -> __m256d {
        // SAFETY: an unaligned load of the 32 bytes `x` borrows; AVX is enabled here.
        unsafe { _mm256_loadu_pd(x.as_ptr()) }
    }

    /// Stores a vector's four f64 in `out`.
    #[target_feature(enable = "avx2")]
    fn store_pd(out: &mut [f64; 4], v: __m256d) {
        // SAFETY: an unaligned store of 32 bytes into `out`, which has them; AVX is enabled.
        unsafe { _mm256_storeu_pd(out.as_mut_ptr(), v) };
    }
}

/// One row's `W` outputs of a panel: `out[c] += a_row[kk] * panel[kk][c]` in k order. The k
/// loop takes two steps an iteration (its own overhead halved); a pair of outputs is
/// multiplied by the pair of A's element, so that the products are two-wide from the start.
#[inline(always)]
fn panel_sums<const W: usize>(out: &mut [f64; W], a_row: &[[f32; 2]], panel: &[[f32; W]]) {
    let mut acc = *out;
    let (a_two, a_rest) = a_row.as_chunks::<2>();
    let (p_two, p_rest) = panel.as_chunks::<2>();
    for (x, y) in a_two.iter().zip(p_two) {
        for (x, y) in x.iter().zip(y) {
            let x = [x[0] as f64, x[1] as f64];
            for j in 0..W / 2 {
                acc[2 * j] += x[0] * y[2 * j] as f64;
                acc[2 * j + 1] += x[1] * y[2 * j + 1] as f64;
            }
        }
    }
    for (x, y) in a_rest.iter().zip(p_rest) {
        let x = [x[0] as f64, x[1] as f64];
        for j in 0..W / 2 {
            acc[2 * j] += x[0] * y[2 * j] as f64;
            acc[2 * j + 1] += x[1] * y[2 * j + 1] as f64;
        }
    }
    settle_nans(&mut acc, out, a_row, panel);
    *out = acc;
}

/// [`panel_sums`] of two rows of a panel of 8 (one k step an iteration, the two rows' eight
/// sums independent of each other).
#[inline(always)]
fn row_pair_sums(outs: [&mut [f64; 8]; 2], a_rows: [&[[f32; 2]]; 2], panel: &[[f32; 8]]) {
    let [out0, out1] = outs;
    let (mut s0, mut s1) = (*out0, *out1);
    for ((x0, x1), y) in a_rows[0].iter().zip(a_rows[1]).zip(panel) {
        let x0 = [x0[0] as f64, x0[1] as f64];
        let x1 = [x1[0] as f64, x1[1] as f64];
        for j in 0..4 {
            s0[2 * j] += x0[0] * y[2 * j] as f64;
            s0[2 * j + 1] += x0[1] * y[2 * j + 1] as f64;
            s1[2 * j] += x1[0] * y[2 * j] as f64;
            s1[2 * j + 1] += x1[1] * y[2 * j + 1] as f64;
        }
    }
    settle_nans(&mut s0, out0, a_rows[0], panel);
    settle_nans(&mut s1, out1, a_rows[1], panel);
    *out0 = s0;
    *out1 = s1;
}

/// The sums `acc` of one row of a panel (from `init`) that ended NaN, computed again by
/// [`chain`] (module docs).
#[inline(always)]
fn settle_nans<const W: usize>(
    acc: &mut [f64; W],
    init: &[f64; W],
    a_row: &[[f32; 2]],
    panel: &[[f32; W]],
) {
    // The outputs' sum is NaN when one of them is (or two are opposite infinities: then they
    // are computed again for nothing): two-wide adds, where a test per output is a branch each.
    let mut probe = [0.0f64; 2];
    for j in 0..W / 2 {
        probe[0] += acc[2 * j];
        probe[1] += acc[2 * j + 1];
    }
    if (probe[0] + probe[1]).is_nan() {
        for (c, v) in acc.iter_mut().enumerate() {
            if v.is_nan() {
                *v = chain(init[c], a_row, panel.iter().map(|y| y[c]));
            }
        }
    }
}

/// One output's sum from `init`, with `a_row`'s elements and its column of B in k order, the
/// NaN it ends with by the module's rule: a NaN sum stays, a product of two NaNs is B's.
fn chain(init: f64, a_row: &[[f32; 2]], column: impl Iterator<Item = f32>) -> f64 {
    let mut acc = init;
    for (x, y) in a_row.iter().zip(column) {
        let (x, y) = (x[0] as f64, y as f64);
        let p = if x.is_nan() && y.is_nan() { y } else { x * y };
        if !acc.is_nan() {
            acc += p;
        }
    }
    acc
}

/// Places the values of accumulator registers in their tile: element `e` (of `per` 16- or
/// 32-bit elements) of register `regs[j]` of lane `l` goes to `d[places[i]]` for
/// `i = (l * regs.len() + j) * per + e`, decoded by `decode` (given the register shifted right
/// by `16 * e`). Inlined with the decoder of its type, so that it is not chosen again per
/// element.
#[inline(always)]
pub(crate) fn unpack(
    d: &mut [f64],
    regs: &[&[u64]],
    places: &[u32],
    per: usize,
    decode: impl Fn(u64) -> f64,
) {
    for (lane, at) in places.chunks_exact(regs.len() * per).enumerate() {
        for (reg, at) in regs.iter().zip(at.chunks_exact(per)) {
            let v = reg[lane];
            for (e, &p) in at.iter().enumerate() {
                d[p as usize] = decode(v >> (16 * e));
            }
        }
    }
}

/// The inverse of [`unpack`]: the registers' values (`values[j * 32 + l]` for register `j`
/// of lane `l`) from the tile, each element encoded by `encode`.
#[inline(always)]
pub(crate) fn pack(
    values: &mut [u64],
    d: &[f64],
    places: &[u32],
    per: usize,
    encode: impl Fn(f64) -> u64,
) {
    let regs = values.len() / 32;
    for (lane, at) in places.chunks_exact(regs * per).enumerate() {
        for (j, at) in at.chunks_exact(per).enumerate() {
            let mut v = 0u64;
            for (e, &p) in at.iter().enumerate() {
                v |= encode(d[p as usize]) << (16 * e);
            }
            values[j * 32 + lane] = v;
        }
    }
}

/// [`unpack`] of one element a register (`per` = 1: f32 and integer accumulators), with
/// the lane loop over arrays of 32.
#[inline(always)]
pub(crate) fn unpack_words(
    d: &mut [f64],
    regs: &[&[u64]],
    places: &[u32],
    decode: impl Fn(u64) -> f64,
) {
    let n = regs.len();
    if places.len() != 32 * n || regs.iter().any(|r| r.len() != 32) {
        return unpack(d, regs, places, 1, decode);
    }
    for (j, reg) in regs.iter().enumerate() {
        let reg: &[u64; 32] = (*reg).try_into().expect("32 lanes");
        for lane in 0..32 {
            d[places[lane * n + j] as usize] = decode(reg[lane]);
        }
    }
}

/// [`pack`] of one element a register (`per` = 1), with the lane loop over arrays of 32.
#[inline(always)]
pub(crate) fn pack_words(
    values: &mut [u64],
    d: &[f64],
    places: &[u32],
    encode: impl Fn(f64) -> u64,
) {
    let n = values.len() / 32;
    if places.len() != 32 * n {
        return pack(values, d, places, 1, encode);
    }
    for (j, row) in values.as_chunks_mut::<32>().0.iter_mut().enumerate() {
        for lane in 0..32 {
            row[lane] = encode(d[places[lane * n + j] as usize]);
        }
    }
}

/// Where element (lane 0, register `j`) of an f32 accumulator fragment lies in its tile of
/// `cols` columns (row-major): row `8 * (j / 2 % 2)`, column `8 * (j / 4) + j % 2`; lane
/// `4g + t` holds the element `g` rows and `2t` columns further (the C fragment layout,
/// `tensor::c_coord`, one element a register).
#[inline(always)]
fn c_offset(j: usize, cols: usize) -> usize {
    8 * ((j >> 1) & 1) * cols + 8 * (j >> 2) + (j & 1)
}

/// [`unpack_words`] of f32 accumulators (`cols / 2` registers, the tile `16 x cols`) with
/// the places computed from the layout ([`c_offset`]) instead of read from a table: a lane
/// quad's four elements are every other one of an 8-element run, one bounds check a quad.
#[inline(always)]
pub(crate) fn unpack_f32(d: &mut [f64], regs: &[&[u64]], decode: impl Fn(u64) -> f64) {
    let cols = d.len() / 16;
    debug_assert_eq!(regs.len() * 2, cols);
    for (j, reg) in regs.iter().enumerate() {
        let reg: &[u64; 32] = (*reg).try_into().expect("32 lanes");
        let (quads, _) = reg.as_chunks::<4>();
        let off = c_offset(j, cols);
        for (g, quad) in quads.iter().enumerate() {
            let at = off + g * cols;
            let out: &mut [f64; 7] = (&mut d[at..at + 7]).try_into().expect("a run");
            for t in 0..4 {
                out[2 * t] = decode(quad[t]);
            }
        }
    }
}

/// The inverse of [`unpack_f32`]: `values[j * 32 + l]` for register `j` of lane `l`.
#[inline(always)]
pub(crate) fn pack_f32(values: &mut [u64], d: &[f64], encode: impl Fn(f64) -> u64) {
    let cols = d.len() / 16;
    debug_assert_eq!(values.len(), 16 * cols);
    for (j, reg) in values.as_chunks_mut::<32>().0.iter_mut().enumerate() {
        let (quads, _) = reg.as_chunks_mut::<4>();
        let off = c_offset(j, cols);
        for (g, quad) in quads.iter_mut().enumerate() {
            let at = off + g * cols;
            let run: &[f64; 7] = d[at..at + 7].try_into().expect("a run");
            for t in 0..4 {
                quad[t] = encode(run[2 * t]);
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The semantics written plainly: each output its initial value plus the f64 products
    /// of its row of A and column of B (row-major, `k x n`), folded in k order; a NaN sum
    /// stays as it is, and a product of two NaNs is B's.
    pub(crate) fn by_output(d: &mut [f64], a: &[f64], b: &[f64], k: usize, n: usize) {
        for (i, out) in d.iter_mut().enumerate() {
            let (r, c) = (i / n, i % n);
            *out = (0..k).fold(*out, |acc, kk| {
                let (x, y) = (a[r * k + kk], b[kk * n + c]);
                match (acc.is_nan(), x.is_nan() && y.is_nan()) {
                    (true, _) => acc,
                    (false, true) => acc + y,
                    (false, false) => acc + x * y,
                }
            });
        }
    }

    /// [`blocked`] and [`by_output`] from the same initial values agree bit for bit (NaN bits
    /// included); `what` names the case in the failure.
    pub(crate) fn assert_blocked_is_by_output(
        init: Vec<f64>,
        a: &[f64],
        b: &[f64],
        (k, n): (usize, usize),
        what: &str,
    ) {
        let (mut fast, mut plain) = (init.clone(), init);
        blocked(&mut fast, a, b, k, n);
        by_output(&mut plain, a, b, k, n);
        for (x, y) in fast.iter().zip(&plain) {
            assert_eq!(x.to_bits(), y.to_bits(), "{what}: {x:e} against {y:e}");
        }
    }

    /// [`accumulate`] on operands given as plain row-major f64 matrices of f32 values: A with
    /// each element twice, B in panels ([`b_index`]). Panics if a value is not exact in f32.
    pub(crate) fn blocked(d: &mut [f64], a: &[f64], b: &[f64], k: usize, n: usize) {
        blocked_by(d, a, b, (k, n), accumulate);
    }

    /// [`blocked`] through `sums` (one of [`accumulate`]'s paths).
    fn blocked_by(
        d: &mut [f64],
        a: &[f64],
        b: &[f64],
        (k, n): (usize, usize),
        sums: impl Fn(&mut [f64], &[f32], &[f32], usize, usize),
    ) {
        let narrow = |x: f64| {
            let y = x as f32;
            assert_eq!((y as f64).to_bits(), x.to_bits(), "{x:e} is not an f32");
            y
        };
        let a2: Vec<f32> = a.iter().flat_map(|&x| [narrow(x); 2]).collect();
        let mut panels = vec![f32::NAN; k * n];
        let mut seen = vec![false; k * n];
        for kk in 0..k {
            for c in 0..n {
                let i = b_index(c, kk, k, n);
                assert!(!seen[i], "two elements at {i}");
                seen[i] = true;
                panels[i] = narrow(b[kk * n + c]);
            }
        }
        sums(d, &a2, &panels, k, n);
    }

    /// f32 values whose f64 sums round differently in another order, and the special ones
    /// (infinities, NaN, zeros, subnormals, the largest).
    fn value(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = *seed >> 11;
        match x % 31 {
            0 => f64::INFINITY,
            1 => f64::NEG_INFINITY,
            2 => f64::NAN,
            3 => -f64::NAN,
            // A NaN with a payload (as an f32 register may hold).
            4 => f32::from_bits(0xffc0_1234) as f64,
            5 => -0.0,
            6 => f32::MAX as f64,
            7 => f32::from_bits((x >> 8) as u32 & 0x807f_ffff) as f64,
            _ => f32::from_bits((x >> 8) as u32) as f64,
        }
    }

    /// Initial values: any f64 (a chained `wgmma`'s accumulators are its last f64 sums).
    fn initial(seed: &mut u64) -> f64 {
        let v = value(seed);
        if v.is_finite() { v * 1.000_000_1 } else { v }
    }

    #[test]
    fn panels_place_every_element_once() {
        for n in (1..=40).chain((48..=256).step_by(8)) {
            for k in [1, 4, 8, 16, 32] {
                let mut seen = vec![false; k * n];
                for kk in 0..k {
                    for c in 0..n {
                        let i = b_index(c, kk, k, n);
                        assert!(!seen[i], "n {n} k {k}: ({c}, {kk}) at {i} twice");
                        seen[i] = true;
                    }
                }
            }
        }
    }

    #[test]
    fn blocked_tile_is_bit_identical_to_a_dot_product_per_output() {
        let mut seed = 7;
        for (rows, k, n) in [
            (16, 16, 8),
            (16, 8, 8),
            (16, 32, 8),
            (16, 4, 8),
            (16, 16, 256),
            (16, 16, 24),
            (16, 32, 40),
            (16, 8, 128),
            (3, 5, 7),
            (2, 3, 21),
            (1, 1, 16),
            // `mma.sync`'s 8 columns with an odd number of rows (the last one alone).
            (3, 4, 8),
            (1, 16, 8),
        ] {
            for _ in 0..20 {
                let a: Vec<f64> = (0..rows * k).map(|_| value(&mut seed)).collect();
                let b: Vec<f64> = (0..k * n).map(|_| value(&mut seed)).collect();
                let init: Vec<f64> = (0..rows * n).map(|_| initial(&mut seed)).collect();
                assert_blocked_is_by_output(init, &a, &b, (k, n), &format!("{rows}x{k}x{n}"));
            }
        }
    }

    /// An f32 for [`wide_sums_are_bit_identical_to_the_portable_ones`]: mostly values of
    /// similar size (whose sums round differently in another order), some of any size,
    /// subnormals and signed zeros, and one in `special` (0: none) an infinity or a NaN.
    fn operand(seed: &mut u64, special: u64) -> f32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = *seed >> 11;
        let sign = ((x & 1) as u32) << 31;
        let mantissa = (x >> 1) as u32 & 0x007f_ffff;
        if special != 0 && (x >> 30).is_multiple_of(special) {
            return match (x >> 24) % 4 {
                0 => f32::from_bits(sign | 0x7f80_0000),
                1 => f32::NAN,
                2 => -f32::NAN,
                _ => f32::from_bits(0x7fc0_0000 | sign | (mantissa & 0xffff) | 1),
            };
        }
        match (x >> 24) % 20 {
            0 => f32::from_bits(sign),
            1 => f32::from_bits(sign | mantissa),
            2 | 3 => f32::from_bits((x >> 26) as u32 & 0x7f7f_ffff | sign),
            e => f32::from_bits(sign | ((127 + e as u32 - 12) << 23) | mantissa),
        }
    }

    /// The four-wide sums ([`wide::accumulate`], AVX2) against the portable two-wide ones and
    /// the plain fold, bit for bit (NaN payloads included), over random tiles: any number of
    /// rows (the blocks of 2 and 4 and the rows left over), k from 1 to 40, and `mma.sync`'s
    /// 8 columns, `wgmma`'s multiples of 8 and 16, and odd widths (the per-output tail).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn wide_sums_are_bit_identical_to_the_portable_ones() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: the four-wide sums are not run");
            return;
        }
        // SAFETY: the CPU has AVX2 (checked above).
        let wide = |d: &mut [f64], a2: &[f32], b: &[f32], k, n| unsafe {
            wide::accumulate(d, a2, b, k, n)
        };
        let mut seed = 0x5eed_u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        let (mut finite, mut nan, mut compared) = (0, 0, 0);
        for case in 0..1500 {
            let rows = 1 + next(19) as usize;
            let k = 1 + next(40) as usize;
            let n = match next(4) {
                0 => 8,
                1 => 16 * (1 + next(16) as usize),
                2 => 8 * (1 + next(32) as usize),
                _ => 1 + next(70) as usize,
            };
            let special = [0, 0, 400, 60][next(4) as usize];
            let mut vseed = next(u64::MAX);
            let mut f = |m| operand(&mut vseed, m) as f64;
            let a: Vec<f64> = (0..rows * k).map(|_| f(special)).collect();
            let b: Vec<f64> = (0..k * n).map(|_| f(special)).collect();
            // A chained wgmma's accumulators are f64 sums: any f64 (not only f32 values).
            let init: Vec<f64> = (0..rows * n).map(|_| f(special) * 1.000_000_1).collect();
            let (mut fast, mut portable, mut plain) = (init.clone(), init.clone(), init);
            blocked_by(&mut fast, &a, &b, (k, n), wide);
            blocked_by(&mut portable, &a, &b, (k, n), accumulate_sse2);
            by_output(&mut plain, &a, &b, k, n);
            for (i, ((x, y), z)) in fast.iter().zip(&portable).zip(&plain).enumerate() {
                let what = format!("case {case}: {rows}x{k}x{n}, output {i}");
                assert_eq!(x.to_bits(), y.to_bits(), "{what}: {x:e} against {y:e}");
                assert_eq!(x.to_bits(), z.to_bits(), "{what}: {x:e} against {z:e}");
                if x.is_nan() {
                    nan += 1;
                } else {
                    finite += 1;
                }
                compared += 1;
            }
        }
        // Both kinds of output are reached often (the NaNs through their second computation).
        assert!(
            compared > 500_000 && finite > 300_000 && nan > 20_000,
            "{finite} {nan}"
        );
    }
}
