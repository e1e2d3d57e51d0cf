//! The example kernels (`examples/*.rs`) simulated from their `#[kernel]` PTX and compared with
//! a CPU reference: scale and transpose exactly, dot within 1e-5 relative.

#[path = "../examples/dot.rs"]
#[allow(dead_code)]
mod dot;
#[path = "../examples/scale.rs"]
#[allow(dead_code)]
mod scale;
#[path = "../examples/transpose.rs"]
#[allow(dead_code)]
mod transpose;

use phasegate::runtime::sim::{self, ArgValue, Launch, Outcome, Policy, Schedule};

fn lcg(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            ((s >> 8) as i32 - (1 << 23)) as f32 / (1 << 16) as f32
        })
        .collect()
}

#[test]
fn scale_with_typed_arguments() {
    let n = 1000u32;
    let x = lcg(n as usize, 1);
    let mut y = vec![0.0f32; n as usize];
    let launch = Launch {
        grid: (n.div_ceil(128), 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    };
    let stats = sim::simulate(&scale::scale::SPEC, &launch, (&x, &mut y, 2.5f32, n))
        .expect("runs")
        .expect_completed();
    assert!(stats.thread_instructions > n as u64);
    for i in 0..n as usize {
        assert_eq!(y[i], 2.5 * x[i], "y[{i}]");
    }
}

#[test]
fn scale_leaves_elements_past_n_alone() {
    let x = lcg(100, 2);
    let mut args = vec![
        ArgValue::buffer(&x),
        ArgValue::buffer(&[7.0f32; 100]),
        ArgValue::F32(-1.0),
        ArgValue::U32(60),
    ];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    };
    sim::simulate_spec(&scale::scale::SPEC, &launch, &mut args)
        .expect("runs")
        .expect_completed();
    let y: Vec<f32> = args[1].read();
    assert!(y[..60].iter().zip(&x).all(|(a, b)| *a == -b));
    assert!(y[60..].iter().all(|v| *v == 7.0));
}

#[test]
fn transpose_is_exact_under_every_policy() {
    for (w, h) in [(70usize, 45usize), (32, 32), (1, 100)] {
        let input = lcg(w * h, 3);
        for schedule in [
            Schedule {
                policy: Policy::RoundRobin,
                seed: 0,
            },
            Schedule {
                policy: Policy::Random,
                seed: 5,
            },
            Schedule {
                policy: Policy::Pct { depth: 3 },
                seed: 9,
            },
        ] {
            let mut out = vec![0.0f32; w * h];
            let launch = Launch {
                grid: (w.div_ceil(32) as u32, h.div_ceil(32) as u32, 1),
                block: (32, 8, 1),
                schedule,
                ..Launch::default()
            };
            let outcome = sim::simulate(
                &transpose::transpose::SPEC,
                &launch,
                (&input, &mut out, w as u32, h as u32),
            )
            .expect("runs");
            assert!(outcome.is_completed(), "{outcome:?}");
            for r in 0..h {
                for c in 0..w {
                    assert_eq!(
                        out[c * h + r],
                        input[r * w + c],
                        "{w}x{h} output[{c}][{r}] under {schedule}"
                    );
                }
            }
        }
    }
}

#[test]
fn dot_partials_sum_to_the_reference() {
    let n = 10_000usize;
    let x = lcg(n, 10);
    let y = lcg(n, 11);
    let grid = 6u32;
    let mut partial = vec![0.0f32; grid as usize];
    let launch = Launch {
        grid: (grid, 1, 1),
        block: (256, 1, 1),
        ..Launch::default()
    };
    let stats = sim::simulate(&dot::dot::SPEC, &launch, (&x, &y, &mut partial, n as u32))
        .expect("runs")
        .expect_completed();
    assert_eq!(
        stats.barrier_phases,
        grid as u64 * 9,
        "one sync_threads before the tree and one per level"
    );
    let got: f64 = partial.iter().map(|v| *v as f64).sum();
    let want: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
    let mag: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (*a as f64 * *b as f64).abs())
        .sum();
    assert!((got - want).abs() <= 1e-5 * mag, "got {got}, want {want}");
}

#[test]
fn spec_arguments_are_checked() {
    let mut args = vec![
        ArgValue::U32(1),
        ArgValue::zeroed(4),
        ArgValue::F32(1.0),
        ArgValue::U32(1),
    ];
    let err = sim::simulate_spec(&scale::scale::SPEC, &Launch::default(), &mut args)
        .expect_err("a u32 for a slice");
    assert!(
        err.to_string()
            .contains("parameter `x` of `scale` takes a buffer of 4-byte elements, given u32"),
        "{err}"
    );
}

#[test]
fn removing_the_barrier_of_transpose_is_a_race() {
    let text = transpose::transpose::PTX.replace("bar.sync \t0;", "");
    assert_ne!(text, transpose::transpose::PTX);
    let (w, h) = (32usize, 32usize);
    let mut args = vec![
        ArgValue::buffer(&lcg(w * h, 4)),
        ArgValue::zeroed(w * h * 4),
        ArgValue::U32(w as u32),
        ArgValue::U32(h as u32),
    ];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (32, 8, 1),
        ..Launch::default()
    };
    let outcome = sim::simulate_ptx(&text, "transpose", &launch, &mut args).expect("runs");
    let Outcome::Finding(report) = outcome else {
        panic!("expected a race")
    };
    assert_eq!(report.kind, sim::FindingKind::SharedRace, "{report}");
}

#[path = "../examples/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;
#[path = "../examples/producer_consumer.rs"]
#[allow(dead_code)]
mod producer_consumer;

#[test]
fn bulk_copy_pipeline_example() {
    // The example: 2 CTAs of 160 threads; each block reuses its 4 stages.
    let tiles = 10u32;
    let x: Vec<[f32; 4]> = (0..tiles * 1024)
        .map(|i| [i as f32, -(i as f32), 0.5 * i as f32, 1.0])
        .collect();
    let mut y = vec![[0.0f32; 4]; x.len()];
    let spec = pipeline::scale_pipeline::SPEC;
    for schedule in [
        Schedule {
            policy: Policy::RoundRobin,
            seed: 0,
        },
        Schedule {
            policy: Policy::Random,
            seed: 3,
        },
        Schedule {
            policy: Policy::Pct { depth: 3 },
            seed: 4,
        },
    ] {
        // The spec's dynamic shared memory comes with it, as on the GPU.
        let launch = Launch {
            grid: (2, 1, 1),
            block: (160, 1, 1),
            schedule,
            ..Launch::default()
        };
        let stats = sim::simulate(&spec, &launch, (&x, &mut y, 2.0f32, tiles))
            .expect("runs")
            .expect_completed();
        assert_eq!(stats.async_ops, tiles as u64);
        for (i, (a, b)) in x.iter().zip(&y).enumerate() {
            assert_eq!(
                *b,
                [2.0 * a[0], 2.0 * a[1], 2.0 * a[2], 2.0 * a[3]],
                "y[{i}] under {schedule}"
            );
        }
    }
}

#[test]
fn producer_consumer_example() {
    let rounds = 5u32;
    let mut out = vec![0u32; (2 * rounds * 32) as usize];
    let launch = Launch {
        grid: (2, 1, 1),
        block: (64, 1, 1),
        ..Launch::default()
    };
    let stats = sim::simulate(
        &producer_consumer::producer_consumer::SPEC,
        &launch,
        (&mut out, rounds),
    )
    .expect("runs")
    .expect_completed();
    assert_eq!(stats.barrier_phases, 2 * (2 * rounds as u64 - 1));
    for b in 0..2 {
        for r in 0..rounds {
            for lane in 0..32 {
                assert_eq!(
                    out[(b * rounds * 32 + r * 32 + lane) as usize],
                    2 * (r * 32 + lane)
                );
            }
        }
    }
}

#[path = "../examples/multicast.rs"]
#[allow(dead_code)]
mod multicast;

/// One multicast copy fills the shared memory of both CTAs of each cluster.
#[test]
fn multicast_copy_reaches_every_cta_of_the_mask() {
    let x: Vec<f32> = (0..256).map(|i| i as f32 * 0.25 - 3.0).collect();
    let mut out = vec![f32::NAN; 512];
    let launch = Launch {
        grid: (4, 1, 1),
        block: (128, 1, 1),
        cluster: Some((2, 1, 1)),
        ..Launch::default()
    };
    multicast::multicast_tile::simulate(&launch, (&x[..], &mut out[..]))
        .unwrap_or_else(|e| panic!("{e}"));
    for b in 0..4 {
        for t in 0..128 {
            assert_eq!(
                out[b * 128 + t],
                x[(b / 2) * 128 + t],
                "block {b} thread {t}"
            );
        }
    }
}
