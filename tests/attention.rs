//! The attention kernels of `examples/attention_hopper.rs`: simulated against an f64 reference
//! on ragged heads, causal and not, under more than one schedule; the PTX forms they rely on;
//! and the analyzer's silence on them.

#[path = "../examples/attention_hopper.rs"]
#[allow(dead_code)]
mod attention_hopper;

use attention_hopper::{Kernel, Problem, errors, grid, reference, simulate, tensor};
use phasegate::runtime::sim::{Launch, Policy, Schedule};

fn check(kernel: Kernel, p: Problem, launch: &Launch) -> (Vec<half::bf16>, Vec<f32>) {
    let (q, k, v) = (tensor(p, 7), tensor(p, 8), tensor(p, 9));
    let (o, lse) = simulate(kernel, p, &q, &k, &v, launch).unwrap_or_else(|e| panic!("{p:?}: {e}"));
    let (o_ref, lse_ref) = reference(p, &q, &k, &v);
    let (o_max, o_rel) = errors(o.iter().map(|x| x.to_f64()), &o_ref);
    let (l_max, _) = errors(lse.iter().map(|&x| x as f64), &lse_ref);
    // P is rounded to bf16 before P · V and O once more at the end: a few 2⁻⁸ relative.
    assert!(
        o_rel < 5e-3 && o_max < 1e-2,
        "{p:?}: O error {o_max:e} (relative {o_rel:e})"
    );
    // The log-sum-exp is f32 throughout (ex2 and lg2 are exact in the simulator).
    assert!(l_max < 1e-4, "{p:?}: log-sum-exp error {l_max:e}");
    (o, lse)
}

#[test]
fn ragged_heads_match_the_reference_causal_and_not() {
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
            // As on a GPU of 2 SMs (2 CTAs striding over the work items), and more CTAs than
            // items.
            for grid in [grid(kernel, p, 2), (6, 1, 1)] {
                let launch = Launch {
                    grid,
                    ..Launch::default()
                };
                check(kernel, p, &launch);
            }
        }
    }
}

#[test]
fn a_persistent_causal_launch_strides_over_items_of_two_tiles() {
    // 5 tiles × 3 heads: items of tiles (4, 0), (3, 1) and (2) alone, on 2 CTAs.
    let p = Problem {
        heads: 3,
        seq: 600,
        d: 64,
        causal: true,
    };
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
        assert!(again.0 == base.0, "{policy:?} seed {seed}: O differs");
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

#[test]
fn the_heuristic_picks_the_tile_height_by_length() {
    let p = |seq| Problem {
        heads: 1,
        seq,
        d: 64,
        causal: false,
    };
    assert_eq!(Kernel::for_problem(p(512)), Some(Kernel::Hd64Short));
    assert_eq!(Kernel::for_problem(p(2048)), Some(Kernel::Hd64));
    let causal = |seq| Problem {
        causal: true,
        ..p(seq)
    };
    assert_eq!(Kernel::for_problem(causal(2048)), Some(Kernel::Hd64Short));
    assert_eq!(Kernel::for_problem(causal(8192)), Some(Kernel::Hd64));
    assert_eq!(Kernel::for_problem(Problem { d: 96, ..p(512) }), None);
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
}

#[test]
fn the_analyzer_is_silent_on_every_kernel() {
    for kernel in Kernel::ALL {
        let (name, (ptx, _)) = (kernel.name(), kernel.ptx());
        let module = phasegate::ptx::parse(ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found =
            phasegate::lints::lint_module(&module, &phasegate::lints::LintConfig::default());
        assert!(found.is_empty(), "{name}: {found:#?}");
    }
}
