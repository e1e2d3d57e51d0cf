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
#[inline(always)]
pub(crate) fn accumulate(d: &mut [f64], a2: &[f32], b: &[f32], k: usize, n: usize) {
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
        accumulate(d, &a2, &panels, k, n);
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
}
