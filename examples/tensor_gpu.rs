//! The simulator's tensor cores against the GPU: the fixtures `tests/sim/tensor_mma.ptx` and
//! `tests/sim/tensor_wgmma.ptx` (every entry that is not a planted bug, wgmma in every swizzle
//! mode and major-ness) and Triton's matmul and attention kernels from the real-world corpus,
//! run both ways on the same inputs.
//!
//! - With small integer inputs every product and sum is exact: the outputs must agree bit for
//!   bit (the process exits non-zero otherwise).
//! - With fractional inputs the accumulation order and rounding of the tensor cores, which the
//!   PTX ISA leaves unspecified, show: the differences are printed (elements that differ and
//!   the largest difference in units of the last place of the output type).
//!
//! `cargo run --release --features cuda --example tensor_gpu` on a Hopper GPU (the driver is
//! loaded at run time; sm_80 kernels run there too).

use phasegate::runtime::cuda::Gpu;
use phasegate::runtime::sim::{ArgValue, Launch, Outcome, simulate_ptx};
use phasegate::runtime::{ElemType, KernelSpec, ParamSpec, ParamType, ScalarKind};
use std::time::Duration;

const MMA: &str = include_str!("../tests/sim/tensor_mma.ptx");
const WGMMA: &str = include_str!("../tests/sim/tensor_wgmma.ptx");
const HALF: &str = include_str!("../tests/sim/half.ptx");

fn triton(name: &str) -> &'static str {
    match name {
        "matmul_sm80" => include_str!("../tests/realworld/triton/matmul_sm80.ptx"),
        "matmul_sm90a" => include_str!("../tests/realworld/triton/matmul_sm90a.ptx"),
        "matmul_bf16_sm90a" => include_str!("../tests/realworld/triton/matmul_bf16_sm90a.ptx"),
        "matmul_fp8_sm90a" => include_str!("../tests/realworld/triton/matmul_fp8_sm90a.ptx"),
        "attn_fwd_sm80" => include_str!("../tests/realworld/triton/attn_fwd_sm80.ptx"),
        "attn_fwd_sm90a" => include_str!("../tests/realworld/triton/attn_fwd_sm90a.ptx"),
        _ => unreachable!("{name}"),
    }
}

/// A deterministic stream of numbers (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// Element formats: (exponent bits, mantissa bits) of the floats; bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    F16,
    Bf16,
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
    F32,
    S32,
}

impl Ty {
    fn bytes(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 2,
            Ty::E4m3 | Ty::E5m2 | Ty::S8 | Ty::U8 => 1,
            _ => 4,
        }
    }
    fn float_bits(self) -> Option<(i32, i32)> {
        match self {
            Ty::F16 => Some((5, 10)),
            Ty::Bf16 => Some((8, 7)),
            Ty::E4m3 => Some((4, 3)),
            Ty::E5m2 => Some((5, 2)),
            Ty::Tf32 | Ty::F32 => Some((8, 23)),
            _ => None,
        }
    }
    /// A random element: a small integer (`exact`), or a fraction of magnitude below 2 with a
    /// random mantissa; tf32 gets random bits in the 13 bits the tensor cores ignore.
    fn sample(self, rng: &mut Rng, exact: bool) -> u32 {
        let Some((e, m)) = self.float_bits() else {
            let v = match self {
                Ty::U8 => rng.int(0, 6),
                _ => rng.int(-5, 5),
            };
            return v as u32 & if self == Ty::S32 { u32::MAX } else { 0xff };
        };
        let bias = (1 << (e - 1)) - 1;
        let sign = (rng.next() as u32 & 1) << (e + m);
        let bits = if exact {
            let v = rng.int(0, 4) as u32;
            if v == 0 {
                0
            } else {
                // v = 2^x * (1 + f): v in 1..=4 needs 2 mantissa bits.
                let x = 31 - v.leading_zeros();
                let f = (v - (1 << x)) << (m as u32 - x);
                ((bias as u32 + x) << m) | f
            }
        } else {
            let exp = bias as u32 - rng.int(0, 6) as u32;
            (exp << m) | (rng.next() as u32 & ((1 << m) - 1))
        };
        let garbage = if self == Ty::Tf32 {
            rng.next() as u32 & 0x1fff
        } else {
            0
        };
        sign | bits | garbage
    }
    fn buffer(self, rng: &mut Rng, n: usize, exact: bool) -> ArgValue {
        let mut out = Vec::with_capacity(n * self.bytes());
        for _ in 0..n {
            out.extend_from_slice(&self.sample(rng, exact).to_le_bytes()[..self.bytes()]);
        }
        ArgValue::Buffer(out)
    }
    /// Registers of `per`-element words.
    fn words(self, rng: &mut Rng, n: usize, exact: bool) -> ArgValue {
        let per = 4 / self.bytes();
        let mut out = Vec::with_capacity(n * 4);
        for _ in 0..n {
            let mut w = 0u32;
            for e in 0..per {
                w |= self.sample(rng, exact) << (8 * self.bytes() * e);
            }
            out.extend_from_slice(&w.to_le_bytes());
        }
        ArgValue::Buffer(out)
    }
}

/// A launch of `ptx`'s `entry` with `args`, in the simulator and on the GPU.
struct Case {
    name: String,
    ptx: &'static str,
    entry: &'static str,
    launch: Launch,
    args: Vec<ArgValue>,
    /// The output arguments and their element formats.
    outputs: Vec<(usize, Ty)>,
    /// Outputs must agree bit for bit.
    exact: bool,
}

/// The PTX as the driver takes it: without comments (the fixtures cite the spec with `§`,
/// which the JIT refuses) and with Triton's `.version 9.4` header as the 9.0 its instructions
/// are limited to (tests/realworld/triton/SOURCES.md), for drivers older than CUDA 13.4.
fn for_driver(ptx: &str) -> &'static str {
    let text: String = ptx
        .lines()
        .map(|l| {
            let code = l.split("//").next().unwrap_or("");
            if code.trim() == ".version 9.4" {
                ".version 9.0"
            } else {
                code
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Box::leak(text.into_boxed_str())
}

fn spec(case: &Case) -> KernelSpec {
    let params: Vec<ParamSpec> = case
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| ParamSpec {
            name: Box::leak(format!("p{i}").into_boxed_str()),
            ty: match a {
                ArgValue::Buffer(_) => ParamType::Slice {
                    elem: ElemType {
                        scalar: ScalarKind::U32,
                        lanes: 1,
                    },
                    mutable: true,
                },
                ArgValue::U64(_) => ParamType::Scalar(ScalarKind::U64),
                ArgValue::I32(_) => ParamType::Scalar(ScalarKind::I32),
                ArgValue::F32(_) => ParamType::Scalar(ScalarKind::F32),
                _ => ParamType::Scalar(ScalarKind::U32),
            },
        })
        .collect();
    KernelSpec {
        entry: case.entry,
        ptx: for_driver(case.ptx),
        target: "sm_90a",
        params: Box::leak(params.into_boxed_slice()),
        static_shared_bytes: 0,
        dynamic_shared_bytes: 0,
        cluster_dims: None,
        block_dims: None,
        max_threads: None,
    }
}

/// The distance in units of the last place between two values of `ty` (integers: the
/// difference).
fn ulps(ty: Ty, a: u32, b: u32) -> u64 {
    let key = |x: u32| -> i64 {
        match ty {
            Ty::F16 | Ty::Bf16 => {
                let s = x & 0x8000 != 0;
                let m = (x & 0x7fff) as i64;
                if s { -m } else { m }
            }
            Ty::F32 => {
                let s = x & 0x8000_0000 != 0;
                let m = (x & 0x7fff_ffff) as i64;
                if s { -m } else { m }
            }
            _ => x as i32 as i64,
        }
    };
    key(a).abs_diff(key(b))
}

/// Per output: (elements compared, elements that differ, largest difference in ulps, largest
/// difference relative to the largest magnitude in the output).
type Diff = Vec<(usize, usize, u64, f64)>;

/// The value of an output element (floats; integers as they are).
fn value(ty: Ty, x: u32) -> f64 {
    let f = |e: i32, m: i32, x: u32| -> f64 {
        let bias = (1 << (e - 1)) - 1;
        let sign = if x >> (e + m) & 1 == 1 { -1.0 } else { 1.0 };
        let exp = ((x >> m) & ((1 << e) - 1)) as i32;
        let man = (x & ((1 << m) - 1)) as f64 / 2f64.powi(m);
        if exp == 0 {
            sign * man * 2f64.powi(1 - bias)
        } else {
            sign * (1.0 + man) * 2f64.powi(exp - bias)
        }
    };
    match ty {
        Ty::F16 => f(5, 10, x),
        Ty::Bf16 => f(8, 7, x),
        Ty::F32 => f32::from_bits(x) as f64,
        _ => x as i32 as f64,
    }
}

/// Runs a case both ways and compares its outputs.
fn compare(gpu: &Gpu, case: &Case) -> Result<Diff, String> {
    let mut sim = case.args.clone();
    match simulate_ptx(case.ptx, case.entry, &case.launch, &mut sim) {
        Ok(Outcome::Completed(_)) => {}
        Ok(Outcome::Finding(r)) => return Err(format!("the simulator reported:\n{r}")),
        Err(e) => return Err(format!("simulator error: {e}")),
    }
    let mut dev = case.args.clone();
    gpu.launch_values(&spec(case), &case.launch, &mut dev, Duration::from_secs(60))
        .map_err(|e| e.to_string())?;
    if case.entry == "half_ops" {
        explain_half(&case.args[0], &sim[1], &dev[1]);
    }
    let mut out = Vec::new();
    for &(i, ty) in &case.outputs {
        let (ArgValue::Buffer(s), ArgValue::Buffer(g)) = (&sim[i], &dev[i]) else {
            return Err(format!("argument {i} is not a buffer"));
        };
        let (mut n, mut diff, mut worst, mut abs, mut scale) = (0, 0, 0, 0.0f64, 0.0f64);
        let w = ty.bytes();
        for (x, y) in s.chunks(w).zip(g.chunks(w)) {
            let mut a = [0u8; 4];
            let mut b = [0u8; 4];
            a[..w].copy_from_slice(x);
            b[..w].copy_from_slice(y);
            let (a, b) = (u32::from_le_bytes(a), u32::from_le_bytes(b));
            n += 1;
            scale = scale.max(value(ty, a).abs());
            if a != b {
                diff += 1;
                worst = worst.max(ulps(ty, a, b));
                abs = abs.max((value(ty, a) - value(ty, b)).abs());
            }
        }
        out.push((n, diff, worst, abs / scale.max(f64::MIN_POSITIVE)));
    }
    Ok(out)
}

fn launch(grid: (u32, u32, u32), threads: u32, smem: u32) -> Launch {
    Launch {
        grid,
        block: (threads, 1, 1),
        dynamic_shared_bytes: smem,
        ..Launch::default()
    }
}

fn mma_cases(rng: &mut Rng, exact: bool) -> Vec<Case> {
    use Ty::*;
    // (entry, A, B, C/D, registers of A, B, C, D)
    let all = [
        ("mma_f16_f32", F16, F16, F32, 4, 2, 4, 4),
        ("mma_bf16_f32", Bf16, Bf16, F32, 4, 2, 4, 4),
        ("mma_f16_f16", F16, F16, F16, 4, 2, 2, 2),
        ("mma_f16_k8", F16, F16, F32, 2, 1, 4, 4),
        ("mma_tf32_k8", Tf32, Tf32, F32, 4, 2, 4, 4),
        ("mma_tf32_k4", Tf32, Tf32, F32, 2, 1, 4, 4),
        ("mma_s8_k32", S8, S8, S32, 4, 2, 4, 4),
        ("mma_u8s8_k16", U8, S8, S32, 2, 1, 4, 4),
        ("mma_s8_k32_satfinite", S8, S8, S32, 4, 2, 4, 4),
        ("mma_e4m3e5m2_k32", E4m3, E5m2, F32, 4, 2, 4, 4),
    ];
    let mut cases = Vec::new();
    for (entry, a, b, c, na, nb, nc, nd) in all {
        if !exact && matches!(c, S32) {
            continue;
        }
        // The second operand of mixed fp8 uses its own format per byte; e5m2's small values
        // are e4m3's too, so one sampler serves.
        let mut c_words = c.words(rng, 32 * nc, exact);
        if entry == "mma_s8_k32_satfinite" {
            // Near the top of the s32 range, so that the sums overflow.
            c_words = ArgValue::buffer(&vec![i32::MAX - 40; 32 * nc]);
        }
        cases.push(Case {
            name: entry.into(),
            ptx: MMA,
            entry,
            launch: launch((1, 1, 1), 32, 0),
            args: vec![
                a.words(rng, 32 * na, exact),
                b.words(rng, 32 * nb, exact),
                c_words,
                ArgValue::zeroed(32 * nd * 4),
            ],
            outputs: vec![(3, c)],
            exact,
        });
    }
    if exact {
        // ldmatrix in every form; stmatrix .x4 (what .x1 and .x2 leave unwritten of the
        // fixture's tile is uninitialised on the GPU).
        let matrix_moves = [
            "ldsm_x1",
            "ldsm_x1_trans",
            "ldsm_x2",
            "ldsm_x2_trans",
            "ldsm_x4",
            "ldsm_x4_trans",
            "stsm_x4",
            "stsm_x4_trans",
        ];
        for entry in matrix_moves {
            let (src, out) = if entry.starts_with("ldsm") {
                let num: usize = entry[6..7].parse().expect("x1, x2 or x4");
                (512, 32 * num * 4)
            } else {
                (512, 512)
            };
            let bytes: Vec<u8> = (0..src).map(|_| rng.next() as u8).collect();
            cases.push(Case {
                name: entry.into(),
                ptx: MMA,
                entry,
                launch: launch((1, 1, 1), 32, 0),
                args: vec![ArgValue::Buffer(bytes), ArgValue::zeroed(out)],
                outputs: vec![(1, Ty::S32)],
                exact,
            });
        }
    }
    cases
}

/// A descriptor (without its start address) of an operand `mn` wide, 32 bytes deep in K.
fn layout(mn_major: bool, swizzle: u32, mn: u64, eb: u64, room: u64) -> u64 {
    let s = swizzle as u64;
    let (lbo, sbo) = match (mn_major, s) {
        (false, 0) => (128, 512),
        (false, s) => (16, if mn * s * 2 <= room { 16 * s } else { 8 * s }),
        (true, 0) => (mn * eb / 16 * 256, 256),
        (true, s) => (16 * s, (mn * eb).div_ceil(s) * 16 * s),
    };
    let mode = match s {
        0 => 0u64,
        128 => 1,
        64 => 2,
        _ => 3,
    };
    ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | mode << 62
}

fn wgmma_cases(rng: &mut Rng, exact: bool) -> Vec<Case> {
    use Ty::*;
    // (entry, A, B, D, N, registers of D per thread, A MN-major, B MN-major)
    let all = [
        ("wgmma_f16_kk", F16, F16, F32, 64, 32, false, false),
        ("wgmma_f16_mn", F16, F16, F32, 64, 32, true, true),
        ("wgmma_f16_neg_a", F16, F16, F32, 64, 32, false, true),
        ("wgmma_bf16_n256", Bf16, Bf16, F32, 256, 128, false, true),
        ("wgmma_f16_f16acc", F16, F16, F16, 32, 8, false, true),
        ("wgmma_tf32", Tf32, Tf32, F32, 16, 8, false, false),
        ("wgmma_e4m3", E4m3, E4m3, F32, 32, 16, false, false),
        ("wgmma_s8u8", S8, U8, S32, 32, 16, false, false),
        ("wgmma_f16_reg_a", F16, F16, F32, 64, 32, false, true),
    ];
    let mut cases = Vec::new();
    for (entry, a, b, d, n, nd, am, bm) in all {
        if !exact && matches!(d, S32) {
            continue;
        }
        let eb = a.bytes() as u64;
        let modes: &[(u32, u32)] = if exact {
            &[(0, 0), (32, 64), (64, 128), (128, 32), (128, 128)]
        } else {
            &[(128, 128)]
        };
        for &(sa, sb) in modes {
            let d_words = d.words(rng, 128 * nd, exact);
            cases.push(Case {
                name: format!("{entry} (swizzle {sa}/{sb})"),
                ptx: WGMMA,
                entry,
                launch: launch((1, 1, 1), 128, 49152),
                args: vec![
                    a.buffer(rng, 16384 / a.bytes(), exact),
                    b.buffer(rng, 32768 / b.bytes(), exact),
                    ArgValue::U64(layout(am, sa, 64, eb, 16384)),
                    ArgValue::U64(layout(bm, sb, n, eb, 32768)),
                    ArgValue::U32(1),
                    d_words,
                    ArgValue::zeroed(128 * nd * 4),
                ],
                outputs: vec![(6, d)],
                exact,
            });
        }
    }
    cases
}

fn triton_cases(rng: &mut Rng, exact: bool) -> Vec<Case> {
    let mut cases = Vec::new();
    // (file, threads, shared bytes, BM, BN, input, output)
    let matmuls = [
        ("matmul_sm80", 256, 98304, 128, 128, Ty::F16, Ty::F16),
        ("matmul_sm90a", 256, 131072, 128, 128, Ty::F16, Ty::F16),
        (
            "matmul_bf16_sm90a",
            256,
            147456,
            128,
            256,
            Ty::Bf16,
            Ty::Bf16,
        ),
        ("matmul_fp8_sm90a", 256, 81920, 128, 128, Ty::E4m3, Ty::F16),
    ];
    for (file, threads, smem, bm, bn, input, output) in matmuls {
        let (m, n, k) = (256u32, 256u32, 256u32);
        let tiles = m.div_ceil(bm) * n.div_ceil(bn);
        cases.push(Case {
            name: format!("triton {file} {m}x{n}x{k}"),
            ptx: triton(file),
            entry: "matmul",
            launch: launch((tiles, 1, 1), threads, smem),
            args: vec![
                input.buffer(rng, (m * k) as usize, exact),
                input.buffer(rng, (k * n) as usize, exact),
                ArgValue::zeroed((m * n) as usize * output.bytes()),
                ArgValue::I32(m as i32),
                ArgValue::I32(n as i32),
                ArgValue::I32(k as i32),
                ArgValue::I32(k as i32),
                ArgValue::I32(n as i32),
                ArgValue::I32(n as i32),
                ArgValue::zeroed(16),
                ArgValue::zeroed(16),
            ],
            outputs: vec![(2, output)],
            exact,
        });
    }
    if !exact {
        for (file, smem) in [("attn_fwd_sm80", 49152), ("attn_fwd_sm90a", 65536)] {
            let (h, n_ctx, d) = (2usize, 192usize, 64usize);
            let sz = h * n_ctx * d;
            cases.push(Case {
                name: format!("triton {file} H={h} N_CTX={n_ctx}"),
                ptx: triton(file),
                entry: "attn_fwd",
                launch: launch(((n_ctx as u32).div_ceil(128), h as u32, 1), 128, smem),
                args: vec![
                    Ty::F16.buffer(rng, sz, false),
                    Ty::F16.buffer(rng, sz, false),
                    Ty::F16.buffer(rng, sz, false),
                    ArgValue::zeroed(sz * 2),
                    ArgValue::zeroed(h * n_ctx * 4),
                    ArgValue::F32(0.125),
                    ArgValue::I32((h * n_ctx * d) as i32),
                    ArgValue::I32((n_ctx * d) as i32),
                    ArgValue::I32(d as i32),
                    ArgValue::I32(h as i32),
                    ArgValue::I32(n_ctx as i32),
                    ArgValue::zeroed(16),
                    ArgValue::zeroed(16),
                ],
                outputs: vec![(3, Ty::F16), (4, Ty::F32)],
                exact: false,
            });
        }
    }
    cases
}

/// The operations of `half_ops`, in the order of its results.
const HALF_OPS: [&str; 24] = [
    "cvt.rn.f16x2.f32",
    "cvt.rn.bf16x2.f32",
    "cvt.rn.relu.f16x2.f32",
    "cvt.rn.satfinite.e4m3x2.f32",
    "cvt.rn.satfinite.e5m2x2.f32",
    "cvt.rn.satfinite.e4m3x2.f16x2",
    "cvt.rn.f16x2.e4m3x2",
    "cvt.rn.f16x2.e5m2x2",
    "cvt.rn.f16.f32",
    "cvt.rn.bf16.f32",
    "cvt.f32.f16",
    "cvt.f32.bf16",
    "add.rn.f16x2",
    "sub.rn.f16x2",
    "mul.rn.f16x2",
    "fma.rn.f16x2",
    "fma.rn.relu.f16x2",
    "add.rn.bf16x2",
    "mul.rn.bf16x2",
    "fma.rn.bf16x2",
    "min.f16x2",
    "max.bf16x2",
    "neg.f16x2",
    "abs.bf16x2",
];

/// Per operation of `half_ops`: how many results differ, and the first three with their inputs.
fn explain_half(input: &ArgValue, sim: &ArgValue, dev: &ArgValue) {
    let (input, sim, dev): (Vec<u32>, Vec<u32>, Vec<u32>) = (input.read(), sim.read(), dev.read());
    for (j, name) in HALF_OPS.iter().enumerate() {
        let bad: Vec<usize> = (0..sim.len() / 24)
            .filter(|&t| sim[t * 24 + j] != dev[t * 24 + j])
            .collect();
        if bad.is_empty() {
            continue;
        }
        print!("  {name}: {} differ;", bad.len());
        for &t in bad.iter().take(3) {
            print!(
                " a {:08x} b {:08x} c {:08x}: sim {:08x} gpu {:08x};",
                input[3 * t],
                input[3 * t + 1],
                input[3 * t + 2],
                sim[t * 24 + j],
                dev[t * 24 + j]
            );
        }
        println!();
    }
}

/// `half_ops` (24 conversions and packed operations per thread) on words that mix random bit
/// patterns, f32 values around the f16 range, packed halves, values halfway between two f16
/// or bf16 values, and zeros, infinities, NaNs and subnormals.
fn half_case(rng: &mut Rng) -> Case {
    let threads = 8192usize;
    let specials = [
        0u32,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x3380_0000,
        0x477f_f000,
        0x477f_e000,
        0x7c00_fc00,
        0x7e00_0001,
        0x0001_8001,
        0x43e0_0000,
    ];
    let mut words = Vec::with_capacity(threads * 3);
    for _ in 0..threads * 3 {
        let r = rng.next();
        let w = match r % 6 {
            0 => (r >> 8) as u32,
            1 => {
                let exp = 127 - 30 + ((r >> 8) % 50) as u32;
                ((r >> 16) as u32 & 0x8000_0000) | (exp << 23) | ((r >> 24) as u32 & 0x7f_ffff)
            }
            2 => {
                let h =
                    |x: u64| ((x & 0x8000) | (((x >> 16) % 31) << 10) | ((x >> 24) & 0x3ff)) as u32;
                (h(r >> 8) << 16) | h(r >> 32)
            }
            3 => {
                // Halfway between two f16 (13 dropped bits 1 0...0) or bf16 (16 bits 1 0...0).
                let x = (r >> 8) as u32 & 0x47ff_ffff;
                if r & 0x100 == 0 {
                    (x & !0x1fff) | 0x1000
                } else {
                    (x & !0xffff) | 0x8000
                }
            }
            _ => specials[(r >> 8) as usize % specials.len()],
        };
        words.push(w);
    }
    Case {
        name: "half_ops (8192 threads x 24 ops)".into(),
        ptx: HALF,
        entry: "half_ops",
        launch: launch((threads as u32 / 256, 1, 1), 256, 0),
        args: vec![
            ArgValue::buffer(&words),
            ArgValue::zeroed(threads * 24 * 4),
            ArgValue::U32(threads as u32),
        ],
        outputs: vec![(1, Ty::S32)],
        exact: true,
    }
}

fn main() {
    let gpu = match Gpu::new(0) {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let mut rng = Rng(0x0005_eed7_e450_c0e5_u64);
    let mut cases = vec![half_case(&mut rng)];
    for exact in [true, false] {
        cases.extend(mma_cases(&mut rng, exact));
        cases.extend(wgmma_cases(&mut rng, exact));
        cases.extend(triton_cases(&mut rng, exact));
    }
    let mut failed = 0;
    for case in &cases {
        let what = if case.exact { "exact" } else { "fractional" };
        match compare(&gpu, case) {
            Ok(diffs) => {
                let mut line = format!("{:<44} {what:<10}", case.name);
                let mut bad = false;
                for (k, (n, diff, worst, rel)) in diffs.into_iter().enumerate() {
                    let ty = case.outputs[k].1;
                    if diff == 0 {
                        line += &format!(" | {n} {ty:?}: identical");
                    } else {
                        line += &format!(
                            " | {n} {ty:?}: {diff} differ, <= {worst} ulp, <= 2^{:.1} of the largest",
                            rel.log2()
                        );
                        bad = true;
                    }
                }
                println!("{line}");
                if bad && case.exact {
                    failed += 1;
                }
            }
            Err(e) => {
                println!("{:<44} {what:<10} FAILED: {e}", case.name);
                failed += 1;
            }
        }
    }
    println!("tensor_gpu: {} cases, {failed} failed", cases.len());
    if failed > 0 {
        std::process::exit(1);
    }
}
