//! The Hopper GEMM of `examples/gemm_hopper.rs`: simulated against a CPU reference (exact: the
//! inputs are small integers, whose products and sums f32 holds exactly, so the one rounding
//! is the final one to bf16), with the structure its PTX must have.

#[path = "../examples/gemm_hopper.rs"]
#[allow(dead_code)]
mod gemm_hopper;

use gemm_hopper::{
    Groups, Stream, Tiling, gemm_fp8, gemm_fp8_e5m2, gemm_fp8_promoted, gemm_hopper as kernel,
    grouped_arguments, grouped_gemm, grouped_reference, operand, reference, simulate, simulate_fp8,
    simulate_grouped, simulate_split, simulate_stream, simulate_tiling,
};
use phasegate::prelude::{bf16, f8e4m3, f8e5m2};
use phasegate::runtime::KernelSpec;
use phasegate::runtime::sim::{FindingKind, Launch, Outcome, simulate_spec};

#[test]
fn one_cluster_computes_the_exact_product() {
    let (m, n, k) = (256u32, 256u32, 128u32);
    let (a, b) = (operand(m, k, 3), operand(n, k, 4));
    let c = simulate(m, n, k, &a, &b, 2);
    let dims = (m as usize, n as usize, k as usize);
    assert_eq!(c, reference((&a, &b), dims, 1.0, bf16::to_f32));
}

#[test]
fn two_clusters_share_the_work_units_and_ragged_edges_are_clipped() {
    // 3 units for 2 clusters (one takes two, the ring wraps), K not a multiple of the 64 of a
    // stage, M and N not multiples of the tile: the loads fill zeros, the stores clip.
    let (m, n, k) = (384u32, 320u32, 200u32);
    let (a, b) = (operand(m, k, 5), operand(n, k, 6));
    let c = simulate(m, n, k, &a, &b, 4);
    let dims = (m as usize, n as usize, k as usize);
    assert_eq!(c, reference((&a, &b), dims, 1.0, bf16::to_f32));
}

#[test]
fn the_ptx_has_the_blueprint_structure() {
    let p = kernel::PTX;
    let count = |s: &str| p.matches(s).count();
    assert!(p.contains(".maxnreg 168"));
    assert!(p.contains(".reqnctapercluster 2, 1, 1"));
    assert!(p.contains("setmaxnreg.dec.sync.aligned.u32 \t40;"));
    assert!(p.contains("setmaxnreg.inc.sync.aligned.u32 \t232;"));
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"));
    assert!(count(".multicast::cluster") >= 1);
    assert!(
        count("mbarrier.arrive.shared::cluster.b64") >= 2,
        "releases on both CTAs"
    );
    assert!(
        !p.contains("release.cluster.shared::cluster"),
        "no GPU-wide fence per release"
    );
    assert!(p.contains("cvt.rn.bf16x2.f32"));
    assert!(p.contains("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"));
    assert_eq!(kernel::SPEC.dynamic_shared_bytes, 4 * 48 * 1024);
}

/// A and B of small integers for `m × n × k` (seeds `seed` and `seed + 1`) and their exact
/// product times `scale`, rounded once to bf16: what every kernel here must give bit for bit.
fn exact_problem(
    (m, n, k): (u32, u32, u32),
    seed: u32,
    scale: f32,
) -> (Vec<bf16>, Vec<bf16>, Vec<bf16>) {
    let (a, b) = (operand(m, k, seed), operand(n, k, seed + 1));
    let dims = (m as usize, n as usize, k as usize);
    let want = reference((&a, &b), dims, scale, bf16::to_f32);
    (a, b, want)
}

/// Small integers in e4m3 (exact there), as the fp8 kernels' bytes.
fn e4m3(v: &[bf16]) -> Vec<u8> {
    v.iter()
        .map(|x| f8e4m3::from_f32(x.to_f32()).to_bits())
        .collect()
}

/// The fp8 instances (stages of 128 of K, `m64n256k32` products, the scales on the f32 sums),
/// e4m3 and e5m2: exact on small integers (exact in both formats) over two clusters with ragged
/// edges, K not a multiple of the 128 of a stage (208: a row's stride is a multiple of 16
/// bytes, as tensor maps need).
#[test]
fn the_fp8_gemms_compute_the_exact_scaled_product() {
    let (m, n, k) = (384u32, 320u32, 208u32);
    let (a, b, want) = exact_problem((m, n, k), 7, 0.375);
    let e5m2 = |v: &[bf16]| {
        v.iter()
            .map(|x| f8e5m2::from_f32(x.to_f32()).to_bits())
            .collect()
    };
    for (spec, ab, form) in [
        (
            gemm_fp8::SPEC,
            (e4m3(&a), e4m3(&b)),
            "n256k32.f32.e4m3.e4m3",
        ),
        (
            gemm_fp8_e5m2::SPEC,
            (e5m2(&a), e5m2(&b)),
            "n256k32.f32.e5m2.e5m2",
        ),
        (
            gemm_fp8_promoted::SPEC,
            (e4m3(&a), e4m3(&b)),
            "n128k32.f32.e4m3.e4m3",
        ),
    ] {
        let c = simulate_fp8(&spec, (m, n, k), ab, 0.375, 4);
        assert!(c == want, "{}", spec.entry);
        let form = format!("wgmma.mma_async.sync.aligned.m64{form}");
        assert!(spec.ptx.contains(&form), "{}", spec.entry);
        assert!(spec.ptx.contains("mul.rn.f32"));
        assert_eq!(spec.dynamic_shared_bytes, 4 * 48 * 1024);
    }
}

/// The promoted fp8 GEMM over K of one to six stages of 128: the first stage alone (and the
/// second, where an odd number follow the first), the rest in pairs on two accumulators. Exact
/// on small integers, K ragged in its last stage.
#[test]
fn the_promoted_fp8_gemm_is_exact_over_any_count_of_stages() {
    let (m, n) = (256u32, 256u32);
    for k in [112u32, 240, 368, 512, 592, 720] {
        let (a, b, want) = exact_problem((m, n, k), 11, 0.375);
        let c = simulate_fp8(
            &gemm_fp8_promoted::SPEC,
            (m, n, k),
            (e4m3(&a), e4m3(&b)),
            0.375,
            2,
        );
        assert!(c == want, "K = {k} ({} stages)", k.div_ceil(128));
    }
}

/// The GEMM's own `unit_tile`, run in the simulator: each thread places one unit (`out[2u]`,
/// `out[2u + 1]`).
mod placement {
    use super::gemm_hopper::unit_tile;
    use phasegate::prelude::*;

    #[kernel]
    pub fn placed_units(out: &mut [u32], m_pairs: u32, n_tiles: u32) {
        let u = block_idx_x() * block_dim_x() + thread_idx_x();
        if u < m_pairs * n_tiles {
            let tile = unit_tile(u, m_pairs, n_tiles);
            out[2 * u] = tile[0];
            out[2 * u + 1] = tile[1];
        }
    }
}

/// Runs `placed_units`: the tiles of units `0..m_pairs · n_tiles`.
fn placed(m_pairs: u32, n_tiles: u32) -> Vec<[u32; 2]> {
    let units = m_pairs * n_tiles;
    let mut out = vec![0u32; 2 * units as usize];
    let launch = Launch {
        grid: (units.div_ceil(128), 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    };
    phasegate::runtime::sim::simulate(
        &placement::placed_units::SPEC,
        &launch,
        (&mut out, m_pairs, n_tiles),
    )
    .expect("runs")
    .expect_completed();
    out.chunks(2).map(|t| [t[0], t[1]]).collect()
}

/// `unit_tile` places every unit on its own tile of C, in strips of 8 row pairs (the last strip
/// what is left), a strip's tiles column after column: with fewer than 9 row pairs, one strip,
/// row pairs first. Checked against the grid in the simulator.
#[test]
fn unit_tile_places_every_tile_once_strip_by_strip() {
    let strip = 8u32;
    for m_pairs in [1u32, 3, 8, 9, 10, 17, 20] {
        for n_tiles in [1u32, 2, 5] {
            let mut seen = vec![false; (m_pairs * n_tiles) as usize];
            let mut last_strip = 0;
            for (u, &[row, col]) in placed(m_pairs, n_tiles).iter().enumerate() {
                let what = format!("{m_pairs}x{n_tiles}, unit {u}");
                assert!(row < m_pairs && col < n_tiles, "{what}: {row}, {col}");
                let at = (row * n_tiles + col) as usize;
                assert!(!seen[at], "{what}: tile {row}, {col} twice");
                seen[at] = true;
                // Strips in order; inside one, row pairs fastest, then columns.
                assert!(
                    row / strip >= last_strip,
                    "{what}: back to an earlier strip"
                );
                last_strip = row / strip;
                let first = row / strip * strip;
                let width = strip.min(m_pairs - first);
                let inside = u as u32 - first * n_tiles;
                assert_eq!(
                    [row, col],
                    [first + inside % width, inside / width],
                    "{what}"
                );
            }
        }
    }
}

/// Units go in strips of 8 row pairs (`unit_tile`): with 10 row pairs (the last strip 2 wide,
/// its last row pair ragged) and 2 column tiles, on 3 clusters, every tile of C is computed
/// once and exactly, by the unsplit and the split kernel, and by stream-K, whose whole tiles and
/// dealt pieces take the same order.
#[test]
fn units_in_strips_of_row_pairs_cover_c_exactly() {
    let (m, n, k) = (2400u32, 256u32, 128u32);
    let (a, b, want) = exact_problem((m, n, k), 51, 1.0);
    let c = simulate_tiling(Tiling::N128, (m, n, k), (&a, &b), 6);
    assert!(c == want, "128 columns, unsplit");
    let (c, counters) = simulate_split(Tiling::N128, (m, n, k), (&a, &b), 6, 2);
    assert!(c == want, "128 columns, two parts");
    assert!(counters.iter().all(|&x| x == 0), "{counters:?}");
    let stream = Stream::deal(Tiling::N256.units(m, n), k.div_ceil(64), 3);
    let (c, counters) = simulate_stream(Tiling::N256, (m, n, k), (&a, &b), 6, stream);
    assert!(c == want, "stream-K under {stream:?}");
    assert!(counters.iter().all(|&x| x == 0), "{counters:?}");
}

/// Every tiling computes the exact product on a ragged problem whose units outnumber the
/// clusters (each CTA's ring wraps across units).
#[test]
fn every_tiling_computes_the_exact_product() {
    let (m, n, k) = (384u32, 320u32, 200u32);
    let (a, b, want) = exact_problem((m, n, k), 9, 1.0);
    for tiling in Tiling::ALL {
        let c = simulate_tiling(tiling, (m, n, k), (&a, &b), 4);
        assert!(c == want, "{tiling:?} differs from the reference");
    }
}

/// The 160- and 144-column tilings store C through 32- and 16-column boxes (`stage_columns_32`
/// and `stage_columns_16`, the 64- and 32-byte swizzles): exact where the last column tile is
/// partly outside C (400 columns: 2.5 tiles of 160, 2.8 of 144, whose last has seven of its nine
/// blocks) and the rows ragged across a cluster's CTAs, with more units than clusters.
#[test]
fn the_narrow_tilings_store_c_in_narrow_blocks_exactly() {
    for (tiling, width) in [(Tiling::N160, 160u32), (Tiling::N144, 144)] {
        for (m, n, k) in [(300u32, 400u32, 136u32), (256, width, 64)] {
            let (a, b, want) = exact_problem((m, n, k), 23, 1.0);
            let c = simulate_tiling(tiling, (m, n, k), (&a, &b), 2);
            assert!(
                c == want,
                "{tiling:?} at {m}×{n}×{k} differs from the reference"
            );
        }
    }
}

/// The skinny tiling on what it is for: a few rows of A (fewer than a unit's 64, so the tensor
/// store clips C's columns of the product), B's rows ragged across the cluster's two CTAs, and
/// more units than clusters.
#[test]
fn the_skinny_tiling_computes_few_rows_exactly() {
    for (tiling, (m, n, k)) in [
        (Tiling::Skinny, (40u32, 600u32, 136u32)),
        (Tiling::Skinny, (130, 256, 64)),
        (Tiling::Skinny16, (5, 600, 136)),
        (Tiling::Skinny16, (16, 256, 64)),
        (Tiling::Skinny16, (1, 296, 200)),
        (Tiling::Skinny16, (40, 256, 128)),
        (Tiling::Skinny32, (20, 600, 136)),
        (Tiling::Skinny32, (32, 256, 64)),
    ] {
        let (a, b, want) = exact_problem((m, n, k), 21, 1.0);
        let c = simulate_tiling(tiling, (m, n, k), (&a, &b), 2);
        assert!(
            c == want,
            "{tiling:?} at {m}×{n}×{k} differs from the reference"
        );
    }
}

/// K split in parts: each part's tile stored, the last arrival of each tile adds the parts in
/// order and stores C, and every arrival counter is back at zero for the next launch. With
/// four clusters the parts of a tile run on different clusters, in the simulator's order of
/// clusters; with one, the same CTA takes every part and arrives last with the last one.
#[test]
fn a_split_k_computes_the_exact_product_and_leaves_its_counters_zero() {
    for (tiling, (m, n, k), splits) in [
        (Tiling::Skinny, (40u32, 256u32, 512u32), 4u32),
        (Tiling::Skinny, (64, 296, 328), 3),
        (Tiling::Skinny16, (16, 256, 512), 4),
        (Tiling::Skinny16, (11, 296, 328), 3),
        (Tiling::Skinny32, (32, 256, 512), 4),
        (Tiling::Skinny128, (100, 256, 256), 2),
        // A 64 × 128 accumulator sums parts 0..2 in one block and part 3 in the loop after it;
        // 16-row units sum eight in the block and the ninth and tenth in the loop.
        (Tiling::Skinny128, (100, 256, 256), 4),
        (Tiling::Skinny16, (16, 256, 640), 10),
        (Tiling::N128, (256, 128, 256), 2),
        (Tiling::N128, (200, 248, 192), 3),
    ] {
        let (a, b, want) = exact_problem((m, n, k), 31, 1.0);
        for ctas in [8, 2] {
            let (c, counters) = simulate_split(tiling, (m, n, k), (&a, &b), ctas, splits);
            assert!(
                c == want,
                "{tiling:?} {m}×{n}×{k} in {splits} parts on {ctas} CTAs differs from the reference"
            );
            assert!(
                !counters.is_empty() && counters.iter().all(|&x| x == 0),
                "{counters:?}"
            );
        }
    }
}

/// Stream-K: the tiles of full waves whole, the rest's stages dealt evenly, a tile in pieces
/// summed in the order of its stages by the warp group that arrives last, and the counters
/// back at zero. The schedules cut tiles into two and three pieces, with and without whole
/// tiles, with ragged M, N and K, on as many clusters as the schedule was dealt for and (the
/// same schedule) fewer CTAs than that where it fits.
#[test]
fn stream_k_computes_the_exact_product_and_leaves_its_counters_zero() {
    for (tiling, (m, n, k), clusters) in [
        // 4 tiles of 10 stages on 3 clusters: spans of 14, tiles 1 and 2 in two pieces.
        (Tiling::N256, (512u32, 512u32, 640u32), 3u32),
        // 5 tiles on 2 clusters: 2 whole, the other 3 dealt 15 stages a cluster.
        (Tiling::N256, (300, 696, 600), 2),
        // 1 tile of 10 stages on 3 clusters: three pieces of 4, 4 and 2.
        (Tiling::N256, (256, 256, 600), 3),
        // 192 columns, ragged: 2 × 2 tiles of 5 stages on 3 clusters.
        (Tiling::N192, (400, 296, 320), 3),
    ] {
        let stages = k.div_ceil(64);
        let stream = Stream::deal(tiling.units(m, n), stages, clusters);
        let (a, b, want) = exact_problem((m, n, k), 41, 1.0);
        let (c, counters) = simulate_stream(tiling, (m, n, k), (&a, &b), 2 * clusters, stream);
        assert!(
            c == want,
            "{tiling:?} {m}×{n}×{k} under {stream:?} on {clusters} clusters differs from the reference"
        );
        assert!(
            !counters.is_empty() && counters.iter().all(|&x| x == 0),
            "{counters:?}"
        );
    }
}

/// A tile's pieces are the multiples of the span strictly inside it, plus one: counted
/// against every cluster's run of stages.
#[test]
fn stream_k_pieces_are_the_runs_that_touch_a_tile() {
    for tiles in 1..12u32 {
        for stages in 1..20u32 {
            for clusters in 1..10u32 {
                let s = Stream::deal(tiles, stages, clusters);
                let dealt = tiles - s.whole;
                // Every dealt stage to exactly one cluster.
                assert!(s.span * clusters >= dealt * stages, "{s:?}");
                assert!(s.whole.is_multiple_of(clusters) && s.whole <= tiles);
                for t in 0..dealt {
                    let (begin, end) = (t * stages, t * stages + stages);
                    let runs = (0..clusters)
                        .filter(|c| c * s.span < end && (c + 1) * s.span > begin)
                        .count() as u32;
                    assert_eq!(s.pieces(t, stages), runs, "{s:?} tile {t} of {stages}");
                }
            }
        }
    }
}

/// Where the tiles leave the last wave part-full, stream-K is taken if at most an eighth of the
/// tiles are dealt and its estimate (the busiest cluster's stages and the cost of its pieces'
/// sums) is shorter.
#[test]
fn stream_k_is_taken_where_a_small_share_of_the_tiles_would_idle() {
    let plan = |m, n, k| {
        let t = Tiling::choose(m, n, k, 132);
        (t, t.stream(m, n, k, 132))
    };
    // 1024 tiles on 66 clusters: 14 waves whole, the last 100 tiles' stages dealt.
    assert_eq!(
        plan(8192, 8192, 8192),
        (
            Tiling::N256,
            Some(Stream {
                whole: 924,
                span: 194
            })
        )
    );
    assert_eq!(
        plan(8192, 14336, 4096),
        (
            Tiling::N256,
            Some(Stream {
                whole: 1716,
                span: 74
            })
        )
    );
    // Half of 4096³'s tiles, or every tile of 1536² × 8192, would be dealt: kept whole.
    assert_eq!(plan(4096, 4096, 4096).1, None);
    assert_eq!(plan(1536, 1536, 8192), (Tiling::N144, None));
    // A whole number of waves.
    assert_eq!(plan(256 * 66, 256, 4096).1, None);
    // Tilings without a stream-K kernel.
    assert_eq!(plan(1024, 1024, 1024).1, None);
}

/// Where the units leave at least half of the clusters idle, K is split to fill them, each
/// part at least 16 stages.
#[test]
fn k_is_split_where_units_leave_clusters_idle() {
    let plan = |m, n, k| {
        let t = Tiling::choose(m, n, k, 132);
        (t, t.splits(m, n, k, 132))
    };
    // 16 units of 64 rows of Cᵀ for 66 clusters: 4 parts of 16 stages; with 16 rows of A, units
    // of 16.
    assert_eq!(plan(16, 4096, 4096), (Tiling::Skinny16, 4));
    assert_eq!(plan(64, 4096, 4096), (Tiling::Skinny, 4));
    assert_eq!(plan(128, 4096, 4096), (Tiling::Skinny, 2));
    // B too large for L2 (112 MiB): the 128-row units, which read it once, in 4 parts.
    assert_eq!(plan(128, 4096, 14336), (Tiling::Skinny128, 4));
    // 32 units of 128 columns: at 4096 of K two parts of 32 stages; at 1024 one part (16
    // stages) would leave half the clusters idle, so 64 units of 64 columns instead.
    assert_eq!(plan(1024, 1024, 4096), (Tiling::N128, 2));
    assert_eq!(plan(1024, 1024, 1024), (Tiling::N64, 1));
    // Short K keeps parts of 16 stages: 1024 of K is one part, 2048 two.
    assert_eq!(plan(16, 4096, 1024), (Tiling::Skinny16, 1));
    assert_eq!(plan(16, 4096, 2048), (Tiling::Skinny16, 2));
    // Full waves, or tilings without a split kernel.
    assert_eq!(plan(4096, 4096, 4096), (Tiling::N256, 1));
    // 32 units of 128 rows of Cᵀ: 2 parts of 64 stages.
    assert_eq!(plan(128, 8192, 8192), (Tiling::Skinny128, 2));
    // 56 units: more than half the clusters busy.
    assert_eq!(plan(128, 14336, 4096), (Tiling::Skinny128, 1));
    // No part is empty, at any K the rule splits.
    for tiling in [
        Tiling::Skinny,
        Tiling::Skinny16,
        Tiling::Skinny32,
        Tiling::Skinny128,
        Tiling::N128,
    ] {
        for stages in 1..=400u32 {
            let splits = tiling.splits(16, 4096, stages * 64, 132);
            assert!(
                (splits - 1) * stages.div_ceil(splits) < stages,
                "{stages} in {splits}"
            );
        }
    }
}

/// The analyzer is silent on the instances' and the grouped GEMM's PTX (what `#[kernel]` ran on them, and what
/// `phasegate lint` reads).
#[test]
fn the_analyzer_is_silent_on_every_instance() {
    for spec in [
        kernel::SPEC,
        gemm_fp8::SPEC,
        gemm_fp8_e5m2::SPEC,
        grouped_gemm::SPEC,
        Tiling::N192.spec(),
        Tiling::N160.spec(),
        Tiling::N144.spec(),
        Tiling::N128.spec(),
        Tiling::N64.spec(),
        Tiling::Skinny.spec(),
        Tiling::Skinny.spec_split(2).expect("a split kernel"),
        Tiling::Skinny16.spec(),
        Tiling::Skinny16.spec_split(2).expect("a split kernel"),
        Tiling::Skinny32.spec(),
        Tiling::Skinny32.spec_split(2).expect("a split kernel"),
        Tiling::Skinny128.spec_split(2).expect("a split kernel"),
        Tiling::N128.spec_split(2).expect("a split kernel"),
        Tiling::N256.spec_stream().expect("a stream-K kernel"),
        Tiling::N192.spec_stream().expect("a stream-K kernel"),
    ] {
        let module = phasegate::ptx::parse(spec.ptx).unwrap_or_else(|e| panic!("{e}"));
        let found =
            phasegate::lints::lint_module(&module, &phasegate::lints::LintConfig::default());
        assert!(found.is_empty(), "{}: {found:#?}", spec.entry);
    }
}

/// Groups of every kind at once: empty ones (first, middle and last), one smaller than a tile,
/// one whose 128-row tiles are odd in number (the cluster's second CTA then loads only zeros
/// and stores nothing), one of several units; K not a multiple of the stage's 64. Two clusters
/// take 7 of the 14 units each, crossing groups, so every CTA rewrites its maps for new groups.
fn ragged_groups() -> Groups {
    Groups {
        rows: vec![0, 40, 0, 300, 128, 520, 0],
        n: 320,
        k: 200,
    }
}

#[test]
fn the_grouped_gemm_computes_each_groups_exact_product() {
    let p = ragged_groups();
    assert_eq!(
        p.units(),
        14,
        "two column tiles of 1 + 2 + 1 + 3 row-tile pairs"
    );
    let a = operand(p.total_rows(), p.k, 7);
    let b = operand(p.rows.len() as u32 * p.n, p.k, 8);
    let c = simulate_grouped(&p, &a, &b, 4);
    assert_eq!(c, grouped_reference(&p, &a, &b));
}

/// No groups at all, or only empty ones: no unit, nothing read past the offsets, C untouched.
#[test]
fn the_grouped_gemm_without_rows_does_nothing() {
    for rows in [vec![], vec![0, 0]] {
        let p = Groups {
            rows,
            n: 256,
            k: 64,
        };
        let b = operand(p.rows.len() as u32 * p.n, p.k, 2);
        let c = simulate_grouped(&p, &[], &b, 2);
        assert!(c.is_empty());
    }
}

/// The grouped GEMM's PTX rewrites each map in global memory and fences it both ways
/// (PTX ISA §9.7.9.26, §9.7.13.4), and its copies read the rewritten maps, not the templates.
#[test]
fn the_grouped_gemm_rewrites_its_maps_and_fences_them() {
    let ptx = grouped_gemm::SPEC.ptx;
    let count = |s: &str| ptx.matches(s).count();
    assert_eq!(
        count("tensormap.replace.tile.global_address.global.b1024.b64"),
        3
    );
    assert_eq!(
        count("tensormap.replace.tile.global_dim.global.b1024.b32"),
        2
    );
    assert_eq!(count("fence.proxy.tensormap::generic.release.gpu;"), 3);
    // The producer acquires A's and B's maps, the consumers C's.
    assert_eq!(count("fence.proxy.tensormap::generic.acquire.gpu"), 3);
    assert_eq!(count("prefetch.tensormap"), 0);
}

/// Without the acquire fences the copy engine may read a map as it was before
/// `tensormap.replace` wrote it: the simulator reports the first copy through one, with the
/// write that modified it (§9.7.13.4).
#[test]
fn a_rewritten_map_read_without_its_fence_is_a_simulator_finding() {
    let spec = grouped_gemm::SPEC;
    let ptx: Vec<&str> = spec
        .ptx
        .lines()
        .filter(|l| !l.contains("fence.proxy.tensormap::generic"))
        .collect();
    let unfenced = KernelSpec {
        ptx: Box::leak(ptx.join("\n").into_boxed_str()),
        ..spec
    };
    let p = Groups {
        rows: vec![100],
        n: 256,
        k: 64,
    };
    let a = operand(p.total_rows(), p.k, 1);
    let b = operand(p.n, p.k, 2);
    let mut args = grouped_arguments(&spec, &p, &a, &b);
    let launch = Launch {
        grid: (2, 1, 1),
        block: (384, 1, 1),
        ..Launch::default()
    };
    match simulate_spec(&unfenced, &launch, &mut args) {
        Ok(Outcome::Finding(report)) => {
            assert_eq!(report.kind, FindingKind::ProxyFenceMissing, "{report}");
            assert!(report.to_string().contains("tensormap.replace"), "{report}");
        }
        other => panic!("expected the missing fence, got {other:?}"),
    }
}

/// The tiling heuristic on an H100's or H200's 132 SMs: 256-column units where they fill the
/// clusters' waves, narrower ones where they leave clusters idle or a last wave nearly empty.
#[test]
fn the_tiling_follows_the_waves() {
    let choose = |m, n| Tiling::choose(m, n, 4096, 132);
    // 144 units of 256 columns on 66 clusters: 3 waves, the last 18 % full; 192 units of 192
    // columns fill 3 waves to 97 %.
    assert_eq!(Tiling::N256.units(3072, 3072), 144);
    assert_eq!(choose(3072, 3072), Tiling::N192);
    // 16 units for 66 clusters: 128 columns make 32, and K long enough to split them in two.
    assert_eq!(choose(1024, 1024), Tiling::N128);
    // K too short to split (16 stages): one wave of the narrowest units that fit in it, for
    // a product this small is its units' K loop.
    assert_eq!(Tiling::choose(1024, 1024, 1024, 132), Tiling::N64);
    assert_eq!(Tiling::choose(768, 768, 512, 132), Tiling::N64);
    // Too many 64-column units for one wave: kept.
    assert_eq!(Tiling::choose(256, 8192, 1024, 132), Tiling::N128);
    // More than half the clusters busy: kept.
    assert_eq!(Tiling::choose(2048, 2048, 1024, 132), Tiling::N256);
    // Few rows of A, short K: the transposed tilings, the narrower while it fits one wave.
    assert_eq!(Tiling::choose(128, 8192, 1024, 132), Tiling::Skinny);
    assert_eq!(Tiling::choose(16, 4096, 1024, 132), Tiling::Skinny16);
    // 160 or 144 columns where the machine takes their units in fuller waves than 128's or
    // 192's: 1536 columns are 11 tiles of 144 (6 row pairs: 66 units for 66 clusters), 10 of
    // 160 (60 units), 8 of 192 (48 units); 2560 are 16 tiles of 160 (4 row pairs: 64 units),
    // 18 of 144 (72: two waves). Where 128 columns fill the waves as well, they are kept.
    assert_eq!(Tiling::N144.units(1536, 1536), 66);
    assert_eq!(choose(1536, 1536), Tiling::N144);
    assert_eq!(choose(768, 3072), Tiling::N144);
    assert_eq!(choose(1024, 2560), Tiling::N160);
    assert_eq!(choose(512, 5120), Tiling::N160);
    assert_eq!(choose(2048, 5120), Tiling::N128);
    // One row pair and 32 units: 64 of 128 columns.
    assert_eq!(choose(256, 8192), Tiling::N128);
    // Full waves already, or gains inside the margin.
    for (m, n) in [
        (2048, 2048),
        (4096, 4096),
        (8192, 8192),
        (4000, 4000),
        (5000, 3000),
    ] {
        assert_eq!(choose(m, n), Tiling::N256, "{m}×{n}");
    }
    // Few rows of A: the transposed tilings, which pad them to 64 or 128 rather than 256. At
    // most 64 rows, 64 a unit; at 128, 64 a unit while that leaves clusters idle (their
    // shared reads go faster), else 128.
    for (m, n) in [(64, 8192), (64, 4096), (128, 4096), (64, 28672), (33, 8192)] {
        assert_eq!(choose(m, n), Tiling::Skinny, "{m}×{n}");
    }
    for (m, n) in [(17, 8192), (32, 4096), (32, 28672)] {
        assert_eq!(choose(m, n), Tiling::Skinny32, "{m}×{n}");
    }
    // At most 16 rows: units of 16 rows, which stream B as often and leave no box of A wholly
    // past M; never for more rows, where they would stream B once per 16 of them.
    for (m, n) in [(1, 4096), (16, 8192), (16, 28672)] {
        assert_eq!(choose(m, n), Tiling::Skinny16, "{m}×{n}");
    }
    assert!(!Tiling::Skinny16.takes(17) && Tiling::Skinny16.takes(16));
    assert!(!Tiling::Skinny32.takes(33) && Tiling::Skinny32.takes(32));
    // No unit whose second CTA's box of A would lie wholly past M: not 32-row units for 16
    // rows, 64-row ones for 32, 128-row ones for 64, nor 256-row (M-major) ones for 128.
    assert!(!Tiling::Skinny32.takes(16) && Tiling::Skinny32.takes(17));
    assert!(!Tiling::Skinny.takes(32) && Tiling::Skinny.takes(33));
    assert!(!Tiling::Skinny128.takes(64) && Tiling::Skinny128.takes(65));
    assert!(!Tiling::N64.takes(128) && Tiling::N64.takes(129));
    // So 64 rows of A and 1024 columns take transposed 64-row units in four parts, not 64
    // units of 256 rows by 64 columns half past M.
    assert_eq!(Tiling::choose(64, 1024, 4096, 132), Tiling::Skinny);
    // B past L2: a transposed tiling that would read it more than once where the 128-row
    // one reads it once is not taken; B within L2, it may be.
    assert!(!Tiling::Skinny.reads_b_once(128, 4096, 14336));
    assert!(Tiling::Skinny128.reads_b_once(128, 4096, 14336));
    assert!(Tiling::Skinny.reads_b_once(128, 4096, 4096));
    assert!(Tiling::Skinny.reads_b_once(192, 4096, 14336));
    for (m, n, k) in [(128, 4096, 14336), (100, 4096, 14336), (128, 4096, 8192)] {
        assert_eq!(
            Tiling::choose(m, n, k, 132),
            Tiling::Skinny128,
            "{m}×{n}×{k}"
        );
    }
    for (m, n) in [(128, 8192), (128, 14336), (128, 28672)] {
        assert_eq!(choose(m, n), Tiling::Skinny128, "{m}×{n}");
    }
    assert_eq!(Tiling::Skinny.units(64, 8192), 32);
    assert_eq!(Tiling::Skinny128.units(128, 14336), 56);
    // Fewer SMs (a smaller part): 4096² fills 16 waves of 16 clusters exactly.
    assert_eq!(Tiling::choose(4096, 4096, 4096, 32), Tiling::N256);
}

/// With promotion, each stage's product is added into the f32 total (`add.rn.f32`, 64
/// registers a thread at 128 columns) once its group is complete: the stages after the first in
/// pairs, the second's product running while the first's is added (one `wgmma.wait_group 1`,
/// through `wait_behind`), each pair ending with no group in flight; the next product overwrites
/// the registers it is computed in (scale-d 0), so ptxas keeps the wgmmas asynchronous (no
/// C7514: `tests/ptxas.rs` fails on it).
#[test]
fn the_promoted_fp8_gemm_sums_each_stage_in_f32() {
    let ptx = gemm_fp8_promoted::SPEC.ptx;
    assert_eq!(ptx.matches("wgmma.wait_group.sync.aligned \t1;").count(), 1);
    assert!(
        ptx.matches("add.rn.f32").count() >= 4 * 64,
        "the single stages', the pairs' two and the last stage's adds"
    );
    let without = gemm_fp8::SPEC.ptx;
    assert_eq!(without.matches("add.rn.f32").count(), 0);
}
