//! Kernels that together use every construct of the kernel language. The tests assemble each
//! one with ptxas, read each back with the PTX reader, and check what the lowering chose.

use phasegate::prelude::*;

/// Every cast between the scalar types.
#[kernel]
pub fn casts(
    ints: &[i32],
    out_u64: &mut [u64],
    out_i64: &mut [i64],
    out_f32: &mut [f32],
    out_f64: &mut [f64],
    out_u32: &mut [u32],
    flag: bool,
) {
    let i = thread_idx_x();
    let s = ints[i];
    let u = s as u32;
    out_u64[i] = s as u64 + u as u64;
    out_i64[i] = s as i64 - (u as i64);
    let f = s as f32;
    out_f32[i] = f + (u as f32) + ((s as i64) as f32) + ((u as u64) as f32);
    let d = f as f64;
    out_f64[i] = d + (s as f64) + (flag as u32 as f64);
    let back = (d as f32) as i32;
    out_u32[i] = (back as u32)
        + (f as u32)
        + ((d as i64) as u32)
        + (flag as u32)
        + ((out_u64[i] as u32) ^ 7u32);
}

/// Integer and bit operations on all integer widths, and compound assignments.
#[kernel]
pub fn integer_ops(a: &[u32], b: &[i32], c: &mut [u64], d: &mut [i64], shift: u32) {
    let i = thread_idx_x();
    let x = a[i];
    let y = b[i];
    let mut acc = x * 3 + x / 7 - x % 5;
    acc ^= x & 0xff | (x << 3) | (x >> shift);
    acc += !x;
    let mut s = y / -3 + y % 4 - (y >> 2);
    s = -s;
    s <<= 1;
    s = s.min(y).max(-100).abs();
    let w = (acc as u64) << 40u32;
    c[i] = w
        | (w >> 3)
        | (x as u64).wrapping_mul(0x1_0000_0001u64)
            + acc.count_ones() as u64
            + x.leading_zeros() as u64;
    d[i] = (s as i64) * -5 + (y as i64).wrapping_sub(1) + (x.reverse_bits() as i64);
}

/// Float arithmetic, methods, bit casts and float comparisons (`!=` is `neu`).
#[kernel]
pub fn float_ops(x: &[f32], y: &mut [f32], z: &[f64], w: &mut [f64], bits: &mut [u32]) {
    let i = thread_idx_x();
    let a = x[i];
    let b = a * 2.0 - 1.5 / (a + 0.25);
    let c = fma(a, b, 1.0).sqrt().min(4.0).max(-0.0).abs();
    let e = -c;
    let ne = if e != a { 1.0f32 } else { 0.0 };
    y[i] = a.mul_add(e, ne) + f32::from_bits(0x3f80_0000);
    bits[i] = b.to_bits();
    let p = z[i];
    w[i] = (p * p + 1e-3).sqrt() / p.max(1.0) + sqrt(abs(p)) + min(p, 2.5) + max(p, -2.5);
}

/// `if` as a value, `while`, `loop`, labelled `break`/`continue`, inclusive and stepped
/// ranges, early `return`, short-circuit `&&`/`||`, bool params and comparisons.
#[kernel]
pub fn control(data: &mut [u32], n: u32, strict: bool, wide: u64) {
    let t = thread_idx_x();
    if t >= n || (strict && t % 2 == 1) {
        return;
    }
    let mut total = 0u32;
    'outer: for i in 0..=t {
        for j in (i..n).step_by(3) {
            if j == 7 {
                continue 'outer;
            }
            if j > 40 {
                break 'outer;
            }
            total += j;
        }
    }
    let mut k = 0u32;
    while k < 5 && !(total == 0) {
        k += 1;
    }
    let mut spins = 0u32;
    loop {
        spins += 1;
        if spins >= k {
            break;
        }
    }
    let mut big = 0u64;
    for q in (0..wide).step_by(2) {
        big += q;
    }
    let mut down = 10i32;
    for r in -3..=3i32 {
        down -= r;
    }
    let parity = if total % 2 == 0 {
        10
    } else if total % 3 == 0 {
        20
    } else {
        30
    };
    let same = (strict == (t > 3)) != false;
    data[t] = total + k + spins + parity + (big as u32) + (down as u32) + (same as u32);
}

/// 16-byte and 8-byte vector loads and stores in global and shared memory.
#[kernel]
pub fn vectors(x: &[[f32; 4]], y: &mut [[f32; 4]], p: &[[u64; 2]], q: &mut [[i32; 2]], a: f32) {
    let i = thread_idx_x();
    let mut staging = shared_array::<[f32; 4], 128>();
    let v = x[i];
    staging[i] = [a * v[0], a * v[1], a * v[2], a * v[3]];
    sync_threads();
    let mut w = staging[127 - i];
    w[2] = w[2] + 1.0;
    y[i] = w;
    let pair = p[i];
    q[i] = [pair[0] as i32, pair[1] as i32];
    q[0] = [1, -1];
}

/// All index and dimension registers, lane and warp ids, kernel `const`s, a shared array
/// indexed by constants, and `sync_threads`.
#[kernel]
pub fn indices(out: &mut [u32]) {
    const SLOTS: u32 = 16;
    const TWICE: u32 = SLOTS * 2;
    let mut slots = shared_array::<u32, { TWICE as usize }>();
    let linear = thread_idx_x() + block_dim_x() * (thread_idx_y() + block_dim_y() * thread_idx_z());
    let block = block_idx_x() + grid_dim_x() * (block_idx_y() + grid_dim_y() * block_idx_z());
    if linear == 0 {
        slots[0] = block_dim_z() + grid_dim_z();
        slots[TWICE - 1] = 5;
    }
    sync_threads();
    out[block * 1024 + linear] = lane_id() + warp_id() * 32 + slots[0] + slots[31];
}

/// The same as [`indices`] (minus the shared array) for blocks of exactly 32×4×1 threads
/// (`.reqntid`): `block_dim_*()` are constants, `thread_idx_z()` is 0 and `warp_id()` reads
/// `%tid.x` and `%tid.y` only.
#[kernel(block = "32,4,1")]
pub fn shaped(out: &mut [u32]) {
    let linear = thread_idx_x() + block_dim_x() * (thread_idx_y() + block_dim_y() * thread_idx_z());
    let block = block_idx_x() + grid_dim_x() * (block_idx_y() + grid_dim_y() * block_idx_z());
    out[block * 1024 + linear] = lane_id() + warp_id() * 32 + block_dim_z() + grid_dim_z();
}

/// [`shaped`] without a required shape, for comparison.
#[kernel]
pub fn unshaped(out: &mut [u32]) {
    let linear = thread_idx_x() + block_dim_x() * (thread_idx_y() + block_dim_y() * thread_idx_z());
    let block = block_idx_x() + grid_dim_x() * (block_idx_y() + grid_dim_y() * block_idx_z());
    out[block * 1024 + linear] = lane_id() + warp_id() * 32 + block_dim_z() + grid_dim_z();
}

/// Launch bounds as CUDA's `__launch_bounds__(256, 2)`: `.maxntid 256, 1, 1` and
/// `.minnctapersm 2`.
#[kernel(max_threads = 256, min_blocks_per_sm = 2)]
pub fn bounded(out: &mut [u32]) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    out[i] = warp_id();
}

/// Cluster special registers: these need sm_90, so the kernel's target rises to sm_90.
#[kernel]
pub fn cluster_ids(out: &mut [u32]) {
    let i = thread_idx_x();
    out[i] = cluster_cta_rank()
        + cluster_idx_x()
        + cluster_idx_y()
        + cluster_idx_z()
        + cluster_dim_x()
        + cluster_dim_y()
        + cluster_dim_z()
        + cluster_block_idx_x()
        + cluster_block_idx_y()
        + cluster_block_idx_z();
}

/// A kernel pinned to sm_90a.
#[kernel(target = "sm_90a")]
pub fn pinned(out: &mut [i64], v: i64) {
    out[thread_idx_x()] = v.max(0) - 1;
}

/// Every kernel above with its name and whether it assembles for sm_80.
#[allow(
    dead_code,
    reason = "each test binary that includes this module reads a part of it"
)]
pub const ALL: &[(&str, &str, bool)] = &[
    ("casts", casts::PTX, true),
    ("integer_ops", integer_ops::PTX, true),
    ("float_ops", float_ops::PTX, true),
    ("control", control::PTX, true),
    ("vectors", vectors::PTX, true),
    ("indices", indices::PTX, true),
    ("cluster_ids", cluster_ids::PTX, false),
    ("pinned", pinned::PTX, false),
    ("shaped", shaped::PTX, true),
    ("unshaped", unshaped::PTX, true),
    ("bounded", bounded::PTX, true),
];

pub mod vocabulary;

/// The barrier-vocabulary kernels, as in [`ALL`].
#[allow(
    dead_code,
    reason = "each test binary that includes this module reads a part of it"
)]
pub const VOCABULARY: &[(&str, &str, bool)] = &[
    ("named_barriers", vocabulary::named_barriers::PTX, true),
    ("reductions", vocabulary::reductions::PTX, true),
    ("mbarrier_forms", vocabulary::mbarrier_forms::PTX, false),
    ("mbarrier_reuse", vocabulary::mbarrier_reuse::PTX, false),
    ("bulk_copies", vocabulary::bulk_copies::PTX, false),
    ("cluster_forms", vocabulary::cluster_forms::PTX, false),
    ("ampere_copies", vocabulary::ampere_copies::PTX, true),
    ("dynamic_memory", vocabulary::dynamic_memory::PTX, false),
    ("written_maps", vocabulary::written_maps::PTX, false),
];
