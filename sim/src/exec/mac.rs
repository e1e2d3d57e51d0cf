//! The multiply-accumulate core of the tensor-core instructions (`mma.sync`, `wgmma`).
//!
//! Each output is its initial value plus the products of its row of A and column of B, added
//! in k order (`tensor`'s module docs). Computed one output at a time, that is a chain of
//! dependent additions per output; here a tile of outputs is computed row by row and k step by
//! k step, so one k step's products over a block of columns are independent of each other
//! (the compiler keeps the block in vector registers) while every output still sees exactly
//! the same additions and multiplications in the same order, hence the same bits.

/// Columns per block of [`accumulate`]: the outputs kept in registers across the k loop.
const BLOCK: usize = 8;

/// `d[r][c] = d[r][c] + a[r][kk] * b[kk][c]` for `kk` = 0, 1, ..., `k - 1` in that order,
/// for the row-major tile `d` (`rows x n`), `a` (`rows x k`) and `b` (`k x n`).
#[inline(always)]
pub(crate) fn accumulate(d: &mut [f64], a: &[f64], b: &[f64], k: usize, n: usize) {
    debug_assert_eq!(b.len(), k * n);
    let blocks = n / BLOCK * BLOCK;
    for (d_row, a_row) in d.chunks_exact_mut(n).zip(a.chunks_exact(k)) {
        let (head, tail) = d_row.split_at_mut(blocks);
        for (i, d_blk) in head.chunks_exact_mut(BLOCK).enumerate() {
            let c0 = i * BLOCK;
            let mut acc: [f64; BLOCK] = (&*d_blk).try_into().expect("a block");
            for (kk, &x) in a_row.iter().enumerate() {
                let y: &[f64; BLOCK] = b[kk * n + c0..kk * n + c0 + BLOCK]
                    .try_into()
                    .expect("a block");
                for j in 0..BLOCK {
                    acc[j] += x * y[j];
                }
            }
            d_blk.copy_from_slice(&acc);
        }
        // Columns past the last whole block (no shape has them: n is a multiple of 8).
        for (j, out) in tail.iter_mut().enumerate() {
            let c = blocks + j;
            for (kk, &x) in a_row.iter().enumerate() {
                *out += x * b[kk * n + c];
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The general form: each output a dot product of its own, folded in k order.
    fn by_output(d: &mut [f64], a: &[f64], b: &[f64], k: usize, n: usize) {
        for (i, out) in d.iter_mut().enumerate() {
            let (r, c) = (i / n, i % n);
            *out = (0..k).fold(*out, |acc, kk| acc + a[r * k + kk] * b[kk * n + c]);
        }
    }

    /// Values whose sums round differently in another order, and the special ones.
    fn value(seed: &mut u64) -> f64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = *seed >> 11;
        match x % 29 {
            0 => f64::INFINITY,
            1 => f64::NEG_INFINITY,
            2 => f64::NAN,
            3 => -0.0,
            4 => 1e300,
            _ => ((x % 200_001) as f64 - 100_000.0) * 2f64.powi((x % 61) as i32 - 30),
        }
    }

    #[test]
    fn blocked_tile_is_bit_identical_to_a_dot_product_per_output() {
        let mut seed = 7;
        for (rows, k, n) in [
            (16, 16, 8),
            (16, 16, 256),
            (16, 8, 24),
            (16, 32, 12),
            (3, 5, 7),
        ] {
            for _ in 0..20 {
                let a: Vec<f64> = (0..rows * k).map(|_| value(&mut seed)).collect();
                let b: Vec<f64> = (0..k * n).map(|_| value(&mut seed)).collect();
                let init: Vec<f64> = (0..rows * n).map(|_| value(&mut seed)).collect();
                let (mut fast, mut general) = (init.clone(), init);
                accumulate(&mut fast, &a, &b, k, n);
                by_output(&mut general, &a, &b, k, n);
                for (x, y) in fast.iter().zip(&general) {
                    // Which NaN an addition of two keeps (the sign of x86's default NaN or
                    // a decoded one) is the compiler's choice of operand order, in the
                    // per-output loop as well: a NaN compares as a NaN.
                    if !(x.is_nan() && y.is_nan()) {
                        assert_eq!(x.to_bits(), y.to_bits(), "{rows}x{k}x{n}");
                    }
                }
            }
        }
    }
}
