//! The grouped (mixture-of-experts) mode's problems: what `--grouped` names, the row offsets
//! and work units the kernel is given, and the sampled float64 check per group.
//!
//! Group g has `M_g` rows (tokens routed to expert g), all groups share N and K. A is every
//! group's rows concatenated, row-major `[ΣM, K]`; B is `[G, N, K]` (expert g's weights are
//! rows `g·N .. (g+1)·N`); C is `[ΣM, N]`; `C_g = A_g · B_gᵀ` with f32 accumulation, rounded
//! once to bf16. Empty groups are allowed (an expert no token was routed to): they own no rows
//! of A or C, and a kernel must step over them.

use crate::numeric::{self, Comparison};

/// One grouped problem: the row counts of its groups and the shared N and K.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouped {
    /// What the output and the rounds log call it: the preset's name, or `gG_NxK_mROWS`.
    pub label: String,
    /// Columns of C, rows of each expert's B.
    pub n: usize,
    /// The reduction.
    pub k: usize,
    /// Rows of each group (0 allowed).
    pub groups: Vec<usize>,
}

/// The rows × columns of C one work unit covers, as the kernel's `maps` workspace is sized
/// (`units = Σ_g ⌈M_g / 256⌉ · ⌈N / 256⌉`; a cluster of two CTAs, 128 rows each, per unit).
pub const UNIT: usize = 256;
/// 128-byte tensor-map slots the kernel's `maps` workspace holds per work unit.
pub const SLOTS_PER_UNIT: usize = 6;

impl Grouped {
    /// ΣM: rows of A and C.
    pub fn rows(&self) -> usize {
        self.groups.iter().sum()
    }

    /// The `G + 1` prefix sums the kernel takes as `offsets` (`offsets[0] = 0`,
    /// `offsets[g + 1] = offsets[g] + M_g`), u32 as the kernel reads them.
    pub fn offsets(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.groups.len() + 1);
        let mut at = 0u32;
        out.push(at);
        for &m in &self.groups {
            at += m as u32;
            out.push(at);
        }
        out
    }

    /// `(g, first row, rows)` of each non-empty group.
    pub fn nonempty(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        let offsets = self.offsets();
        self.groups
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m > 0)
            .map(move |(g, &m)| (g, offsets[g] as usize, m))
    }

    /// Tiles of `rows × cols` over every group's C (each group's rows start a new tile).
    pub fn tiles(&self, rows: usize, cols: usize) -> usize {
        let per_group: usize = self.groups.iter().map(|m| m.div_ceil(rows)).sum();
        per_group * self.n.div_ceil(cols)
    }

    /// The kernel's work units, `Σ_g ⌈M_g / 256⌉ · ⌈N / 256⌉`.
    pub fn units(&self) -> usize {
        self.tiles(UNIT, UNIT)
    }

    /// Bytes of the kernel's `maps` workspace: [`SLOTS_PER_UNIT`] 128-byte slots per unit.
    pub fn maps_bytes(&self) -> usize {
        SLOTS_PER_UNIT * self.units().max(1) * 128
    }

    /// Floating-point operations, `2 · ΣM · N · K`.
    pub fn flops(&self) -> f64 {
        2.0 * self.rows() as f64 * self.n as f64 * self.k as f64
    }

    /// The groups' row counts, shortened past 12 groups.
    pub fn describe(&self) -> String {
        let shown: Vec<String> = self.groups.iter().take(12).map(|m| m.to_string()).collect();
        let more = if self.groups.len() > 12 { ",..." } else { "" };
        let empty = self.groups.iter().filter(|&&m| m == 0).count();
        format!(
            "{}: {} groups (M = {}{more}; {empty} empty), ΣM = {}, N = {}, K = {}",
            self.label,
            self.groups.len(),
            shown.join(","),
            self.rows(),
            self.n,
            self.k
        )
    }
}

/// The named problems `--grouped` takes: (name, what it stands for). Row counts are fixed
/// lists or a fixed formula, so every run measures the same problem.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "moe8-4k",
        "8 experts, N = K = 4096, 16352 tokens, ragged (no count a multiple of 128), one expert empty",
    ),
    (
        "moe8-7k",
        "8 experts, N = 4096, K = 7168, 32643 tokens, ragged, one expert empty",
    ),
    (
        "moe64-up",
        "64 small experts, N = 4096, K = 7168 (DeepSeek-V3's fused gate/up projection), 64..512 tokens each, one empty",
    ),
    (
        "moe64-down",
        "64 small experts, N = 7168, K = 2048 (DeepSeek-V3's down projection), the same tokens as moe64-up",
    ),
    (
        "edges",
        "a small check of the edges, not for timing: N = 512, K = 256, M = 1,0,127,128,129,300,0,256",
    ),
];

/// The token counts of the 64-expert presets: `64 + h(g) mod 449` (64 to 512) with a fixed
/// multiplicative hash, expert 37 empty.
fn small_experts() -> Vec<usize> {
    (0..64u64)
        .map(|g| {
            if g == 37 {
                0
            } else {
                let h = g.wrapping_mul(0x9e37_79b9).wrapping_add(0x3c6e_f372) >> 11;
                64 + (h % 449) as usize
            }
        })
        .collect()
}

/// The preset called `name`.
pub fn preset(name: &str) -> Option<Grouped> {
    let (n, k, groups) = match name {
        "moe8-4k" => (
            4096,
            4096,
            vec![2477, 0, 1777, 3311, 1203, 2957, 1638, 2989],
        ),
        "moe8-7k" => (
            4096,
            7168,
            vec![5127, 3001, 0, 6533, 2749, 4099, 7411, 3723],
        ),
        "moe64-up" => (4096, 7168, small_experts()),
        "moe64-down" => (7168, 2048, small_experts()),
        "edges" => (512, 256, vec![1, 0, 127, 128, 129, 300, 0, 256]),
        _ => return None,
    };
    Some(Grouped {
        label: name.to_string(),
        n,
        k,
        groups,
    })
}

/// One `--grouped` value: a preset's name, `all` (the four MoE presets, not `edges`), or
/// `NxK:M1,M2,...` (row counts of the groups, 0 allowed).
pub fn parse_grouped(s: &str) -> Result<Vec<Grouped>, String> {
    let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
    if s == "all" {
        return Ok(names
            .iter()
            .filter(|&&n| n != "edges")
            .filter_map(|n| preset(n))
            .collect());
    }
    if let Some(p) = preset(s) {
        return Ok(vec![p]);
    }
    let Some((nk, list)) = s.split_once(':') else {
        return Err(format!(
            "grouped problem `{s}`: expected a preset ({}, all) or NxK:M1,M2,... e.g. 4096x4096:512,0,1777",
            names.join(", ")
        ));
    };
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("grouped problem `{s}`: `{t}` is not a non-negative integer"))
    };
    let Some((n, k)) = nk.split_once('x') else {
        return Err(format!(
            "grouped problem `{s}`: expected NxK before the `:`"
        ));
    };
    let (n, k) = (num(n)?, num(k)?);
    if n == 0 || k == 0 || !n.is_multiple_of(8) || !k.is_multiple_of(8) {
        return Err(format!(
            "grouped problem `{s}`: N and K must be positive multiples of 8 (tensor-map rows are 16-byte multiples)"
        ));
    }
    let groups = list.split(',').map(num).collect::<Result<Vec<_>, _>>()?;
    let g = Grouped {
        label: format!(
            "g{}_{n}x{k}_m{}",
            groups.len(),
            groups.iter().sum::<usize>()
        ),
        n,
        k,
        groups,
    };
    check(&g).map_err(|e| format!("grouped problem `{s}`: {e}"))?;
    Ok(vec![g])
}

/// What the kernel's u32 parameters and cuBLAS's int sizes can hold.
fn check(g: &Grouped) -> Result<(), String> {
    if g.rows() == 0 {
        return Err("every group is empty".into());
    }
    let limit = i32::MAX as usize;
    if g.rows() > limit || g.n > limit || g.k > limit || g.groups.len() > limit {
        return Err(format!(
            "sizes past {limit} (the kernel takes u32, cuBLAS int)"
        ));
    }
    Ok(())
}

/// Every group's C against float64 sums of sampled elements (`numeric::compare_exact` on the
/// group's slices of A, B and C), `samples` elements shared out over the non-empty groups (at
/// least 8 a group, plus each group's four corners, where a kernel's group boundaries would go
/// wrong first). The result is one comparison: counts summed, worst values the largest over
/// the groups, and `first_outside` in rows of the whole C.
pub fn compare_exact_grouped(
    c: &[u16],
    a: &[u16],
    b: &[u16],
    g: &Grouped,
    samples: usize,
    seed: u64,
) -> Comparison {
    let (n, k) = (g.n, g.k);
    let count = g.nonempty().count().max(1);
    let each = (samples / count).max(8);
    let mut all: Option<Comparison> = None;
    for (e, row0, m) in g.nonempty() {
        let one = numeric::compare_exact(
            &c[row0 * n..(row0 + m) * n],
            &a[row0 * k..(row0 + m) * k],
            &b[e * n * k..(e + 1) * n * k],
            (m, n, k),
            each,
            seed.wrapping_add(e as u64),
        );
        all = Some(match all {
            None => Comparison {
                first_outside: one.first_outside.map(|(i, j, x, y)| (i + row0, j, x, y)),
                ..one
            },
            Some(acc) => merge(acc, one, row0),
        });
    }
    all.unwrap_or_else(|| numeric::compare_two_sides(&[], &[], 1))
}

/// `acc` and a group's comparison `one` (whose rows start at `row0`) as one.
fn merge(acc: Comparison, one: Comparison, row0: usize) -> Comparison {
    Comparison {
        elements: acc.elements + one.elements,
        outside: acc.outside + one.outside,
        first_outside: acc
            .first_outside
            .or(one.first_outside.map(|(i, j, x, y)| (i + row0, j, x, y))),
        worst_fraction_of_bound: acc.worst_fraction_of_bound.max(one.worst_fraction_of_bound),
        // Not a Frobenius norm over all groups (the groups' norms are not kept): the worst
        // group's.
        relative_frobenius: acc.relative_frobenius.max(one.relative_frobenius),
        identical: acc.identical + one.identical,
        max_abs: acc.max_abs.max(one.max_abs),
        max_rel: acc.max_rel.max(one.max_rel),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::{POISON, bf16_from_f32, f32_from_bf16, random_bf16};

    #[test]
    fn presets_parse_and_are_what_they_say() {
        let all = parse_grouped("all").unwrap();
        assert_eq!(all.len(), 4);
        for p in PRESETS {
            let g = preset(p.0).unwrap();
            assert_eq!(parse_grouped(p.0).unwrap(), vec![g.clone()]);
            assert!(g.groups.contains(&0), "{}: one group empty", p.0);
            assert!(check(&g).is_ok());
        }
        let m8 = preset("moe8-4k").unwrap();
        assert_eq!(m8.rows(), 16352);
        assert!(m8.groups.iter().all(|&m| m == 0 || m % 128 != 0));
        assert_eq!(preset("moe8-7k").unwrap().rows(), 32643);
        let up = preset("moe64-up").unwrap();
        assert_eq!(up.groups.len(), 64);
        assert_eq!(up.groups, preset("moe64-down").unwrap().groups);
        assert!(
            up.groups
                .iter()
                .enumerate()
                .all(|(g, &m)| (g == 37) == (m == 0) && (m == 0 || (64..=512).contains(&m)))
        );
        // Spread over the range, not bunched: some below 128, some above 448.
        assert!(up.groups.iter().any(|&m| (1..128).contains(&m)));
        assert!(up.groups.iter().any(|&m| m > 448));
        // The same on every call (the formula, no state).
        assert_eq!(small_experts(), small_experts());
    }

    #[test]
    fn lists_offsets_units_and_errors() {
        let g = &parse_grouped("4096x512:512,0,1777,1").unwrap()[0];
        assert_eq!(g.label, "g4_4096x512_m2290");
        assert_eq!((g.n, g.k, g.rows()), (4096, 512, 2290));
        assert_eq!(g.offsets(), [0, 512, 512, 2289, 2290]);
        assert_eq!(
            g.nonempty().collect::<Vec<_>>(),
            [(0, 0, 512), (2, 512, 1777), (3, 2289, 1)]
        );
        // ⌈512/256⌉ + 0 + ⌈1777/256⌉ + ⌈1/256⌉ = 2 + 7 + 1 row units, 16 column units.
        assert_eq!(g.units(), 10 * 16);
        assert_eq!(g.maps_bytes(), 6 * 160 * 128);
        assert_eq!(g.tiles(128, 256), (4 + 14 + 1) * 16);
        assert_eq!(g.flops(), 2.0 * 2290.0 * 4096.0 * 512.0);
        assert!(parse_grouped("4096x512:0,0").unwrap_err().contains("empty"));
        assert!(
            parse_grouped("4096x12:5")
                .unwrap_err()
                .contains("multiples of 8")
        );
        assert!(parse_grouped("4096x512:5,x").unwrap_err().contains("`x`"));
        assert!(parse_grouped("moe9").unwrap_err().contains("moe8-4k"));
        assert!(parse_grouped("4096:5").unwrap_err().contains("NxK"));
    }

    /// A host grouped GEMM passes the per-group check; wrong expert weights for one group, or
    /// a poisoned element, fail it at the right row.
    #[test]
    fn the_per_group_check_finds_a_wrong_group() {
        let g = &parse_grouped("16x64:5,0,9,3").unwrap()[0];
        let (n, k, rows) = (g.n, g.k, g.rows());
        let a = random_bf16(rows * k, 1);
        let b = random_bf16(g.groups.len() * n * k, 2);
        let gemm = |expert_of: &dyn Fn(usize) -> usize| {
            let mut c = vec![0u16; rows * n];
            for (e, row0, m) in g.nonempty() {
                let w = expert_of(e);
                for i in row0..row0 + m {
                    for j in 0..n {
                        let s: f32 = (0..k)
                            .map(|kk| {
                                f32_from_bf16(a[i * k + kk])
                                    * f32_from_bf16(b[(w * n + j) * k + kk])
                            })
                            .sum();
                        c[i * n + j] = bf16_from_f32(s);
                    }
                }
            }
            c
        };
        let c = gemm(&|e| e);
        let ok = compare_exact_grouped(&c, &a, &b, g, 64, 7);
        assert!(ok.passed(), "{ok:?}");
        // Three non-empty groups, 64 / 3 = 21 samples and 4 corners each.
        assert_eq!(ok.elements, 3 * 25);
        // Group 3 (rows 14..17) multiplied by expert 2's weights.
        let wrong = gemm(&|e| if e == 3 { 2 } else { e });
        let bad = compare_exact_grouped(&wrong, &a, &b, g, 64, 7);
        assert_eq!(bad.first_outside.map(|f| f.0 >= 14), Some(true), "{bad:?}");
        let mut poisoned = c.clone();
        poisoned[14 * n] = POISON;
        let p = compare_exact_grouped(&poisoned, &a, &b, g, 0, 7);
        // (A random sample may pick the corner again.)
        assert!(p.outside >= 1);
        assert_eq!(p.first_outside.map(|f| (f.0, f.1)), Some((14, 0)));
    }
}
