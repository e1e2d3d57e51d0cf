//! `#[device]` functions (`examples/device_functions.rs`, `tests/device/helpers.rs`): inlined
//! into each kernel's PTX with const parameters substituted, simulated to exact results,
//! assembled by ptxas.

#[path = "../examples/device_functions.rs"]
#[allow(dead_code)]
mod device_functions;

#[path = "device/helpers.rs"]
mod helpers;

use device_functions::{block_sums, stream_scale};
use phasegate::prelude::*;
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::sim::{self, Launch, Policy, Schedule, TensorMapArg};

/// `y = x * x` through a device function of another file, called by its path.
#[kernel]
fn squares(x: &[f32], y: &mut [f32], n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        y[i] = helpers::square(x[i]);
    }
}

/// The producer is borrowed by the device function: its stage and phase advance in the
/// caller's handle, or the second round of stages would deadlock.
#[device]
fn refill(producer: &mut Producer<f32, 2, 256>, x: &[f32], tile: u32) {
    producer.acquire().load(x, tile * 256);
}

/// Copies a full stage out and releases it; the shape is inferred from the slot's type.
#[device]
fn drain<const STAGES: usize, const TILE: usize>(
    slot: ConsumerSlot<'_, f32, STAGES, TILE>,
    y: &mut [f32],
    base: u32,
    t: u32,
) {
    for k in 0..TILE as u32 / 64 {
        y[base + k * 64 + t] = slot.get(k * 64 + t);
    }
    slot.release();
}

/// `y = x` through a 2-stage pipeline: warp 0 produces, warps 1 and 2 consume.
#[kernel(target = "sm_90a", block = "96,1,1")]
fn copy_through(x: &[f32], y: &mut [f32], tiles: u32) {
    let pipe = pipeline::<f32, 2, 256>(thread_idx_x() == 0, 1, 64);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for tile in 0..tiles {
                refill(&mut producer, x, tile);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in 0..tiles {
            drain(consumer.wait(), y, tile * 256, t);
        }
    }
}

/// Loads the box at tile `t` of the map into the acquired stage: the slot moved in, the map
/// borrowed.
#[device]
fn load_box(
    slot: ProducerSlot<'_, f32, 2, 256>,
    map: &TensorMap<f32, Tile2<32, 8>>,
    t: u32,
    tiles_x: u32,
) {
    slot.load_tile(map, [(t % tiles_x) * 32, (t / tiles_x) * 8]);
}

/// `y` = the tiles of the 2-D tensor behind `x`, each box as 256 contiguous elements.
#[kernel(target = "sm_90a", block = "96,1,1")]
fn boxes(x: TensorMap<f32, Tile2<32, 8>>, y: &mut [f32], tiles_x: u32, tiles: u32) {
    let pipe = pipeline::<f32, 2, 256>(thread_idx_x() == 0, 1, 64);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for t in 0..tiles {
                load_box(producer.acquire(), &x, t, tiles_x);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in 0..tiles {
            drain(consumer.wait(), y, tile * 256, t);
        }
    }
}

#[test]
fn a_tensor_map_passed_to_a_device_function() {
    let (w, h) = (64u32, 24u32);
    let x: Vec<f32> = (0..w * h).map(|i| i as f32 * 0.5 - 3.0).collect();
    let map = boxes::SPEC
        .map_type("x")
        .expect("a map parameter")
        .tiled(0, &[w as u64, h as u64], &[w as u64 * 4])
        .expect("a valid map");
    let x_arg = TensorMapArg::owning(map, x.iter().flat_map(|v| v.to_le_bytes()).collect());
    let (tiles_x, tiles) = (w / 32, (w / 32) * (h / 8));
    let mut y = vec![0.0f32; (tiles * 256) as usize];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (96, 1, 1),
        ..Launch::default()
    };
    sim::simulate(&boxes::SPEC, &launch, (&x_arg, &mut y, tiles_x, tiles))
        .expect("runs")
        .expect_completed();
    for t in 0..tiles {
        let (bx, by) = ((t % tiles_x) * 32, (t / tiles_x) * 8);
        for k in 0..256 {
            let (r, c) = (k / 32, k % 32);
            let want = x[((by + r) * w + bx + c) as usize];
            assert_eq!(y[(t * 256 + k) as usize], want, "tile {t}, element {k}");
        }
    }
}

#[test]
fn a_borrowed_producer_advances_in_the_caller() {
    let tiles = 7u32;
    let x: Vec<f32> = (0..tiles * 256).map(|i| i as f32 * 1.5 - 7.0).collect();
    let mut y = vec![0.0f32; x.len()];
    let launch = Launch {
        grid: (1, 1, 1),
        block: (96, 1, 1),
        ..Launch::default()
    };
    let stats = sim::simulate(&copy_through::SPEC, &launch, (&x, &mut y, tiles))
        .expect("runs")
        .expect_completed();
    assert_eq!(stats.async_ops, tiles as u64);
    assert_eq!(x, y);
    // `drain`'s loop runs `TILE / 64` times: with `TILE` substituted, a constant trip count.
    assert!(
        copy_through::PTX.contains(", 4;\n\t@%p"),
        "{}",
        copy_through::PTX
    );
}

#[test]
fn a_device_function_of_another_file_has_its_own_file_directive() {
    let ptx = squares::PTX;
    let file2 = ptx
        .lines()
        .find(|l| l.starts_with(".file 2 "))
        .unwrap_or_else(|| panic!("no second file in:\n{ptx}"));
    assert!(file2.ends_with("device/helpers.rs\""), "{file2}");
    // `v * v` is line 6, column 5 of that file.
    assert!(ptx.contains(".loc\t2 6 5"), "{ptx}");
    let n = 300u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.75 - 20.0).collect();
    let mut y = vec![0.0f32; n as usize];
    let launch = Launch {
        grid: (n.div_ceil(128), 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    };
    sim::simulate(&squares::SPEC, &launch, (&x, &mut y, n))
        .expect("runs")
        .expect_completed();
    for (a, b) in x.iter().zip(&y) {
        assert_eq!(*b, a * a);
    }
}

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
        (squares::PTX, SmVersion::new(80)),
        (copy_through::PTX, SmVersion::arch_specific(90)),
        (boxes::PTX, SmVersion::arch_specific(90)),
    ] {
        let result = ptxas::assemble(&ptxas, ptx, arch).unwrap_or_else(|e| panic!("{e}"));
        assert!(result.clean, "{arch}:\n{}\n{ptx}", result.log);
    }
}
