//! `#[device]` functions (`examples/device_functions.rs`): inlined into each kernel's PTX
//! with const parameters substituted, simulated to exact results, assembled by ptxas.

#[path = "../examples/device_functions.rs"]
#[allow(dead_code)]
mod device_functions;

use device_functions::{block_sums, stream_scale};
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::sim::{self, Launch, Policy, Schedule};

/// The tree sum of `examples/device_functions.rs` in the same order of f32 additions.
fn tree_sum(mut v: Vec<f32>) -> f32 {
    let mut n = v.len() / 2;
    while n >= 1 {
        for t in 0..n {
            v[t] += v[t + n];
        }
        n /= 2;
    }
    v[0]
}

#[test]
fn block_sums_are_exact() {
    let n = 1000u32;
    let x: Vec<f32> = (0..n).map(|i| (i as f32 - 300.0) * 0.37).collect();
    let hi = 150.0f32;
    let blocks = n.div_ceil(256);
    let mut out = vec![0.0f32; blocks as usize];
    let launch = Launch {
        grid: (blocks, 1, 1),
        block: (256, 1, 1),
        ..Launch::default()
    };
    sim::simulate(&block_sums::SPEC, &launch, (&x, &mut out, hi, n))
        .expect("runs")
        .expect_completed();
    for (b, &sum) in out.iter().enumerate() {
        let vals = (0..256)
            .map(|t| {
                let i = b * 256 + t;
                if i < n as usize {
                    let v = x[i];
                    if v < 0.0 { 0.0 } else { v.min(hi) }
                } else {
                    0.0
                }
            })
            .collect();
        assert_eq!(sum, tree_sum(vals), "block {b}");
    }
}

#[test]
fn pipeline_slots_passed_to_device_functions() {
    let tiles = 6u32;
    let x: Vec<[f32; 4]> = (0..tiles * 1024)
        .map(|i| [i as f32, -(i as f32), 0.25 * i as f32, 3.0])
        .collect();
    let mut y = vec![[0.0f32; 4]; x.len()];
    for schedule in [
        Schedule {
            policy: Policy::RoundRobin,
            seed: 0,
        },
        Schedule {
            policy: Policy::Random,
            seed: 7,
        },
    ] {
        let launch = Launch {
            grid: (2, 1, 1),
            block: (160, 1, 1),
            schedule,
            ..Launch::default()
        };
        let stats = sim::simulate(&stream_scale::SPEC, &launch, (&x, &mut y, -1.5f32, tiles))
            .expect("runs")
            .expect_completed();
        assert_eq!(stats.async_ops, tiles as u64);
        for (i, (a, b)) in x.iter().zip(&y).enumerate() {
            assert_eq!(*b, a.map(|v| -1.5 * v), "y[{i}] under {schedule}");
        }
    }
}

#[test]
fn calls_are_inlined_with_constants_substituted() {
    let ptx = block_sums::PTX;
    assert!(!ptx.contains("call"), "{ptx}");
    // `halve::<N>` for N = 128 .. 1: each step compares with its own constant.
    for n in [128, 64, 32, 16, 8, 4, 2, 1] {
        assert!(
            ptx.contains(&format!("%r3, {n};")),
            "no `t < {n}` comparison in:\n{ptx}"
        );
    }
    assert_eq!(ptx.matches("bar.sync").count(), 9, "{ptx}");
    // `.loc` lines point into the device functions' bodies: `sums[t] = sums[t] + sums[t + N]`.
    let source = include_str!("../examples/device_functions.rs");
    let line = source
        .lines()
        .position(|l| l.contains("sums[t] = sums[t] + sums[t + N];"))
        .expect("the line")
        + 1;
    assert!(ptx.contains(&format!(".loc\t1 {line} 9")), "{ptx}");
}

#[test]
fn kernels_with_device_functions_assemble() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    for (ptx, arch) in [
        (block_sums::PTX, SmVersion::new(80)),
        (block_sums::PTX, SmVersion::arch_specific(90)),
        (stream_scale::PTX, SmVersion::arch_specific(90)),
    ] {
        let result = ptxas::assemble(&ptxas, ptx, arch).unwrap_or_else(|e| panic!("{e}"));
        assert!(result.clean, "{arch}:\n{}\n{ptx}", result.log);
    }
}
