//! The storage floats `f16`, `bf16`, `f8e4m3`, `f8e5m2` in kernels: loads, stores, vectors,
//! shared arrays, parameters and `as` conversions, simulated against the host types
//! (`half`, `float8`) and assembled by ptxas.

use phasegate::prelude::*;
use phasegate::ptx::{SmVersion, ptxas};
use phasegate::runtime::sim::{Launch, RunError};
use phasegate::runtime::{ElemType, ParamType, ScalarKind};

#[kernel]
fn axpy_halves(x: &[bf16], y: &[f16], out_b: &mut [bf16], out_h: &mut [f16], a: f32, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let v = x[i] as f32 * a + y[i] as f32;
        out_b[i] = v as bf16;
        out_h[i] = v as f16;
    }
}

/// f32 to every storage float, and back.
#[kernel]
fn narrow_f32(
    x: &[f32],
    h: &mut [f16],
    b: &mut [bf16],
    e4: &mut [f8e4m3],
    e5: &mut [f8e5m2],
    back4: &mut [f32],
    back5: &mut [f32],
    n: u32,
) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let v = x[i];
        h[i] = v as f16;
        b[i] = v as bf16;
        let q4 = v as f8e4m3;
        let q5 = v as f8e5m2;
        e4[i] = q4;
        e5[i] = q5;
        back4[i] = q4 as f32;
        back5[i] = q5 as f32;
    }
}

/// f64 and integers to `f16` (one `cvt.rn` each, on any target), storage floats to integers
/// and f64 (through f32, exactly).
#[kernel]
fn halves_and_integers(
    d: &[f64],
    k: &[i32],
    h: &mut [f16],
    hk: &mut [f16],
    to_int: &mut [i32],
    to_u64: &mut [u64],
    to_f64: &mut [f64],
    n: u32,
) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        h[i] = d[i] as f16;
        let from_int = k[i] as f16;
        hk[i] = from_int;
        to_int[i] = (d[i] as f32 as bf16) as i32;
        to_u64[i] = from_int as u64;
        to_f64[i] = (d[i] as f32 as f8e5m2) as f64;
    }
}

/// `bf16` from f64 and from integers: `cvt.rn.bf16.f64` / `.s32` need sm_90.
#[kernel]
fn bf16_direct(d: &[f64], k: &[i64], b: &mut [bf16], bk: &mut [bf16], n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        b[i] = d[i] as bf16;
        bk[i] = k[i] as bf16;
    }
}

/// Vectors: a 16-byte row of eight `bf16`, packed `f16` pairs, four fp8 bytes.
#[kernel]
fn vectors(
    rows: &[[bf16; 8]],
    reversed: &mut [[bf16; 8]],
    pairs: &mut [[f16; 2]],
    quads: &mut [[f8e4m3; 4]],
    halves: &mut [[f16; 4]],
    n: u32,
) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let r = rows[i];
        reversed[i] = [r[7], r[6], r[5], r[4], r[3], r[2], r[1], r[0]];
        pairs[i] = [r[0] as f16, (r[1] as f32 + r[2] as f32) as f16];
        quads[i] = [
            r[0] as f8e4m3,
            r[1] as f8e4m3,
            r[2] as f8e4m3,
            r[3] as f8e4m3,
        ];
        let mut hv: [f16; 4] = [r[4] as f16, r[5] as f16, r[6] as f16, r[7] as f16];
        hv[2] = (r[6] as f32 * 0.5f32) as f16;
        halves[i] = hv;
    }
}

/// A shared tile of `bf16` and one of packed pairs; parameters of every storage type;
/// comparisons (in f32, NaN unordered) and constants folded at compile time.
#[kernel(block = "64,1,1")]
fn shared_and_params(
    x: &[bf16],
    y: &mut [bf16],
    flags: &mut [u32],
    consts: &mut [[f16; 2]],
    scale: bf16,
    limit: f16,
    q: f8e4m3,
    r: f8e5m2,
) {
    let t = thread_idx_x();
    let mut tile = shared_array::<bf16, 64>();
    let mut pairs = shared_array::<[bf16; 2], 32>();
    tile[t] = x[t];
    if t < 32 {
        pairs[t] = [x[2 * t + 1], x[2 * t]];
    }
    sync_threads();
    let other = tile[63 - t];
    let pair = pairs[t / 2];
    let mine = if t % 2 == 0 { pair[0] } else { pair[1] };
    let v = other as f32 * scale as f32 + mine as f32 * q as f32 + r as f32;
    y[t] = v as bf16;
    let mut f = 0u32;
    if other < x[t] {
        f |= 1;
    }
    if other == x[t] {
        f |= 2;
    }
    if other != x[t] {
        f |= 4;
    }
    if (v as f16) >= limit {
        f |= 8;
    }
    flags[t] = f;
    if t == 0 {
        consts[0] = [1.5 as f16, 65520.0f32 as f16];
        consts[1] = [(0.1f32 as f8e4m3) as f16, (1000.0f32 as f8e4m3) as f16];
        consts[2] = [-3 as f16, 100000u32 as f16];
    }
}

fn launch(threads: u32) -> Launch {
    Launch {
        grid: (threads.div_ceil(128), 1, 1),
        block: (128, 1, 1),
        ..Launch::default()
    }
}

/// Equal bits, or both NaN (the GPU's NaN is canonical, the host types keep payloads).
fn same(a: f64, a_bits: u32, b: f64, b_bits: u32) -> bool {
    a_bits == b_bits || (a.is_nan() && b.is_nan())
}

fn same_f16(a: f16, b: f16) -> bool {
    same(
        a.to_f64(),
        a.to_bits() as u32,
        b.to_f64(),
        b.to_bits() as u32,
    )
}

fn same_bf16(a: bf16, b: bf16) -> bool {
    same(
        a.to_f64(),
        a.to_bits() as u32,
        b.to_f64(),
        b.to_bits() as u32,
    )
}

fn same_e4m3(a: f8e4m3, b: f8e4m3) -> bool {
    same(
        a.to_f64(),
        a.to_bits() as u32,
        b.to_f64(),
        b.to_bits() as u32,
    )
}

fn same_e5m2(a: f8e5m2, b: f8e5m2) -> bool {
    same(
        a.to_f64(),
        a.to_bits() as u32,
        b.to_f64(),
        b.to_bits() as u32,
    )
}

/// `v` rounded once to nearest even among the values of a 16-bit format (`decode`), as PTX
/// `cvt.rn` rounds from f64 (`half`'s `from_f64` rounds through f32, so twice, on rare ties).
/// `near` is within one code of the answer (`half`'s result); `above_max` is where the
/// format's infinity would sit if the exponent went on; `inf` is its code.
fn round_once(v: f64, near: u16, decode: fn(u16) -> f64, above_max: f64, inf: u16) -> u16 {
    if v.is_nan() {
        // The NaN keeps its sign and its payload's top bits, quieted (f32::NAN gives 0x7e00 and
        // 0x7fc0 on an H100).
        let bits = v.to_bits();
        let (sign, payload) = (((bits >> 63) as u16) << 15, bits & ((1 << 52) - 1));
        return if inf == 0x7c00 {
            sign | 0x7e00 | (payload >> 42) as u16
        } else {
            sign | 0x7fc0 | (payload >> 45) as u16
        };
    }
    let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    let near = (near & 0x7fff).min(inf);
    let (mut best, mut best_err) = (0u16, f64::INFINITY);
    for bits in near.saturating_sub(1)..=(near + 1).min(inf) {
        let x = if bits == inf { above_max } else { decode(bits) };
        let err = (x - a).abs();
        if err < best_err || (err == best_err && bits & 1 == 0) {
            (best, best_err) = (bits, err);
        }
    }
    best | sign
}

fn f16_once(v: f64) -> f16 {
    let near = f16::from_f64(v).to_bits();
    f16::from_bits(round_once(
        v,
        near,
        |b| f16::from_bits(b).to_f64(),
        65536.0,
        0x7c00,
    ))
}

fn bf16_once(v: f64) -> bf16 {
    let near = bf16::from_f64(v).to_bits();
    let decode = |b| bf16::from_bits(b).to_f64();
    bf16::from_bits(round_once(v, near, decode, 2f64.powi(128), 0x7f80))
}

/// `v` to fp8 independently of the simulator's codec: the nearest of the format's finite
/// values, sorted in `table` as (value, code), ties to the even code, which is also
/// `.satfinite`'s saturation; NaN stays NaN.
fn fp8_once(v: f32, table: &[(f64, u8)]) -> Option<u8> {
    if v.is_nan() {
        return None;
    }
    let max = table[table.len() - 1].0;
    let a = (v as f64).abs().min(max);
    let i = table.partition_point(|(x, _)| *x < a);
    let mut best = table[i.min(table.len() - 1)];
    if i > 0 {
        let below = table[i - 1];
        let (eb, ea) = (a - below.0, best.0 - a);
        if eb < ea || (eb == ea && below.1 & 1 == 0) {
            best = below;
        }
    }
    Some(best.1 | if v.is_sign_negative() { 0x80 } else { 0 })
}

/// The non-negative finite values of an fp8 format with their codes, ascending.
fn fp8_table(decode: fn(u8) -> f64) -> Vec<(f64, u8)> {
    let mut t: Vec<(f64, u8)> = (0..=0x7fu8)
        .map(|b| (decode(b), b))
        .filter(|(x, _)| x.is_finite())
        .collect();
    t.sort_by(|a, b| a.0.total_cmp(&b.0));
    t
}

/// f32 inputs that reach every corner of the narrow formats: every value of each format,
/// the midpoints between neighbours (ties) and the f32 values just beside them, the edges of
/// the ranges, infinities, NaN, signed zeros, f32 subnormals, and a sweep of f32 patterns.
fn edge_inputs() -> Vec<f32> {
    let mut values: Vec<f64> = Vec::new();
    for bits in 0..=u16::MAX {
        values.push(f16::from_bits(bits).to_f64());
        values.push(bf16::from_bits(bits).to_f64());
    }
    for bits in 0..=u8::MAX {
        values.push(f8e4m3::from_bits(bits).to_f64());
        values.push(f8e5m2::from_bits(bits).to_f64());
    }
    let mut out: Vec<f32> = Vec::new();
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    for w in sorted.windows(2) {
        let mid = ((w[0] + w[1]) / 2.0) as f32;
        out.extend([mid, mid.next_up(), mid.next_down()]);
    }
    out.extend(values.iter().map(|v| *v as f32));
    out.extend([
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        -f32::from_bits(1),
        448.0,
        464.0,
        464.0f32.next_up(),
        480.0,
        -1e9,
        57344.0,
        61440.0,
        61440.0f32.next_down(),
        1e30,
        65504.0,
        65520.0,
        65520.0f32.next_down(),
    ]);
    out.extend((0..20_000u32).map(|k| f32::from_bits(k.wrapping_mul(214_749))));
    out
}

#[test]
fn bf16_and_f16_round_trip_through_f32() -> Result<(), RunError> {
    let n = 300u32;
    let x: Vec<bf16> = (0..n)
        .map(|i| bf16::from_f32(i as f32 * 0.37 - 40.0))
        .collect();
    let y: Vec<f16> = (0..n)
        .map(|i| f16::from_f32(1.0 / (i as f32 + 0.5)))
        .collect();
    let (mut ob, mut oh) = (vec![bf16::ZERO; n as usize], vec![f16::ZERO; n as usize]);
    let a = 1.7f32;
    axpy_halves::simulate(&launch(n), (&x[..], &y[..], &mut ob[..], &mut oh[..], a, n))?;
    for i in 0..n as usize {
        let v = x[i].to_f32() * a + y[i].to_f32();
        assert_eq!(ob[i].to_bits(), bf16::from_f32(v).to_bits(), "bf16 at {i}");
        assert_eq!(oh[i].to_bits(), f16::from_f32(v).to_bits(), "f16 at {i}");
    }
    Ok(())
}

#[test]
fn f32_to_every_storage_float_rounds_as_the_host_types() -> Result<(), RunError> {
    let x = edge_inputs();
    let n = x.len();
    let mut h = vec![f16::ZERO; n];
    let mut b = vec![bf16::ZERO; n];
    let mut e4 = vec![f8e4m3::ZERO; n];
    let mut e5 = vec![f8e5m2::ZERO; n];
    let (mut back4, mut back5) = (vec![0f32; n], vec![0f32; n]);
    narrow_f32::simulate(
        &launch(n as u32),
        (
            &x[..],
            &mut h[..],
            &mut b[..],
            &mut e4[..],
            &mut e5[..],
            &mut back4[..],
            &mut back5[..],
            n as u32,
        ),
    )?;
    let t4 = fp8_table(|b| f8e4m3::from_bits(b).to_f64());
    let t5 = fp8_table(|b| f8e5m2::from_bits(b).to_f64());
    for i in 0..n {
        let v = x[i];
        assert!(
            same_f16(h[i], f16::from_f32(v)),
            "f16 of {v:e}: {h:?}",
            h = h[i]
        );
        assert!(
            same_bf16(b[i], bf16::from_f32(v)),
            "bf16 of {v:e}: {:?}",
            b[i]
        );
        let (r4, r5) = (f8e4m3::from_f32(v), f8e5m2::from_f32(v));
        assert_eq!(
            fp8_once(v, &t4),
            (!v.is_nan()).then(|| e4[i].to_bits()),
            "e4m3 of {v:e}"
        );
        assert_eq!(
            fp8_once(v, &t5),
            (!v.is_nan()).then(|| e5[i].to_bits()),
            "e5m2 of {v:e}"
        );
        assert!(
            same_e4m3(e4[i], r4),
            "e4m3 of {v:e}: {:#04x}, host {:#04x}",
            e4[i].to_bits(),
            r4.to_bits()
        );
        assert!(
            same_e5m2(e5[i], r5),
            "e5m2 of {v:e}: {:#04x}, host {:#04x}",
            e5[i].to_bits(),
            r5.to_bits()
        );
        // satfinite: only NaN stays NaN; infinities and overflow become the largest finite.
        assert_eq!(back4[i].is_nan(), v.is_nan(), "{v}");
        assert_eq!(back5[i].is_nan(), v.is_nan(), "{v}");
        if !v.is_nan() {
            assert!(back4[i].abs() <= 448.0 && back5[i].abs() <= 57344.0, "{v}");
            assert_eq!(back4[i], r4.to_f32(), "{v}");
            assert_eq!(back5[i], r5.to_f32(), "{v}");
        }
    }
    assert_eq!(f8e4m3::from_f32(f32::INFINITY).to_f32(), 448.0);
    assert_eq!(f8e5m2::from_f32(f32::NEG_INFINITY).to_f32(), -57344.0);
    Ok(())
}

#[test]
fn every_fp8_code_widens_exactly() -> Result<(), RunError> {
    // All 256 codes of each format, through the kernel's `as f32` (cvt.rn.f16x2.e4m3x2, then
    // cvt.f32.f16): the simulator's decoding against the host types'.
    let codes: Vec<f32> = (0..=255u8).map(|c| f8e4m3::from_bits(c).to_f32()).collect();
    let codes5: Vec<f32> = (0..=255u8).map(|c| f8e5m2::from_bits(c).to_f32()).collect();
    let all: Vec<f32> = codes.iter().chain(&codes5).copied().collect();
    let n = all.len();
    let mut h = vec![f16::ZERO; n];
    let mut b = vec![bf16::ZERO; n];
    let mut e4 = vec![f8e4m3::ZERO; n];
    let mut e5 = vec![f8e5m2::ZERO; n];
    let (mut back4, mut back5) = (vec![0f32; n], vec![0f32; n]);
    narrow_f32::simulate(
        &launch(n as u32),
        (
            &all[..],
            &mut h[..],
            &mut b[..],
            &mut e4[..],
            &mut e5[..],
            &mut back4[..],
            &mut back5[..],
            n as u32,
        ),
    )?;
    for c in 0..=255u8 {
        let (i4, i5) = (c as usize, 256 + c as usize);
        let (v4, v5) = (f8e4m3::from_bits(c), f8e5m2::from_bits(c));
        if v4.is_nan() {
            assert!(back4[i4].is_nan() && e4[i4].is_nan(), "e4m3 {c:#04x}");
        } else {
            assert_eq!(e4[i4].to_bits(), c, "e4m3 {c:#04x}");
            assert_eq!(back4[i4].to_bits(), v4.to_f32().to_bits(), "e4m3 {c:#04x}");
        }
        if v5.is_nan() {
            assert!(back5[i5].is_nan() && e5[i5].is_nan(), "e5m2 {c:#04x}");
        } else if v5.is_infinite() {
            // .satfinite: an infinity becomes the largest finite value of its sign.
            assert_eq!(e5[i5].to_bits(), (c & 0x80) | 0x7b, "e5m2 {c:#04x}");
        } else {
            assert_eq!(e5[i5].to_bits(), c, "e5m2 {c:#04x}");
            assert_eq!(back5[i5].to_bits(), v5.to_f32().to_bits(), "e5m2 {c:#04x}");
        }
    }
    Ok(())
}

#[test]
fn halves_convert_to_and_from_integers_and_f64() -> Result<(), RunError> {
    let mut d: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        2.5,
        1e10,
        -1e10,
        65519.99,
        65520.0,
        1e-8,
        6e-8,
        3e-8,
        2.98e-8,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        3e9,
        -3e9,
        1.0 + 2f64.powi(-11),
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        123456.789,
        -0.7,
        4294967296.0,
    ];
    d.extend((0..200).map(|i| (i as f64 - 100.0) * 1.37e3 + 0.123));
    let n = d.len();
    let k: Vec<i32> = (0..n as i32)
        .map(|i| match i {
            0 => i32::MAX,
            1 => i32::MIN,
            2 => 65504,
            3 => 65520,
            4 => 2049,
            5 => 2051,
            _ => (i - 100) * 977,
        })
        .collect();
    let mut h = vec![f16::ZERO; n];
    let mut hk = vec![f16::ZERO; n];
    let mut to_int = vec![0i32; n];
    let mut to_u64 = vec![0u64; n];
    let mut to_f64 = vec![0f64; n];
    halves_and_integers::simulate(
        &launch(n as u32),
        (
            &d[..],
            &k[..],
            &mut h[..],
            &mut hk[..],
            &mut to_int[..],
            &mut to_u64[..],
            &mut to_f64[..],
            n as u32,
        ),
    )?;
    for i in 0..n {
        // f64 to f16 rounds once, directly from f64.
        assert!(
            same_f16(h[i], f16_once(d[i])),
            "f16 of {}: {:?}",
            d[i],
            h[i]
        );
        let from_int = f16_once(k[i] as f64);
        assert!(same_f16(hk[i], from_int), "f16 of {}: {:?}", k[i], hk[i]);
        // To integers as `as` does: truncate, saturate, NaN to 0 (through the exact f32).
        assert_eq!(
            to_int[i],
            bf16::from_f32(d[i] as f32).to_f32() as i32,
            "{}",
            d[i]
        );
        assert_eq!(to_u64[i], from_int.to_f32() as u64, "{}", k[i]);
        let e5 = f8e5m2::from_f32(d[i] as f32).to_f64();
        assert!(!to_f64[i].is_infinite(), "satfinite");
        assert!(
            to_f64[i] == e5 || (to_f64[i].is_nan() && e5.is_nan()),
            "{}",
            d[i]
        );
    }
    assert_eq!(
        halves_and_integers::TARGET,
        "sm_89",
        "fp8 conversions need sm_89"
    );
    Ok(())
}

#[test]
fn bf16_from_f64_and_integers_rounds_once_on_sm_90() -> Result<(), RunError> {
    let d: Vec<f64> = vec![
        1.0 + 2f64.powi(-8),
        1.0 + 2f64.powi(-8) + 2f64.powi(-30),
        -(1.0 + 3.0 * 2f64.powi(-8)),
        1e300,
        -1e-300,
        f64::NAN,
        0.1,
    ];
    let k: Vec<i64> = vec![
        257,
        259,
        -16_777_217,
        i64::MAX,
        i64::MIN,
        (1 << 40) + (1 << 32) + 1,
        0,
    ];
    // (i64::MAX is not exact in f64; it rounds to 2^63 there, and from 2^63 to bf16 exactly.)
    let n = d.len();
    let (mut b, mut bk) = (vec![bf16::ZERO; n], vec![bf16::ZERO; n]);
    bf16_direct::simulate(
        &launch(n as u32),
        (&d[..], &k[..], &mut b[..], &mut bk[..], n as u32),
    )?;
    for i in 0..n {
        assert!(
            same_bf16(b[i], bf16_once(d[i])),
            "bf16 of {}: {:?}",
            d[i],
            b[i]
        );
        // Integers round once too; these are exact in f64.
        assert_eq!(
            bk[i].to_bits(),
            bf16_once(k[i] as f64).to_bits(),
            "{}",
            k[i]
        );
    }
    // Where `half` rounds twice (1 + 2^-8 + 2^-30 is a tie in f32), the kernel rounds once.
    assert_ne!(b[1].to_bits(), bf16::from_f64(d[1]).to_bits());
    assert_eq!(bf16_direct::TARGET, "sm_90");
    Ok(())
}

#[test]
fn vectors_move_in_one_access_and_keep_lane_order() -> Result<(), RunError> {
    let n = 40usize;
    let rows: Vec<[bf16; 8]> = (0..n)
        .map(|i| std::array::from_fn(|l| bf16::from_f32((i * 8 + l) as f32 * 0.71 - 90.0)))
        .collect();
    let mut reversed = vec![[bf16::ZERO; 8]; n];
    let mut pairs = vec![[f16::ZERO; 2]; n];
    let mut quads = vec![[f8e4m3::ZERO; 4]; n];
    let mut halves = vec![[f16::ZERO; 4]; n];
    vectors::simulate(
        &launch(n as u32),
        (
            &rows[..],
            &mut reversed[..],
            &mut pairs[..],
            &mut quads[..],
            &mut halves[..],
            n as u32,
        ),
    )?;
    for i in 0..n {
        let r = rows[i];
        let mut want = r;
        want.reverse();
        assert_eq!(reversed[i], want, "row {i}");
        let f = |x: bf16| x.to_f32();
        assert_eq!(
            pairs[i],
            [f16::from_f32(f(r[0])), f16::from_f32(f(r[1]) + f(r[2]))]
        );
        for l in 0..4 {
            assert_eq!(
                quads[i][l].to_bits(),
                f8e4m3::from_f32(f(r[l])).to_bits(),
                "{i} {l}"
            );
        }
        let want_h = [
            f16::from_f32(f(r[4])),
            f16::from_f32(f(r[5])),
            f16::from_f32(f(r[6]) * 0.5),
            f16::from_f32(f(r[7])),
        ];
        assert_eq!(halves[i], want_h, "row {i}");
    }
    let ptx = vectors::PTX;
    for form in [
        "ld.global.nc.v4.b32", // [bf16; 8]: 16 bytes as four packed words
        "st.global.v4.b32",
        "st.global.v2.b16", // [f16; 2]: a packed pair
        "st.global.v4.u8",  // [f8e4m3; 4]
        "st.global.v4.b16", // [f16; 4]
    ] {
        assert!(ptx.contains(form), "expected `{form}` in\n{ptx}");
    }
    Ok(())
}

#[test]
fn shared_tiles_parameters_comparisons_and_constants() -> Result<(), RunError> {
    let mut x: Vec<bf16> = (0..64)
        .map(|i| bf16::from_f32((i as f32 - 31.5) * 0.25))
        .collect();
    x[5] = bf16::NAN;
    x[58] = bf16::NAN;
    x[10] = x[53];
    let mut y = [bf16::ZERO; 64];
    let mut flags = [0u32; 64];
    let mut consts = [[f16::ZERO; 2]; 3];
    let (scale, limit) = (bf16::from_f32(1.5), f16::from_f32(2.0));
    let (q, r) = (f8e4m3::from_f32(0.75), f8e5m2::from_f32(-0.5));
    let launch = Launch {
        block: (64, 1, 1),
        ..Launch::default()
    };
    shared_and_params::simulate(
        &launch,
        (
            &x[..],
            &mut y[..],
            &mut flags[..],
            &mut consts[..],
            scale,
            limit,
            q,
            r,
        ),
    )?;
    for t in 0..64usize {
        let other = x[63 - t];
        let pair = [x[2 * (t / 2) + 1], x[2 * (t / 2)]];
        let v = other.to_f32() * scale.to_f32() + pair[t % 2].to_f32() * q.to_f32() + r.to_f32();
        assert!(same_bf16(y[t], bf16::from_f32(v)), "{t}");
        let mut f = 0;
        if other < x[t] {
            f |= 1;
        }
        if other == x[t] {
            f |= 2;
        }
        if other != x[t] {
            f |= 4;
        }
        if f16::from_f32(v) >= limit {
            f |= 8;
        }
        assert_eq!(flags[t], f, "flags of {t}: {other} vs {}", x[t]);
    }
    assert_eq!(flags[10] & 2, 2, "equal values compare equal");
    assert_eq!(flags[5] & 4, 4, "NaN is unequal");
    let fp8_as_f16 = |v: f32| f16::from_f32(f8e4m3::from_f32(v).to_f32());
    assert_eq!(consts[0], [f16::from_f32(1.5), f16::INFINITY]);
    assert_eq!(consts[1], [fp8_as_f16(0.1), f16::from_f32(448.0)]);
    assert_eq!(consts[2], [f16::from_f32(-3.0), f16::INFINITY]);
    // The constants exact in f32 are folded: no conversion to f16 is left but the two from
    // fp8 (through f32) and the one of `v as f16`.
    let ptx = shared_and_params::PTX;
    assert_eq!(ptx.matches("cvt.rn.f16.f32").count(), 3, "{ptx}");
    assert!(
        !ptx.contains("cvt.rn.f16.f64") && !ptx.contains("cvt.rn.f16.u32"),
        "{ptx}"
    );
    Ok(())
}

#[test]
fn every_kernel_assembles_for_its_target_and_reads_back() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let kernels = [
        ("axpy_halves", axpy_halves::PTX, axpy_halves::TARGET),
        ("narrow_f32", narrow_f32::PTX, narrow_f32::TARGET),
        (
            "halves_and_integers",
            halves_and_integers::PTX,
            halves_and_integers::TARGET,
        ),
        ("bf16_direct", bf16_direct::PTX, bf16_direct::TARGET),
        ("vectors", vectors::PTX, vectors::TARGET),
        (
            "shared_and_params",
            shared_and_params::PTX,
            shared_and_params::TARGET,
        ),
    ];
    for (name, ptx, target) in kernels {
        let number: u32 = target
            .trim_start_matches("sm_")
            .trim_end_matches('a')
            .parse()
            .unwrap();
        for arch in [SmVersion::new(number), SmVersion::arch_specific(90)] {
            if arch.number < number {
                continue;
            }
            let result = ptxas::assemble(&ptxas, ptx, arch).unwrap_or_else(|e| panic!("{e}"));
            assert!(result.clean, "{name} for {arch}:\n{}\n{ptx}", result.log);
        }
        let module = phasegate::ptx::parse(ptx).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            phasegate::ptx::write_string(&module),
            ptx,
            "{name} round trip"
        );
    }
    // Parameters: 2-byte `.b16` halves, 1-byte `.u8` fp8, described for the launch.
    let params = shared_and_params::SPEC.params;
    let kinds: Vec<ParamType> = params[4..].iter().map(|p| p.ty).collect();
    assert_eq!(
        kinds,
        [
            ParamType::Scalar(ScalarKind::Bf16),
            ParamType::Scalar(ScalarKind::F16),
            ParamType::Scalar(ScalarKind::F8E4M3),
            ParamType::Scalar(ScalarKind::F8E5M2),
        ]
    );
    assert_eq!(
        params[3].ty,
        ParamType::Slice {
            elem: ElemType {
                scalar: ScalarKind::F16,
                lanes: 2
            },
            mutable: true
        }
    );
    for decl in [
        ".param .b16 shared_and_params_param_4",
        ".param .u8 shared_and_params_param_6",
    ] {
        assert!(shared_and_params::PTX.contains(decl), "{decl}");
    }
    // Without fp8 or bf16-from-integer conversions, halves stay on sm_80.
    assert_eq!(axpy_halves::TARGET, "sm_80");
    assert_eq!(vectors::TARGET, "sm_89");
}

/// The book's example (`book/src/language/storage-floats.md` includes it from here).
// ANCHOR: scale_rows
#[kernel]
fn scale_rows(x: &[[bf16; 8]], y: &mut [[bf16; 8]], q: &mut [[f8e4m3; 4]], s: bf16, n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let r = x[i]; // ld.global.nc.v4.b32, four `mov.b32 {lo, hi}` unpacks
        let s = s as f32; // cvt.f32.bf16
        y[i] = [r[1], r[0], r[3], r[2], r[5], r[4], r[7], r[6]]; // packs, st.global.v4.b32
        q[i] = [
            (r[0] as f32 * s) as f8e4m3, // cvt.rn.satfinite.e4m3x2.f32 (sm_89)
            r[1] as f8e4m3,
            r[2] as f8e4m3,
            r[3] as f8e4m3,
        ]; // st.global.v4.u8
    }
}
// ANCHOR_END: scale_rows

#[test]
fn the_book_example_does_what_it_says() -> Result<(), RunError> {
    let n = 10usize;
    let x: Vec<[bf16; 8]> = (0..n)
        .map(|i| std::array::from_fn(|l| bf16::from_f32(i as f32 * 3.5 - l as f32 * 17.25)))
        .collect();
    let (mut y, mut q) = (vec![[bf16::ZERO; 8]; n], vec![[f8e4m3::ZERO; 4]; n]);
    let s = bf16::from_f32(-2.5);
    scale_rows::simulate(
        &launch(n as u32),
        (&x[..], &mut y[..], &mut q[..], s, n as u32),
    )?;
    for i in 0..n {
        let r = x[i];
        assert_eq!(y[i], [r[1], r[0], r[3], r[2], r[5], r[4], r[7], r[6]]);
        let want = [
            r[0].to_f32() * s.to_f32(),
            r[1].to_f32(),
            r[2].to_f32(),
            r[3].to_f32(),
        ];
        for l in 0..4 {
            assert_eq!(
                q[i][l].to_bits(),
                f8e4m3::from_f32(want[l]).to_bits(),
                "{i} {l}"
            );
        }
    }
    let ptx = scale_rows::PTX;
    for form in [
        "ld.global.nc.v4.b32",
        "cvt.f32.bf16",
        "st.global.v4.b32",
        "cvt.rn.satfinite.e4m3x2.f32",
        "st.global.v4.u8",
        ".param .b16 scale_rows_param_3",
    ] {
        assert!(ptx.contains(form), "expected `{form}` in\n{ptx}");
    }
    assert_eq!(scale_rows::TARGET, "sm_89");
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, ptx, SmVersion::new(89)).unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
    Ok(())
}

/// A bulk-copy pipeline of bf16 tiles (16 bytes a vector), scaled into f32.
#[kernel(target = "sm_90a", block = "160,1,1")]
fn bf16_pipeline(x: &[[bf16; 8]], y: &mut [[f32; 4]], tiles: u32) {
    const TILE: u32 = 256;
    let pipe = pipeline::<[bf16; 8], 2, { TILE as usize }>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for tile in 0..tiles {
                producer.acquire().load(x, tile * TILE);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let t = thread_idx_x() - 32;
        for tile in 0..tiles {
            let slot = consumer.wait();
            for j in 0..TILE / 128 {
                let k = t + j * 128;
                let v = slot.get(k);
                let at = 2 * (tile * TILE + k);
                y[at] = [v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32];
                y[at + 1] = [v[4] as f32, v[5] as f32, v[6] as f32, v[7] as f32];
            }
            slot.release();
        }
    }
}

#[test]
fn bf16_tiles_stream_through_a_bulk_copy_pipeline() -> Result<(), RunError> {
    let tiles = 3usize;
    let x: Vec<[bf16; 8]> = (0..tiles * 256)
        .map(|i| std::array::from_fn(|l| bf16::from_f32((i * 8 + l) as f32 * 0.01 - 5.0)))
        .collect();
    let mut y = vec![[0f32; 4]; tiles * 512];
    let launch = Launch {
        block: (160, 1, 1),
        dynamic_shared_bytes: bf16_pipeline::SPEC.dynamic_shared_bytes,
        ..Launch::default()
    };
    bf16_pipeline::simulate(&launch, (&x[..], &mut y[..], tiles as u32))?;
    for (i, row) in x.iter().enumerate() {
        let got: Vec<f32> = y[2 * i].iter().chain(&y[2 * i + 1]).copied().collect();
        let want: Vec<f32> = row.iter().map(|v| v.to_f32()).collect();
        assert_eq!(got, want, "vector {i}");
    }
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, bf16_pipeline::PTX, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
    Ok(())
}

/// fp8 vectors of 8 and 16 bytes: packed words, bytes in memory order.
#[kernel]
fn fp8_rows(x: &[[f8e4m3; 16]], y: &mut [[f8e5m2; 8]], z: &mut [[f8e4m3; 16]], n: u32) {
    let i = block_idx_x() * block_dim_x() + thread_idx_x();
    if i < n {
        let r = x[i];
        y[i] = [
            r[15] as f8e5m2,
            r[14] as f8e5m2,
            r[13] as f8e5m2,
            r[12] as f8e5m2,
            r[3] as f8e5m2,
            r[2] as f8e5m2,
            r[1] as f8e5m2,
            r[0] as f8e5m2,
        ];
        let mut w = r;
        w[5] = (r[5] as f32 * -2.0f32) as f8e4m3;
        w[10] = r[11];
        z[i] = w;
    }
}

#[test]
fn fp8_vectors_of_8_and_16_bytes_keep_byte_order() -> Result<(), RunError> {
    let n = 20usize;
    let x: Vec<[f8e4m3; 16]> = (0..n)
        .map(|i| std::array::from_fn(|l| f8e4m3::from_bits((i * 16 + l * 7) as u8)))
        .collect();
    let (mut y, mut z) = (vec![[f8e5m2::ZERO; 8]; n], vec![[f8e4m3::ZERO; 16]; n]);
    fp8_rows::simulate(
        &launch(n as u32),
        (&x[..], &mut y[..], &mut z[..], n as u32),
    )?;
    let e5 = |v: f8e4m3| f8e5m2::from_f32(v.to_f32()).to_bits();
    for i in 0..n {
        let r = x[i];
        let want: Vec<u8> = [15, 14, 13, 12, 3, 2, 1, 0]
            .iter()
            .map(|&l| e5(r[l]))
            .collect();
        let got: Vec<u8> = y[i].iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, want, "row {i}");
        let mut w: Vec<u8> = r.iter().map(|v| v.to_bits()).collect();
        w[5] = f8e4m3::from_f32(r[5].to_f32() * -2.0).to_bits();
        w[10] = r[11].to_bits();
        let got: Vec<u8> = z[i].iter().map(|v| v.to_bits()).collect();
        // NaN codes come back canonical from a conversion; the others as they were.
        for l in 0..16 {
            let (a, b) = (f8e4m3::from_bits(got[l]), f8e4m3::from_bits(w[l]));
            assert!(
                got[l] == w[l] || (a.is_nan() && b.is_nan()),
                "row {i} lane {l}"
            );
        }
    }
    let ptx = fp8_rows::PTX;
    for form in [
        "ld.global.nc.v4.b32",
        "st.global.v2.b32",
        "st.global.v4.b32",
    ] {
        assert!(ptx.contains(form), "expected `{form}` in\n{ptx}");
    }
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, ptx, SmVersion::new(89)).unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
    Ok(())
}

#[path = "../examples/quantize.rs"]
#[allow(dead_code)]
mod quantize;

/// The quantize example (which the GPU differential also runs): halves rounded once from
/// f64 just above each input, fp8 saturating, all widened back.
#[test]
fn the_quantize_example_rounds_once_and_saturates() -> Result<(), RunError> {
    let x: Vec<f32> = edge_inputs();
    let n = x.len();
    let (mut h, mut b) = (vec![f16::ZERO; n], vec![bf16::ZERO; n]);
    let (mut q4, mut q5) = (vec![f8e4m3::ZERO; n], vec![f8e5m2::ZERO; n]);
    let mut back = vec![[0f32; 4]; n];
    quantize::quantize::simulate(
        &launch(n as u32),
        (
            &x[..],
            &mut h[..],
            &mut b[..],
            &mut q4[..],
            &mut q5[..],
            &mut back[..],
            n as u32,
        ),
    )?;
    let mut ties_up = 0;
    for i in 0..n {
        let above = x[i] as f64 + 9.094947017729282e-13;
        assert!(
            same_f16(h[i], f16_once(above)),
            "f16 of {above:e}: {:?}",
            h[i]
        );
        assert!(
            same_bf16(b[i], bf16_once(above)),
            "bf16 of {above:e}: {:?}",
            b[i]
        );
        ties_up += (h[i] != f16::from_f32(above as f32)) as u32;
        assert!(same_e4m3(q4[i], f8e4m3::from_f32(x[i])));
        assert!(same_e5m2(q5[i], f8e5m2::from_f32(x[i])));
        let want = [h[i].to_f32(), b[i].to_f32(), q4[i].to_f32(), q5[i].to_f32()];
        for l in 0..4 {
            assert!(back[i][l] == want[l] || (back[i][l].is_nan() && want[l].is_nan()));
        }
    }
    assert!(ties_up > 100, "the inputs hold f16 ties: {ties_up}");
    Ok(())
}

/// bf16 tiles of a row-major matrix through a tensor map (`CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`)
/// and a pipeline, widened to f32.
#[kernel(target = "sm_90a", block = "160,1,1")]
fn bf16_tma(x: TensorMap<bf16, Tile2<64, 8>>, y: &mut [f32], width: u32, tiles: u32) {
    let pipe = pipeline::<bf16, 2, 512>(thread_idx_x() == 0, 1, 128);
    if warp_id() == 0 {
        if elect_one() {
            let mut producer = pipe.producer();
            for t in 0..tiles {
                producer.acquire().load_tile(&x, [0, t * 8]);
            }
        }
    } else {
        let mut consumer = pipe.consumer();
        let k0 = thread_idx_x() - 32;
        for t in 0..tiles {
            let slot = consumer.wait();
            for j in 0..4u32 {
                let k = k0 + j * 128;
                y[(t * 8 + k / 64) * width + k % 64] = slot.get(k) as f32;
            }
            slot.release();
        }
    }
}

#[test]
fn bf16_tiles_come_through_a_tensor_map() -> Result<(), RunError> {
    let (w, h) = (64u32, 24u32);
    let x: Vec<bf16> = (0..w * h)
        .map(|i| bf16::from_f32(i as f32 * 0.75 - 300.0))
        .collect();
    let map = bf16_tma::SPEC
        .map_type("x")
        .expect("a map parameter")
        .tiled(0, &[w as u64, h as u64], &[w as u64 * 2])
        .expect("a valid map");
    let bytes: Vec<u8> = x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
    let x_arg = phasegate::runtime::sim::TensorMapArg::owning(map, bytes);
    let mut y = vec![0f32; (w * h) as usize];
    let launch = Launch {
        block: (160, 1, 1),
        ..Launch::default()
    };
    bf16_tma::simulate(&launch, (&x_arg, &mut y[..], w, h / 8))?;
    let want: Vec<f32> = x.iter().map(|v| v.to_f32()).collect();
    assert_eq!(y, want);
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    let result = ptxas::assemble(&ptxas, bf16_tma::PTX, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
    Ok(())
}
