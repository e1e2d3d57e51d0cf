//! nvcc's PTX for the fixtures in `tests/fixtures/cuda/`, simulated and compared with a CPU
//! reference computed here (the same checks as each fixture's `FIXTURE_MAIN` on the GPU).

use phasegate_sim::{ArgValue, Launch, Outcome, Policy, Schedule, simulate_ptx};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/../tests/fixtures/ptx/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Deterministic inputs (the fixtures' LCG).
fn lcg(n: usize, seed: u32, f: impl Fn(u32) -> f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            f(s)
        })
        .collect()
}

fn run(name: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) -> phasegate_sim::Stats {
    match simulate_ptx(&fixture(name), entry, launch, args) {
        Ok(Outcome::Completed(stats)) => stats,
        Ok(Outcome::Finding(r)) => panic!("{name}: unexpected finding:\n{r}"),
        Err(e) => panic!("{name}: {e}"),
    }
}

fn schedules() -> Vec<Schedule> {
    vec![
        Schedule {
            policy: Policy::RoundRobin,
            seed: 0,
        },
        Schedule {
            policy: Policy::Random,
            seed: 7,
        },
        Schedule {
            policy: Policy::Pct { depth: 3 },
            seed: 11,
        },
    ]
}

#[test]
fn scale_ref_matches_the_cpu() {
    let n = 1000usize;
    let x = lcg(n, 1, |s| (s >> 8) as f32 / 4096.0 - 2000.0);
    let a = -3.137_286_6f32;
    let mut args = vec![
        ArgValue::buffer(&x),
        ArgValue::zeroed(n * 4),
        ArgValue::F32(a),
        ArgValue::U32(n as u32),
    ];
    run(
        "scale_ref.ptx",
        "scale",
        &Launch {
            grid: (4, 1, 1),
            block: (256, 1, 1),
            ..Launch::default()
        },
        &mut args,
    );
    let y: Vec<f32> = args[1].read();
    for i in 0..n {
        assert_eq!(y[i], a * x[i], "y[{i}]");
    }
}

#[test]
fn transpose_ref_matches_the_cpu() {
    let (w, h) = (70usize, 45usize);
    let input = lcg(w * h, 3, |s| (s >> 9) as f32);
    let mut args = vec![
        ArgValue::buffer(&input),
        ArgValue::zeroed(w * h * 4),
        ArgValue::U32(w as u32),
        ArgValue::U32(h as u32),
    ];
    for schedule in schedules() {
        let launch = Launch {
            grid: (w.div_ceil(32) as u32, h.div_ceil(32) as u32, 1),
            block: (32, 8, 1),
            schedule,
            ..Launch::default()
        };
        args[1] = ArgValue::zeroed(w * h * 4);
        run("transpose_ref.ptx", "transpose", &launch, &mut args);
        let out: Vec<f32> = args[1].read();
        for r in 0..h {
            for c in 0..w {
                assert_eq!(
                    out[c * h + r],
                    input[r * w + c],
                    "output[{c}][{r}] under {schedule}"
                );
            }
        }
    }
}

#[test]
fn dot_ref_matches_the_cpu() {
    let n = 5000usize;
    let x = lcg(n, 5, |s| (s >> 8) as f32 / (1 << 24) as f32 - 0.5);
    let y = lcg(n, 6, |s| (s >> 8) as f32 / (1 << 24) as f32);
    let grid = 4;
    let mut args = vec![
        ArgValue::buffer(&x),
        ArgValue::buffer(&y),
        ArgValue::zeroed(grid * 4),
        ArgValue::U32(n as u32),
    ];
    run(
        "dot_ref.ptx",
        "dot",
        &Launch {
            grid: (grid as u32, 1, 1),
            block: (256, 1, 1),
            ..Launch::default()
        },
        &mut args,
    );
    let got: f64 = args[2].read::<f32>().iter().map(|v| *v as f64).sum();
    let want: f64 = x.iter().zip(&y).map(|(a, b)| *a as f64 * *b as f64).sum();
    let mag: f64 = x
        .iter()
        .zip(&y)
        .map(|(a, b)| (*a as f64 * *b as f64).abs())
        .sum();
    assert!((got - want).abs() / mag < 1e-5, "got {got}, want {want}");
}

#[test]
fn block_reduce_sums_and_counts() {
    let n: usize = 256 * 3 + 77;
    let blocks = n.div_ceil(256);
    let x = lcg(n, 12345, |s| {
        ((s >> 8) as i32 - (1 << 23)) as f32 / (1 << 23) as f32
    });
    let mut args = vec![
        ArgValue::buffer(&x),
        ArgValue::zeroed(blocks * 4),
        ArgValue::zeroed(blocks * 4),
        ArgValue::U32(n as u32),
    ];
    let stats = run(
        "block_reduce.ptx",
        "block_reduce",
        &Launch {
            grid: (blocks as u32, 1, 1),
            block: (256, 1, 1),
            ..Launch::default()
        },
        &mut args,
    );
    assert_eq!(
        stats.barrier_phases,
        blocks as u64 * 9,
        "one bar.red and eight bar.sync per block"
    );
    let sums: Vec<f32> = args[1].read();
    let pos: Vec<u32> = args[2].read();
    for b in 0..blocks {
        let part = &x[b * 256..((b + 1) * 256).min(n)];
        let want: f64 = part.iter().map(|v| *v as f64).sum();
        let mag: f64 = part.iter().map(|v| v.abs() as f64).sum();
        assert!(
            (sums[b] as f64 - want).abs() / mag < 1e-5,
            "block {b}: {} vs {want}",
            sums[b]
        );
        assert_eq!(
            pos[b],
            part.iter().filter(|v| **v > 0.0).count() as u32,
            "popc of block {b}"
        );
    }
}

#[test]
fn named_barriers_producer_consumer() {
    let (blocks, iters) = (3usize, 5usize);
    let n = blocks * 2 * iters * 32;
    let mut x = lcg(n, 777, |s| (s >> 8) as f32 / (1 << 24) as f32);
    for (i, v) in x.iter_mut().enumerate() {
        let b = i / (2 * iters * 32);
        if b % 3 == 1 && i % 97 == 5 {
            *v = -*v - 0.5;
        }
        if b == 2 && i % 101 == 7 {
            *v = -5000.0;
        }
    }
    for schedule in schedules() {
        let mut args = vec![
            ArgValue::buffer(&x),
            ArgValue::zeroed(n * 4),
            ArgValue::zeroed(blocks * 8),
            ArgValue::U32(iters as u32),
        ];
        let launch = Launch {
            grid: (blocks as u32, 1, 1),
            block: (128, 1, 1),
            schedule,
            ..Launch::default()
        };
        run("named_barriers.ptx", "named_barriers", &launch, &mut args);
        let y: Vec<f32> = args[1].read();
        for i in 0..n {
            assert_eq!(y[i], 2.0 * x[i] + 1.0, "y[{i}] under {schedule}");
        }
        let flags: Vec<i32> = args[2].read();
        for b in 0..blocks {
            let part = &x[b * 2 * iters * 32..(b + 1) * 2 * iters * 32];
            assert_eq!(
                flags[2 * b] != 0,
                part.iter().all(|v| *v > -1000.0),
                "and-flag of block {b}"
            );
            assert_eq!(
                flags[2 * b + 1] != 0,
                part.iter().any(|v| *v < 0.0),
                "or-flag of block {b}"
            );
        }
    }
}

#[test]
fn mbarrier_pipeline_scales_every_tile() {
    // 6 tiles (the last partial) over 2 blocks: each block reuses its first stages.
    for (n, grid) in [(4096 * 5 + 1000, 2u32), (64, 4), (4096 * 9, 1)] {
        let x = lcg(n, 99 + n as u32, |s| {
            ((s >> 8) as i32 - (1 << 23)) as f32 / 4096.0
        });
        let a = 1.7f32;
        for schedule in schedules() {
            let mut args = vec![
                ArgValue::buffer(&x),
                ArgValue::zeroed(n * 4),
                ArgValue::F32(a),
                ArgValue::U32(n as u32),
            ];
            let launch = Launch {
                grid: (grid, 1, 1),
                block: (160, 1, 1),
                dynamic_shared_bytes: 65536,
                schedule,
                ..Launch::default()
            };
            let stats = run(
                "mbarrier_pipeline.ptx",
                "mbarrier_pipeline",
                &launch,
                &mut args,
            );
            let y: Vec<f32> = args[1].read();
            for i in 0..n {
                assert_eq!(y[i], a * x[i], "y[{i}] (n {n}, grid {grid}, {schedule})");
            }
            assert_eq!(stats.async_ops, n.div_ceil(4096) as u64);
        }
    }
}

#[test]
fn bulk_store_writes_through_the_async_proxy() {
    let n: usize = 1024 * 3 + 44;
    let x = lcg(n, 4242, |s| ((s >> 8) as i32 - (1 << 23)) as f32 / 1024.0);
    let (a, b) = (0.75f32, -3.0f32);
    for schedule in schedules() {
        let mut args = vec![
            ArgValue::buffer(&x),
            ArgValue::zeroed(n * 4),
            ArgValue::F32(a),
            ArgValue::F32(b),
            ArgValue::U32(n as u32),
        ];
        run(
            "bulk_store.ptx",
            "bulk_store",
            &Launch {
                grid: (2, 1, 1),
                block: (256, 1, 1),
                schedule,
                ..Launch::default()
            },
            &mut args,
        );
        let y: Vec<f32> = args[1].read();
        for i in 0..n {
            assert_eq!(y[i], a.mul_add(x[i], b), "y[{i}] under {schedule}");
        }
    }
}

#[test]
fn ampere_cp_async_with_noinc_arrivals() {
    let n: usize = 256 * 3 + 38;
    let x = lcg(n, 2024, |s| {
        ((s >> 8) as i32 - (1 << 23)) as f32 / (1 << 20) as f32
    });
    let a = 0.5f32;
    for schedule in schedules() {
        let mut args = vec![
            ArgValue::buffer(&x),
            ArgValue::zeroed(n * 4),
            ArgValue::F32(a),
            ArgValue::U32(n as u32),
        ];
        run(
            "ampere_cp_async.ptx",
            "ampere_cp_async",
            &Launch {
                grid: (2, 1, 1),
                block: (256, 1, 1),
                schedule,
                ..Launch::default()
            },
            &mut args,
        );
        let y: Vec<f32> = args[1].read();
        for i in 0..n {
            let v = x[i ^ 1];
            assert_eq!(y[i], v.mul_add(a, 1.0) * v, "y[{i}] under {schedule}");
        }
    }
}

#[test]
fn cluster_exchange_reads_the_peer_cta() {
    let blocks = 4usize;
    let n = blocks * 256;
    let x = lcg(n, 31337, |s| (s >> 8) as f32 / 256.0);
    for schedule in schedules() {
        let mut args = vec![ArgValue::buffer(&x), ArgValue::zeroed(n * 4)];
        let stats = run(
            "cluster_exchange.ptx",
            "cluster_exchange",
            &Launch {
                grid: (blocks as u32, 1, 1),
                block: (256, 1, 1),
                schedule,
                ..Launch::default()
            },
            &mut args,
        );
        assert_eq!(
            stats.cluster_phases, 4,
            "two cluster barriers in each of two clusters"
        );
        let out: Vec<f32> = args[1].read();
        for b in 0..blocks {
            for t in 0..256 {
                assert_eq!(
                    out[b * 256 + t],
                    x[b * 256 + t] + x[(b ^ 1) * 256 + 255 - t],
                    "out[{}] under {schedule}",
                    b * 256 + t
                );
            }
        }
    }
}
