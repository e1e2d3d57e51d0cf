//! bf16 values, the benchmark's inputs, and the tolerance two GEMM results are held to.
//!
//! Both sides compute `C = A·Bᵀ` from the same bf16 inputs: every product of two bf16 values is
//! exact in f32 (8 + 8 mantissa bits), the sums run in f32 in an order each kernel picks, and the
//! result is rounded once to bf16. The final rounding moves a value by at most half a bf16 ulp,
//! at most 2⁻⁸ of it (bf16 keeps 8 significant bits, so an ulp is 2⁻⁸ to 2⁻⁷ of the value);
//! two sides rounding independently differ by at most one ulp, at most 2⁻⁷ of the larger. The f32 sums differ by accumulation order only: about √K · 2⁻²⁴ times the
//! typical product, tiny against the rounding except where terms cancel and the result is near
//! zero, which the absolute term (2⁻¹² of the result's root mean square, `rms(C) ≈ √K` times
//! the typical product) covers with a margin of several hundred. So
//! `|x − y| ≤ 2⁻⁷ · max(|x|, |y|) + 2⁻¹² · rms(C)` for every element between the two sides, and
//! `|x − exact| ≤ 2⁻⁸ · |exact| + 2⁻¹² · rms(C)` against the float64 sum of sampled elements.
//! A NaN (the poison written before each run, or a wrong value) never passes.
//!
//! **fp8 (`--dtype e4m3`).** A and B are OCP e4m3 values, C = bf16(scale_a · scale_b · A·Bᵀ)
//! with f32 accumulation, as `torch._scaled_mm` computes it. The inputs
//! ([`random_e4m3`]) are multiples of 1/4 in [−4, 4], all exact in e4m3; a product is a multiple
//! of 1/16 of magnitude at most 16, so every partial sum up to K = 2¹⁸ is a multiple of 2⁻⁴
//! below 2²², exact in f32 in any order, and the scales are powers of two. A correct result is
//! then exactly bf16(scale · Σ), which is what the sampled elements are compared with
//! ([`compare_exact_e4m3`]: the float64 sum times the scales, rounded once to bf16). The bound
//! is still the two-sided one, `|c − ref| ≤ 2⁻⁷ · |ref| + 2⁻¹² · rms(c)`: any result one bf16
//! ulp from the reference passes (an ulp is at most 2⁻⁷ of the value), which covers sums that
//! are not exact in f32 (another accumulation order, other inputs) but not an error of two ulps.
//! The report adds how many samples are bit-identical to the reference and the largest
//! absolute and relative error. Measured on an H200, 2026-11-27 (cuBLASLt 13.1): without fast
//! accumulation cuBLASLt was bit-identical to the reference at every sample from 1024³ to
//! 8192³ and at 8192×14336×4096. With it (`--fast-accum`, partial sums kept in the tensor
//! cores' narrower accumulator, not f32) it was one ulp off in 2 of 1028 samples at 4096³ and
//! 13 at 8192³ (inside the bound, at 0.96 of it), but at K = 16384 it fails: 4 of 1028 samples
//! outside at 4096×4096×16384 (worst 3.2 times the bound, 5.5 for 5.3125), 2 at 16384³. That
//! is a loss of accuracy the bound is meant to catch, not an accumulation order: a kernel that
//! accumulates in the tensor cores over all of K would fail the same way.

use phasegate_runtime::fp8::F8E4M3;
use phasegate_runtime::rng::Rng;

/// The relative part of the two-sided bound: two independent bf16 roundings.
pub const REL_TWO_SIDES: f64 = 1.0 / 128.0;
/// The relative part against the exact sum: one bf16 rounding.
pub const REL_EXACT: f64 = 1.0 / 256.0;
/// The absolute part, as a fraction of the result's root mean square.
pub const ABS_OF_RMS: f64 = 1.0 / 4096.0;
/// The bf16 pattern written into C before each run: a quiet NaN, so an element no kernel
/// wrote fails the comparison.
pub const POISON: u16 = 0xffff;

/// f32 to bf16, rounding to nearest even (as `cvt.rn.bf16.f32`); NaN stays a quiet NaN.
pub fn bf16_from_f32(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return ((bits >> 16) as u16) | 0x0040;
    }
    let round = 0x7fff + ((bits >> 16) & 1);
    (bits.wrapping_add(round) >> 16) as u16
}

/// bf16 to f32 (exact).
pub fn f32_from_bf16(x: u16) -> f32 {
    f32::from_bits((x as u32) << 16)
}

/// `n` bf16 values uniform in [−1, 1), the same for the same seed on every machine.
pub fn random_bf16(n: usize, seed: u64) -> Vec<u16> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            // 24 random bits give a float in [0, 1) exactly; shifted to [−1, 1).
            let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
            bf16_from_f32(2.0 * unit - 1.0)
        })
        .collect()
}

/// f64 to bf16, rounding to nearest even once (through f32 rounded to odd, which keeps the
/// tie information bf16's rounding needs); NaN stays a quiet NaN.
pub fn bf16_from_f64(x: f64) -> u16 {
    let mut f = x as f32;
    if x.is_finite() && f.is_finite() && f as f64 != x {
        // Round to odd: the f32 neighbour toward zero with its last bit set.
        if (f as f64).abs() > x.abs() {
            f = f32::from_bits(f.to_bits() - 1);
        }
        f = f32::from_bits(f.to_bits() | 1);
    }
    bf16_from_f32(f)
}

/// `n` e4m3 values, each `j/4` for `j` uniform in −16..=16 (exact in e4m3; see the module
/// comment), the same for the same seed on every machine.
pub fn random_e4m3(n: usize, seed: u64) -> Vec<u8> {
    let codes: [u8; 33] = std::array::from_fn(|j| {
        let x = (j as f32 - 16.0) / 4.0;
        let v = F8E4M3::from_f32(x);
        assert_eq!(v.to_f32(), x, "{x} is not exact in e4m3");
        v.to_bits()
    });
    let mut rng = Rng::new(seed);
    (0..n).map(|_| codes[rng.below(33) as usize]).collect()
}

/// The value of each e4m3 encoding (NaN for 0x7f and 0xff).
pub fn e4m3_table() -> [f64; 256] {
    std::array::from_fn(|b| F8E4M3::from_bits(b as u8).to_f64())
}

/// Root mean square of a bf16 matrix (NaNs skipped, so a poisoned element cannot hide others).
pub fn rms(c: &[u16]) -> f64 {
    let (sum, n) = c
        .iter()
        .map(|&v| f32_from_bf16(v) as f64)
        .filter(|v| v.is_finite())
        .fold((0.0, 0usize), |(s, n), v| (s + v * v, n + 1));
    if n == 0 { 0.0 } else { (sum / n as f64).sqrt() }
}

/// How one result compares with another, element by element.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Elements compared.
    pub elements: usize,
    /// Elements outside the bound (NaN included).
    pub outside: usize,
    /// The first element outside: (row, column, this side, the other).
    pub first_outside: Option<(usize, usize, f64, f64)>,
    /// Largest |x − y| / (bound at that element), over elements that are numbers.
    pub worst_fraction_of_bound: f64,
    /// ‖x − y‖ / ‖y‖ (Frobenius), over elements that are numbers on both sides.
    pub relative_frobenius: f64,
    /// Elements equal on both sides (as values: a NaN equals nothing; the check of two bf16
    /// results counts equal bit patterns instead, a NaN pattern included).
    pub identical: usize,
    /// Largest |x − y| over elements that are numbers.
    pub max_abs: f64,
    /// Largest |x − y| / |y| over elements that are numbers with y ≠ 0.
    pub max_rel: f64,
}

impl Comparison {
    fn empty() -> Comparison {
        Comparison {
            elements: 0,
            outside: 0,
            first_outside: None,
            worst_fraction_of_bound: 0.0,
            relative_frobenius: 0.0,
            identical: 0,
            max_abs: 0.0,
            max_rel: 0.0,
        }
    }

    /// Whether every element lies inside the bound.
    pub fn passed(&self) -> bool {
        self.outside == 0 && self.elements > 0
    }
}

/// Compares `x` with `y` (both `rows × cols`, row-major bf16) element by element under
/// `|x − y| ≤ 2⁻⁷ · max(|x|, |y|) + 2⁻¹² · rms(y)` (the module's reasoning).
pub fn compare_two_sides(x: &[u16], y: &[u16], cols: usize) -> Comparison {
    let abs = ABS_OF_RMS * rms(y);
    let mut c = Comparison {
        elements: x.len().min(y.len()),
        ..Comparison::empty()
    };
    let (mut diff2, mut ref2) = (0.0f64, 0.0f64);
    for (i, (&a, &b)) in x.iter().zip(y).enumerate() {
        c.identical += (a == b) as usize;
        let (a, b) = (f32_from_bf16(a) as f64, f32_from_bf16(b) as f64);
        let bound = REL_TWO_SIDES * a.abs().max(b.abs()) + abs;
        let d = (a - b).abs();
        if d.is_finite() {
            diff2 += d * d;
            ref2 += b * b;
            c.max_abs = c.max_abs.max(d);
            if b != 0.0 {
                c.max_rel = c.max_rel.max(d / b.abs());
            }
            if bound > 0.0 {
                c.worst_fraction_of_bound = c.worst_fraction_of_bound.max(d / bound);
            }
        }
        let inside = d <= bound; // false for NaN
        if !inside {
            c.outside += 1;
            c.first_outside
                .get_or_insert((i / cols.max(1), i % cols.max(1), a, b));
        }
    }
    c.relative_frobenius = if ref2 > 0.0 {
        (diff2 / ref2).sqrt()
    } else {
        f64::NAN
    };
    c
}

/// The float64 value of `C[i][j] = Σₖ A[i][k] · B[j][k]` (A is `M × K`, B is `N × K`, both
/// row-major bf16).
pub fn exact_element(a: &[u16], b: &[u16], k: usize, i: usize, j: usize) -> f64 {
    let (ra, rb) = (&a[i * k..(i + 1) * k], &b[j * k..(j + 1) * k]);
    ra.iter()
        .zip(rb)
        .map(|(&x, &y)| f32_from_bf16(x) as f64 * f32_from_bf16(y) as f64)
        .sum()
}

/// Checks `samples` elements of `c` (`M × N`) against their float64 sums under
/// `|c − exact| ≤ 2⁻⁸ · |exact| + 2⁻¹² · rms(c)`; the elements are drawn from `seed`, with the
/// four corners always among them (the edges of the tile grid are where indexing goes wrong).
pub fn compare_exact(
    c: &[u16],
    a: &[u16],
    b: &[u16],
    (m, n, k): (usize, usize, usize),
    samples: usize,
    seed: u64,
) -> Comparison {
    compare_sampled(c, (m, n), samples, seed, REL_EXACT, |i, j| {
        exact_element(a, b, k, i, j)
    })
}

/// The fp8 check (the module comment): `samples` elements of `c` (`M × N`, bf16) against
/// bf16(scale · Σₖ A[i][k] · B[j][k]) with the sum in float64 (A `M × K`, B `N × K`, e4m3,
/// row-major; `scale` = scale_a · scale_b), under `|c − ref| ≤ 2⁻⁷ · |ref| + 2⁻¹² · rms(c)`;
/// the same elements as [`compare_exact`] draws for the same seed.
pub fn compare_exact_e4m3(
    c: &[u16],
    a: &[u8],
    b: &[u8],
    scale: f64,
    (m, n, k): (usize, usize, usize),
    samples: usize,
    seed: u64,
) -> Comparison {
    let table = e4m3_table();
    compare_sampled(c, (m, n), samples, seed, REL_TWO_SIDES, |i, j| {
        let (ra, rb) = (&a[i * k..(i + 1) * k], &b[j * k..(j + 1) * k]);
        let sum: f64 = ra
            .iter()
            .zip(rb)
            .map(|(&x, &y)| table[x as usize] * table[y as usize])
            .sum();
        f32_from_bf16(bf16_from_f64(scale * sum)) as f64
    })
}

/// `samples` elements of `c` (`M × N`) drawn from `seed` (the four corners first) against
/// `reference(i, j)` under `|c − ref| ≤ rel · |ref| + 2⁻¹² · rms(c)`.
fn compare_sampled(
    c: &[u16],
    (m, n): (usize, usize),
    samples: usize,
    seed: u64,
    rel: f64,
    reference: impl Fn(usize, usize) -> f64,
) -> Comparison {
    let abs = ABS_OF_RMS * rms(c);
    let mut rng = Rng::new(seed);
    let corners = [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
    let picks = corners
        .into_iter()
        .chain((0..samples).map(|_| (rng.below(m as u64) as usize, rng.below(n as u64) as usize)));
    let mut out = Comparison::empty();
    let (mut diff2, mut ref2) = (0.0f64, 0.0f64);
    for (i, j) in picks {
        let exact = reference(i, j);
        let got = f32_from_bf16(c[i * n + j]) as f64;
        let bound = rel * exact.abs() + abs;
        let d = (got - exact).abs();
        out.elements += 1;
        out.identical += (got == exact) as usize;
        if d.is_finite() {
            diff2 += d * d;
            ref2 += exact * exact;
            out.max_abs = out.max_abs.max(d);
            if exact != 0.0 {
                out.max_rel = out.max_rel.max(d / exact.abs());
            }
            if bound > 0.0 {
                out.worst_fraction_of_bound = out.worst_fraction_of_bound.max(d / bound);
            }
        }
        let inside = d <= bound; // false for NaN
        if !inside {
            out.outside += 1;
            out.first_outside.get_or_insert((i, j, got, exact));
        }
    }
    out.relative_frobenius = if ref2 > 0.0 {
        (diff2 / ref2).sqrt()
    } else {
        f64::NAN
    };
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(bf16_from_f32(1.0), 0x3f80);
        // 1 + 2⁻⁸ is halfway between 1 and 1 + 2⁻⁷: ties go to the even 1.0.
        assert_eq!(bf16_from_f32(1.0 + 1.0 / 256.0), 0x3f80);
        // 1 + 3·2⁻⁸ is halfway between 1 + 2⁻⁷ (odd) and 1 + 2⁻⁶: up to the even one.
        assert_eq!(bf16_from_f32(1.0 + 3.0 / 256.0), 0x3f82);
        assert_eq!(bf16_from_f32(1.0 + 1.0 / 256.0 + 1.0 / 65536.0), 0x3f81);
        assert_eq!(bf16_from_f32(-2.5), 0xc020);
        assert!(f32_from_bf16(bf16_from_f32(f32::NAN)).is_nan());
        assert_eq!(f32_from_bf16(0xc020), -2.5);
    }

    #[test]
    fn inputs_are_deterministic_and_spread() {
        let x = random_bf16(10_000, 7);
        assert_eq!(x, random_bf16(10_000, 7));
        assert_ne!(x, random_bf16(10_000, 8));
        let v: Vec<f32> = x.iter().map(|&b| f32_from_bf16(b)).collect();
        assert!(v.iter().all(|&f| (-1.0..=1.0).contains(&f)));
        let mean = v.iter().sum::<f32>() / v.len() as f32;
        assert!(mean.abs() < 0.05, "mean {mean}");
        assert!(v.iter().any(|&f| f < -0.9) && v.iter().any(|&f| f > 0.9));
    }

    /// A host GEMM rounded to bf16 passes against its exact sums; the same result with one
    /// element moved by three bf16 ulps, or poisoned, fails in both comparisons.
    #[test]
    fn tolerance_separates_rounding_from_errors() {
        let (m, n, k) = (24, 40, 512);
        let a = random_bf16(m * k, 1);
        let b = random_bf16(n * k, 2);
        let mut c = vec![0u16; m * n];
        for i in 0..m {
            for j in 0..n {
                // f32 accumulation, in reverse order from exact_element's.
                let s: f32 = (0..k)
                    .rev()
                    .map(|kk| f32_from_bf16(a[i * k + kk]) * f32_from_bf16(b[j * k + kk]))
                    .sum();
                c[i * n + j] = bf16_from_f32(s);
            }
        }
        let exact = compare_exact(&c, &a, &b, (m, n, k), 200, 3);
        assert!(exact.passed(), "{exact:?}");
        assert!(exact.relative_frobenius < REL_EXACT);
        let same = compare_two_sides(&c, &c, n);
        assert!(same.passed() && same.relative_frobenius == 0.0);

        // Three ulps up on the largest element: an ulp is 2⁻⁸ to 2⁻⁷ of the value, so three
        // are at least 1.5 · 2⁻⁷ of it, past 2⁻⁷ of max(|x|, |y|) plus the small absolute term.
        // (One ulp is what two correct roundings may differ by; it passes.)
        let big = (0..c.len())
            .max_by(|&p, &q| {
                f32_from_bf16(c[p])
                    .abs()
                    .total_cmp(&f32_from_bf16(c[q]).abs())
            })
            .unwrap();
        let mut off = c.clone();
        off[big] += 3;
        let two = compare_two_sides(&off, &c, n);
        assert_eq!(two.outside, 1, "{two:?}");
        assert_eq!(
            two.first_outside.map(|f| (f.0, f.1)),
            Some((big / n, big % n))
        );

        let mut poisoned = c.clone();
        poisoned[m * n - 1] = POISON;
        assert_eq!(compare_two_sides(&poisoned, &c, n).outside, 1);
        // The corners are always sampled: the poisoned last element is found.
        assert_eq!(compare_exact(&poisoned, &a, &b, (m, n, k), 0, 3).outside, 1);
    }

    #[test]
    fn f64_to_bf16_rounds_once() {
        assert_eq!(bf16_from_f64(1.0), 0x3f80);
        // Just above the halfway point between 1 and 1 + 2⁻⁷ by less than f32 resolves: rounding
        // to f32 first would make it a tie and round down to 1.0; once, it rounds up.
        assert_eq!(bf16_from_f64(1.0 + 1.0 / 256.0 + 1e-12), 0x3f81);
        assert_eq!(bf16_from_f64(-(1.0 + 1.0 / 256.0 + 1e-12)), 0xbf81);
        assert_eq!(bf16_from_f64(1.0 + 1.0 / 256.0 - 1e-12), 0x3f80);
        assert_eq!(bf16_from_f64(1.0 + 1.0 / 256.0), 0x3f80);
        assert_eq!(bf16_from_f64(-2.5), 0xc020);
        assert!(f32_from_bf16(bf16_from_f64(f64::NAN)).is_nan());
        assert_eq!(bf16_from_f64(1e300), 0x7f80);
    }

    #[test]
    fn e4m3_inputs_are_exact_quarters() {
        let x = random_e4m3(10_000, 7);
        assert_eq!(x, random_e4m3(10_000, 7));
        assert_ne!(x, random_e4m3(10_000, 8));
        let t = e4m3_table();
        assert_eq!(t[0x38], 1.0);
        assert_eq!(t[0xb8], -1.0);
        assert_eq!(t[0x7e], 448.0);
        assert!(t[0x7f].is_nan() && t[0xff].is_nan());
        assert_eq!(t[0x01], 2f64.powi(-9));
        let v: Vec<f64> = x.iter().map(|&b| t[b as usize]).collect();
        assert!(
            v.iter()
                .all(|&f| (f * 4.0).fract() == 0.0 && f.abs() <= 4.0)
        );
        assert!(v.contains(&4.0) && v.contains(&-4.0) && v.contains(&0.25));
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.1, "mean {mean}");
    }

    /// An fp8 host GEMM (f32 accumulation in reverse order, scaled, rounded to bf16) is
    /// bit-identical to the reference at every sample; an element 5 % + 1 off, or poisoned,
    /// fails.
    #[test]
    fn e4m3_check_separates_rounding_from_errors() {
        let (m, n, k) = (16, 24, 1024);
        let a = random_e4m3(m * k, 1);
        let b = random_e4m3(n * k, 2);
        let t = e4m3_table();
        let (sa, sb) = (0.5f32, 0.25f32);
        let mut c = vec![0u16; m * n];
        for i in 0..m {
            for j in 0..n {
                let s: f32 = (0..k)
                    .rev()
                    .map(|kk| t[a[i * k + kk] as usize] as f32 * t[b[j * k + kk] as usize] as f32)
                    .sum();
                c[i * n + j] = bf16_from_f32(sa * sb * s);
            }
        }
        let scale = (sa * sb) as f64;
        let ok = compare_exact_e4m3(&c, &a, &b, scale, (m, n, k), 100, 3);
        assert!(ok.passed(), "{ok:?}");
        assert_eq!(ok.identical, ok.elements);
        assert_eq!((ok.max_abs, ok.max_rel), (0.0, 0.0));
        // The wrong scale (scale_a alone) is far outside.
        let wrong = compare_exact_e4m3(&c, &a, &b, sa as f64, (m, n, k), 100, 3);
        assert_eq!(wrong.outside, wrong.elements);
        let mut off = c.clone();
        off[0] = bf16_from_f32(f32_from_bf16(c[0]) * 1.05 + 1.0);
        let off = compare_exact_e4m3(&off, &a, &b, scale, (m, n, k), 0, 3);
        assert_eq!((off.outside, off.identical), (1, 3), "{off:?}");
        let mut poisoned = c.clone();
        poisoned[m * n - 1] = POISON;
        assert_eq!(
            compare_exact_e4m3(&poisoned, &a, &b, scale, (m, n, k), 0, 3).outside,
            1
        );
        let two = compare_two_sides(&c, &c, n);
        assert_eq!(two.identical, m * n);
    }
}
