//! The attention kernels of `examples/attention_hopper.rs`: simulated against an f64 reference
//! on ragged heads, causal and not, under more than one schedule; the PTX forms they rely on;
//! and the analyzer's silence on them.

#[path = "../examples/attention_hopper.rs"]
#[allow(dead_code)]
mod attention_hopper;

use attention_hopper::{
    EXACT_SCALE_LOG2, Half, Kernel, Problem, TileSchedule, arguments, errors, exact, grid, launch,
    reference, reference_scaled, simulate, tensor,
};
use phasegate::runtime::KernelSpec;
use phasegate::runtime::sim::{FindingKind, Launch, Outcome, Policy, Schedule, simulate_spec};

fn check(kernel: Kernel, p: Problem, launch: &Launch) -> (Vec<f32>, Vec<f32>) {
    check_in((kernel, Half::Bf16), p, launch)
}

fn check_in(kernel: (Kernel, Half), p: Problem, launch: &Launch) -> (Vec<f32>, Vec<f32>) {
    let (q, k, v) = (tensor(p, 7), tensor(p, 8), tensor(p, 9));
    let (o, lse) = simulate(kernel, p, (&q, &k, &v), p.scale_log2(), launch)
        .unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let (o_ref, lse_ref) = reference(p, &q, &k, &v);
    let (o_max, o_rel) = errors(o.iter().map(|&x| x as f64), &o_ref);
    let (l_max, _) = errors(lse.iter().map(|&x| x as f64), &lse_ref);
    // P is rounded before P · V and O once more at the end: a few 2⁻⁸ relative in bf16, a few
    // 2⁻¹¹ in f16 (so an f16 kernel rounding P to bf16 fails here).
    let (rel, max) = match kernel.1 {
        Half::Bf16 => (5e-3, 1e-2),
        Half::F16 => (8e-4, 2e-3),
    };
    assert!(
        o_rel < rel && o_max < max,
        "{kernel:?} {p:?}: O error {o_max:e} (relative {o_rel:e})"
    );
    // The log-sum-exp is f32 throughout (ex2 and lg2 are exact in the simulator).
    assert!(l_max < 1e-4, "{p:?}: log-sum-exp error {l_max:e}");
    (o, lse)
}

/// Every kernel in `half` on heads of 300 rows, causal and not, on each of `grids` (made from the
/// kernel and the problem).
fn ragged_heads(half: Half, grids: impl Fn(Kernel, Problem) -> Vec<(u32, u32, u32)>) {
    for kernel in Kernel::ALL {
        for causal in [false, true] {
            // Three query tiles of 128 rows (two of 192), the last of them ragged: the key
            // loop stops at the diagonal (causal) or runs over every key tile with the last
            // one's columns masked.
            let p = Problem {
                heads: 2,
                seq: 300,
                d: kernel.head_dim(),
                causal,
            };
            for grid in grids(kernel, p) {
                let launch = Launch {
                    grid,
                    ..Launch::default()
                };
                check_in((kernel, half), p, &launch);
            }
        }
    }
}

#[test]
fn ragged_heads_match_the_reference_causal_and_not() {
    // As on a GPU of 2 SMs (2 CTAs striding over the work items), and more CTAs than items.
    ragged_heads(Half::Bf16, |kernel, p| vec![grid(kernel, p, 2), (6, 1, 1)]);
}

/// The f16 kernels (the same macro with f16 stages, P rounded to f16 and `.f16` products) on
/// the same heads, persistent on 2 CTAs.
#[test]
fn f16_kernels_match_the_reference_causal_and_not() {
    ragged_heads(Half::F16, |kernel, p| vec![grid(kernel, p, 2)]);
}

/// The model's time of the busiest CTA if every CTA took a head's tiles `t` and `T − 1 − t`
/// together, dealt round robin (the kernel's order before [`TileSchedule`]).
fn pairs_round_robin(kernel: Kernel, p: Problem, ctas: u32) -> u64 {
    let t = p.seq.div_ceil(kernel.query_rows());
    let cost = |tile| TileSchedule::tile_cost(kernel, p, tile);
    // A head's pairs, the middle tile of an odd count alone.
    let per_head: Vec<u64> = (0..t.div_ceil(2))
        .map(|last| match t - 1 - last {
            first if first == last => cost(last),
            first => cost(last) + cost(first),
        })
        .collect();
    let mut load = vec![0u64; ctas as usize];
    for (i, cost) in (0..p.heads).flat_map(|_| per_head.iter()).enumerate() {
        load[i % ctas as usize] += cost;
    }
    load.into_iter().max().unwrap_or(0)
}

#[test]
fn a_schedule_takes_every_tile_once_and_balances_the_last_wave() {
    // The benchmark's problems (16 k tokens, heads of 2048 / d columns) on 132 SMs.
    for kernel in Kernel::ALL {
        for seq in [512, 2048, 8192, 16384] {
            for causal in [false, true] {
                let p = Problem {
                    heads: 16384 / seq * (2048 / kernel.head_dim()),
                    seq,
                    d: kernel.head_dim(),
                    causal,
                };
                let (ctas, _, _) = grid(kernel, p, 132);
                let schedule = TileSchedule::new(kernel, p, ctas).expect("a schedule");
                let mut tiles = schedule.lists().concat();
                tiles.sort_unstable();
                let t = seq.div_ceil(kernel.query_rows());
                assert!(
                    tiles.iter().copied().eq(0..t * p.heads),
                    "{kernel:?} {p:?}: every tile once"
                );
                let total: u64 = (0..t)
                    .map(|tile| TileSchedule::tile_cost(kernel, p, tile))
                    .sum::<u64>()
                    * u64::from(p.heads);
                let ideal = total as f64 / f64::from(ctas);
                let span = schedule.makespan(kernel, p);
                let pairs = pairs_round_robin(kernel, p, ctas);
                if causal {
                    // Pairs dealt round robin leave the last wave's SMs idle (0.73 of the
                    // ideal for 192-row tiles at 512 tokens, 0.94-0.97 elsewhere); the
                    // schedule is within 3.5 % of the ideal balance at every length.
                    assert!(span <= pairs, "{kernel:?} {p:?}: {span} against {pairs}");
                    assert!(
                        ideal / span as f64 > 0.965,
                        "{kernel:?} {p:?}: {span} against the ideal {ideal}"
                    );
                }
                // The model's time against the ideal (`--nocapture` prints the table).
                println!(
                    "{kernel:?} s {seq} causal {causal}: {span} ({:.3}), pairs round robin {pairs} ({:.3})",
                    ideal / span as f64,
                    ideal / pairs as f64
                );
            }
        }
    }
}

/// The GPU benchmark (`tools/gpu-attention/bench.py`, Python on a machine without Rust) deals
/// the tiles by a port of [`TileSchedule`]: the two give the same words.
#[test]
fn the_benchmark_deals_the_tiles_as_the_host_does() {
    let problems = [
        (Kernel::Hd64Short, 512, 1024, true, 132),
        (Kernel::Hd64, 2048, 256, true, 132),
        (Kernel::Hd64, 300, 3, true, 7),
        (Kernel::Hd128, 8192, 32, true, 114),
        (Kernel::Hd256, 600, 5, true, 4),
        (Kernel::Hd256, 2048, 64, false, 132),
    ];
    let mut script =
        String::from("import sys\nsys.path.insert(0, 'tools/gpu-attention')\nimport bench\n");
    for (kernel, seq, heads, causal, ctas) in problems {
        script += &format!(
            "print(' '.join(map(str, bench.tile_schedule({}, {}, {seq}, {}, {heads}, {}, {ctas}))))\n",
            kernel.query_rows(),
            kernel.key_rows(),
            kernel.head_dim(),
            causal as u32
        );
    }
    let out = std::process::Command::new("python3")
        .args(["-c", &script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .expect("text")
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), problems.len());
    for ((kernel, seq, heads, causal, ctas), line) in problems.into_iter().zip(lines) {
        let p = Problem {
            heads,
            seq,
            d: kernel.head_dim(),
            causal,
        };
        let schedule = TileSchedule::new(kernel, p, ctas).expect("a schedule");
        let python: Vec<u32> = line
            .split(' ')
            .map(|w| w.parse().expect("a word"))
            .collect();
        assert!(
            python == schedule.words(),
            "{kernel:?} {p:?} on {ctas} CTAs"
        );
    }
}

#[test]
fn a_persistent_causal_launch_takes_pairs_and_single_tiles() {
    // 5 tiles × 3 heads: pairs of tiles (4, 0), (3, 1) and tile 2 alone, on 2 CTAs; the schedule
    // deals the last of them as single tiles, the longest first.
    let p = Problem {
        heads: 3,
        seq: 600,
        d: 64,
        causal: true,
    };
    let schedule = TileSchedule::new(Kernel::Hd64Short, p, 2).expect("a schedule");
    assert!(
        schedule.makespan(Kernel::Hd64Short, p) < pairs_round_robin(Kernel::Hd64Short, p, 2),
        "{schedule:?}"
    );
    let launch = Launch {
        grid: (2, 1, 1),
        ..Launch::default()
    };
    check(Kernel::Hd64Short, p, &launch);
}

#[test]
fn key_tiles_of_64_rows_reach_the_diagonal_and_the_ragged_end() {
    // Head dimension 256 takes key tiles of 64 rows: two per query tile, the second fully
    // masked for the first warp group; 130 rows end inside the third key tile.
    for causal in [true, false] {
        let p = Problem {
            heads: 1,
            seq: 130,
            d: 256,
            causal,
        };
        check(
            Kernel::Hd256,
            p,
            &Launch {
                grid: grid(Kernel::Hd256, p, 2),
                ..Launch::default()
            },
        );
    }
}

#[test]
fn query_tiles_of_192_rows_cross_key_tiles_of_128() {
    // Three consumer warp groups: the diagonal of a 192-row tile runs through two key tiles,
    // and the second query tile's warp groups start at rows 192, 256 and 320 of key tile 1
    // and 2.
    let p = Problem {
        heads: 1,
        seq: 400,
        d: 64,
        causal: true,
    };
    check(
        Kernel::Hd64,
        p,
        &Launch {
            grid: (1, 1, 1),
            ..Launch::default()
        },
    );
}

#[test]
fn other_schedules_give_the_same_bits() {
    let p = Problem {
        heads: 1,
        seq: 256,
        d: 64,
        causal: true,
    };
    // One CTA for the one item of both tiles.
    let one = Launch {
        grid: (1, 1, 1),
        ..Launch::default()
    };
    let base = check(Kernel::Hd64Short, p, &one);
    for (policy, seed) in [(Policy::Random, 3), (Policy::Pct { depth: 2 }, 5)] {
        let launch = Launch {
            schedule: Schedule { policy, seed },
            ..one.clone()
        };
        let again = check(Kernel::Hd64Short, p, &launch);
        // Each thread sums in program order, whatever the order of the warps.
        assert!(
            again
                .0
                .iter()
                .zip(&base.0)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{policy:?} seed {seed}: O differs"
        );
        assert!(
            again
                .1
                .iter()
                .zip(&base.1)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{policy:?} seed {seed}: log-sum-exp differs"
        );
    }
}

/// On the exact inputs every rounding is exact but O's final one, so the simulator must give
/// the closed form's bits: the inputs the GPU differential (`examples/gpu_differential.rs`)
/// compares the simulator and the GPU on, checked here without a GPU.
#[test]
fn exact_inputs_give_the_closed_form_bit_for_bit() {
    let halves = Kernel::ALL
        .map(|k| (k, Half::Bf16))
        .into_iter()
        .chain(Kernel::ALL.map(|k| (k, Half::F16)));
    for (kernel, half) in halves {
        // One head shorter than a tile (its query rows past 64 read zeros, its key columns
        // past 64 are masked), and two heads of several key tiles, the even one's maximum
        // rising from tile to tile.
        for (heads, seq) in [(1, 64), (2, 512)] {
            let p = Problem {
                heads,
                seq,
                d: kernel.head_dim(),
                causal: false,
            };
            let want = exact(p, 11).unwrap_or_else(|e| panic!("{e}"));
            let launch = Launch {
                grid: grid(kernel, p, 3),
                ..Launch::default()
            };
            let (o, lse) = simulate(
                (kernel, half),
                p,
                (&want.q, &want.k, &want.v),
                EXACT_SCALE_LOG2,
                &launch,
            )
            .unwrap_or_else(|e| panic!("{p:?}: {e}"));
            let name = kernel.with(half).entry;
            let wrong = o
                .iter()
                .zip(&want.o)
                .position(|(a, &b)| a.to_bits() != half.round(b).to_bits());
            assert!(
                wrong.is_none(),
                "{name} {p:?}: O differs first at {wrong:?}"
            );
            let wrong = lse
                .iter()
                .zip(&want.lse)
                .position(|(a, b)| a.to_bits() != b.to_bits());
            assert!(
                wrong.is_none(),
                "{name} {p:?}: log-sum-exp differs first at {wrong:?}"
            );
        }
    }
}

/// The head dimension 256 kernel rescales lazily (`lazy_rescale::<8>()`): a row's maximum moves
/// only when a tile's passes it by more than 2^8. With a sharp softmax (`scale_log2` = 4, where
/// the scores spread over tens of powers of two) rows pass their maxima by more than that in
/// later key tiles, so the rescaling runs mid-row as well as skipped, and the output still
/// matches the reference.
#[test]
fn lazy_rescaling_moves_the_maximum_past_its_threshold() {
    let scale_log2 = 4.0f32;
    for causal in [false, true] {
        let p = Problem {
            heads: 2,
            seq: 300,
            d: 256,
            causal,
        };
        let (q, k, v) = (tensor(p, 7), tensor(p, 8), tensor(p, 9));
        // Some row's maximum over its first key tiles is passed by more than 8 (in log2
        // units) by a later tile's: the case where the lazy softmax must rescale.
        let (s, d) = (p.seq as usize, p.d as usize);
        let score = |h: usize, i: usize, j: usize| {
            (0..d)
                .map(|c| q[(h * s + i) * d + c].to_f32() * k[(h * s + j) * d + c].to_f32())
                .sum::<f32>()
                * scale_log2
        };
        let rises = (0..p.heads as usize)
            .flat_map(|h| (0..s).map(move |i| (h, i)))
            .filter(|&(h, i)| {
                let keys = if causal { i + 1 } else { s };
                let tiles: Vec<f32> = (0..keys)
                    .collect::<Vec<_>>()
                    .chunks(64)
                    .map(|t| t.iter().map(|&j| score(h, i, j)).fold(f32::MIN, f32::max))
                    .collect();
                tiles
                    .iter()
                    .skip(1)
                    .scan(tiles[0], |max, &t| {
                        let rise = t - *max;
                        *max = max.max(t);
                        Some(rise)
                    })
                    .any(|rise| rise > 8.0)
            })
            .count();
        assert!(
            rises > 0,
            "causal {causal}: no row passes its maximum by 2^8"
        );
        let launch = Launch {
            grid: grid(Kernel::Hd256, p, 3),
            ..Launch::default()
        };
        let (o, lse) = simulate(
            (Kernel::Hd256, Half::Bf16),
            p,
            (&q, &k, &v),
            scale_log2,
            &launch,
        )
        .unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let scale = f64::from(scale_log2) * std::f64::consts::LN_2;
        let (o_ref, lse_ref) = reference_scaled(p, (&q, &k, &v), scale);
        let (o_max, o_rel) = errors(o.iter().map(|&x| x as f64), &o_ref);
        let (l_max, _) = errors(lse.iter().map(|&x| x as f64), &lse_ref);
        assert!(
            o_rel < 5e-3 && o_max < 1e-2,
            "causal {causal}, {rises} rows rescaled mid-row: O error {o_max:e} (relative {o_rel:e})"
        );
        assert!(l_max < 1e-4, "causal {causal}: log-sum-exp error {l_max:e}");
    }
}

/// The exact inputs refuse what would not be exact.
#[test]
fn exact_inputs_refuse_causal_masks_and_ragged_lengths() {
    let p = Problem {
        heads: 1,
        seq: 256,
        d: 64,
        causal: true,
    };
    assert!(exact(p, 1).is_err());
    assert!(
        exact(
            Problem {
                seq: 300,
                causal: false,
                ..p
            },
            1
        )
        .is_err()
    );
    assert!(exact(Problem { causal: false, ..p }, 1).is_ok());
}

/// The hand-over that `Turn::pass` makes, dropped from the PTX (where the language would not
/// compile it): the other warp group waits for its turn forever, which the simulator reports as
/// a deadlock on the named barrier, with the state of the barrier each group waits on.
#[test]
fn a_skipped_hand_over_deadlocks_in_the_simulator() {
    let kernel = Kernel::Hd64Short;
    let spec = kernel.spec();
    // The first pass: `bar.arrive` on the other group's barrier (a register id) for the 256
    // threads of the two groups.
    let lines: Vec<&str> = spec.ptx.lines().collect();
    let pass = lines
        .iter()
        .position(|l| l.trim_start().starts_with("bar.arrive \t%r") && l.ends_with(", 256;"))
        .expect("a hand-over in the PTX");
    let ptx = [&lines[..pass], &lines[pass + 1..]].concat().join("\n");
    let skipped = KernelSpec {
        ptx: Box::leak(ptx.into_boxed_str()),
        ..spec
    };
    let p = Problem {
        heads: 1,
        seq: 256,
        d: 64,
        causal: false,
    };
    let (q, k, v) = (tensor(p, 1), tensor(p, 2), tensor(p, 3));
    let mut args =
        arguments((kernel, Half::Bf16), p, (&q, &k, &v), p.scale_log2(), 1).expect("arguments");
    match simulate_spec(&skipped, &launch(kernel, (1, 1, 1)), &mut args) {
        Ok(Outcome::Finding(report)) => {
            assert_eq!(report.kind, FindingKind::Deadlock, "{report}");
            let text = report.to_string();
            assert!(
                text.contains("bar.sync") || text.contains("named barrier"),
                "{text}"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn the_heuristic_picks_the_tile_height_by_length() {
    let p = |seq| Problem {
        heads: 1,
        seq,
        d: 64,
        causal: false,
    };
    assert_eq!(Kernel::for_problem(p(512)), Some(Kernel::Hd64));
    assert_eq!(Kernel::for_problem(p(2048)), Some(Kernel::Hd64));
    let causal = |seq| Problem {
        causal: true,
        ..p(seq)
    };
    assert_eq!(Kernel::for_problem(causal(512)), Some(Kernel::Hd64Short));
    assert_eq!(Kernel::for_problem(causal(1024)), Some(Kernel::Hd64Short));
    assert_eq!(Kernel::for_problem(causal(2048)), Some(Kernel::Hd64));
    assert_eq!(Kernel::for_problem(causal(8192)), Some(Kernel::Hd64));
    assert_eq!(Kernel::for_problem(Problem { d: 96, ..p(512) }), None);
    // Head dimension 128: key tiles of 176 rows on long rows without a mask only.
    let d128 = |seq, causal| Problem {
        d: 128,
        causal,
        ..p(seq)
    };
    assert_eq!(Kernel::for_problem(d128(2048, false)), Some(Kernel::Hd128));
    assert_eq!(Kernel::for_problem(d128(4095, false)), Some(Kernel::Hd128));
    assert_eq!(
        Kernel::for_problem(d128(4096, false)),
        Some(Kernel::Hd128Wide)
    );
    assert_eq!(
        Kernel::for_problem(d128(16384, false)),
        Some(Kernel::Hd128Wide)
    );
    assert_eq!(Kernel::for_problem(d128(16384, true)), Some(Kernel::Hd128));
}

/// The wide kernel's products: S of 176 columns, P · V over 11 steps of 16 keys.
#[test]
fn the_wide_kernel_multiplies_176_key_rows() {
    let p = attention_hopper::attention_hd128_wide::PTX;
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16"));
    let spec = Kernel::Hd128Wide.spec();
    // Two stages each of K and V (176 x 128 bf16) and one of Q (128 x 128): 208 KB.
    assert_eq!(spec.dynamic_shared_bytes, (2 * 2 * 176 + 128) * 128 * 2);
}

#[test]
fn the_ptx_has_the_forms_the_schedule_needs() {
    let p = attention_hopper::attention_hd128::PTX;
    // S = Q · Kᵀ from shared memory: both descriptors.
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16"));
    // O += P · V: A from four registers, B transposed (the last immediate 1).
    let rs = p
        .lines()
        .filter(|l| l.contains("wgmma.mma_async") && l.matches('{').count() == 2)
        .count();
    assert_eq!(
        rs, 16,
        "one register-A wgmma per 16 keys of a 128-key tile, in the loop and after it"
    );
    // The softmax of tile j starts when only the previous tile's P · V is pending.
    assert!(p.contains("wgmma.wait_group.sync.aligned \t1;"));
    assert!(p.contains("ex2.approx.ftz.f32"));
    assert!(p.contains("shfl.sync.bfly.b32"));
    assert!(p.contains("cvt.rn.bf16x2.f32"));
    // The ping-pong: a sync on this group's barrier, an arrive on the other's.
    assert!(p.contains("bar.sync \t%r") && p.contains("bar.arrive \t%r"));
    assert!(p.contains("setmaxnreg.inc.sync.aligned.u32 \t232;"));
    assert!(p.contains("cp.async.bulk.tensor.4d.shared::cluster.global"));
    // Only the head dimension 256 kernel rescales lazily: a warp's vote, and a uniform branch
    // around the output's rescaling.
    assert!(!p.contains("vote.sync"));
    let lazy = attention_hopper::attention_hd256::PTX;
    assert_eq!(lazy.matches("vote.sync.any.pred").count(), 2);
    assert_eq!(lazy.matches(" bra.uni").count(), 2);
}

/// The f16 kernels: the same schedule, with `.f16` products and P and O rounded to f16.
#[test]
fn the_f16_ptx_multiplies_and_rounds_in_f16() {
    let p = attention_hopper::attention_hd128_f16::PTX;
    assert!(p.contains("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16"));
    assert!(p.contains("cvt.rn.f16x2.f32"));
    assert!(!p.contains("bf16"), "an f16 kernel has no bf16 left");
}

#[test]
fn the_analyzer_is_silent_on_every_kernel() {
    let specs = Kernel::ALL.map(|k| k.with(Half::Bf16));
    for spec in specs
        .into_iter()
        .chain(Kernel::ALL.map(|k| k.with(Half::F16)))
    {
        let (name, ptx) = (spec.entry, spec.ptx);
        let module = phasegate::ptx::parse(ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found =
            phasegate::lints::lint_module(&module, &phasegate::lints::LintConfig::default());
        assert!(found.is_empty(), "{name}: {found:#?}");
    }
}
