//! Triton 3.9's tensor-core kernels from the real-world corpus (`tests/realworld/triton/`, see
//! SOURCES.md for their signatures and shared memory), simulated on small problems and
//! compared with a float64 reference.
//!
//! - sm_80 kernels: `ldmatrix` (.x4, .trans) feeding `mma.sync.m16n8k16.f32.f16.f16.f32`;
//! - sm_90a kernels: `wgmma.mma_async` with 128-byte-swizzled shared-memory descriptors
//!   (K-major A, N-major B), `fence.proxy.async` after `cp.async`, `wgmma.wait_group 1`
//!   pipelining; attention also takes A from registers.
//!
//! Kernels: matmul (f16 sm_80 and sm_90a, bf16 with N = 256, fp8 e4m3), attention forward
//! (HEAD_DIM 64, and causal with 128) and backward (causal), on both targets.
//!
//! Tolerances. With integer inputs every product and sum is exact, so the outputs must equal
//! the reference. With fractional inputs the f32 accumulation (the simulator sums each output
//! in f64 and rounds once; the hardware's order and rounding are unspecified) is far below the
//! output's rounding: the bound is half an ulp of the output type (2^-11 relative for f16,
//! 2^-8 for bf16) plus K * 2^-23 times the sum of the products' magnitudes. Attention rounds P
//! to f16 before P·V and uses `ex2.approx`; its bound is stated where it is checked.

use phasegate_sim::{ArgValue, Launch, Outcome, simulate_ptx};

fn kernel(name: &str) -> String {
    let path = format!(
        "{}/../tests/realworld/triton/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn run(
    name: &str,
    entry: &str,
    grid: (u32, u32, u32),
    threads: u32,
    smem: u32,
    args: &mut [ArgValue],
) {
    let launch = Launch {
        grid,
        block: (threads, 1, 1),
        dynamic_shared_bytes: smem,
        ..Launch::default()
    };
    match simulate_ptx(&kernel(name), entry, &launch, args) {
        Ok(Outcome::Completed(_)) => {}
        Ok(Outcome::Finding(r)) => panic!("{name}: unexpected finding:\n{r}"),
        Err(e) => panic!("{name}: {e}"),
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
    /// An integer in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

/// The narrow float formats of the kernels' buffers.
#[derive(Clone, Copy, Debug)]
enum Ty {
    F16,
    Bf16,
    E4m3,
}

impl Ty {
    fn bytes(self) -> usize {
        match self {
            Ty::E4m3 => 1,
            _ => 2,
        }
    }
    /// (exponent bits, mantissa bits).
    fn bits(self) -> (i32, i32) {
        match self {
            Ty::F16 => (5, 10),
            Ty::Bf16 => (8, 7),
            Ty::E4m3 => (4, 3),
        }
    }
    fn decode(self, b: u32) -> f64 {
        let (e, m) = self.bits();
        let w = 1 + e + m;
        let bias = (1 << (e - 1)) - 1;
        let sign = if b >> (w - 1) & 1 == 1 { -1.0 } else { 1.0 };
        let exp = ((b >> m) & ((1 << e) - 1)) as i32;
        let man = (b & ((1 << m) - 1)) as f64 / 2f64.powi(m);
        if exp == 0 {
            sign * man * 2f64.powi(1 - bias)
        } else if exp == (1 << e) - 1 && !matches!(self, Ty::E4m3) {
            if man == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        } else {
            sign * (1.0 + man) * 2f64.powi(exp - bias)
        }
    }
    /// The spacing of values near `v`: half of it bounds the rounding error.
    fn ulp(self, v: f64) -> f64 {
        let (e, m) = self.bits();
        let bias = (1 << (e - 1)) - 1;
        let exp = if v == 0.0 {
            1 - bias
        } else {
            (v.abs().log2().floor() as i32).max(1 - bias)
        };
        2f64.powi(exp - m)
    }
    /// A buffer of `values`, which must be representable.
    fn buffer(self, values: &[f64]) -> ArgValue {
        let (e, m) = self.bits();
        let mut code = std::collections::HashMap::new();
        for b in (0..1u32 << (1 + e + m)).rev() {
            code.insert(self.decode(b).to_bits(), b);
        }
        let mut bytes = Vec::with_capacity(values.len() * self.bytes());
        for &v in values {
            let b = code[&(v + 0.0).to_bits()];
            bytes.extend_from_slice(&b.to_le_bytes()[..self.bytes()]);
        }
        ArgValue::Buffer(bytes)
    }
    fn read(self, arg: &ArgValue) -> Vec<f64> {
        let ArgValue::Buffer(bytes) = arg else {
            panic!("not a buffer")
        };
        bytes
            .chunks_exact(self.bytes())
            .map(|c| {
                let mut b = [0u8; 4];
                b[..c.len()].copy_from_slice(c);
                self.decode(u32::from_le_bytes(b))
            })
            .collect()
    }
}

/// One of `matmul`'s configurations (gen.py: BM, BN, BK, warps, shared bytes).
struct Matmul {
    file: &'static str,
    /// `matmul_tma(a, b, c, M, N, K)`: B given transposed (N x K), no stride arguments.
    tma: bool,
    bm: u32,
    bn: u32,
    threads: u32,
    smem: u32,
    input: Ty,
    output: Ty,
}

const MATMUL_SM80: Matmul = Matmul {
    file: "matmul_sm80.ptx",
    tma: false,
    bm: 128,
    bn: 128,
    threads: 256,
    smem: 98304,
    input: Ty::F16,
    output: Ty::F16,
};
const MATMUL_SM90A: Matmul = Matmul {
    file: "matmul_sm90a.ptx",
    smem: 131072,
    ..MATMUL_SM80
};

/// Runs `C = A @ B` (A: MxK, B: KxN, row-major, C's rows N apart) and returns the worst error
/// relative to the bound of the module docs (<= 1 passes), and whether all were exact.
fn matmul(
    cfg: &Matmul,
    m: usize,
    n: usize,
    k: usize,
    values: impl Fn(&mut Rng) -> f64,
) -> (f64, bool) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (m * n * k) as u64);
    let a: Vec<f64> = (0..m * k).map(|_| values(&mut rng)).collect();
    let b: Vec<f64> = (0..k * n).map(|_| values(&mut rng)).collect();
    let b_given: Vec<f64> = if cfg.tma {
        (0..n * k).map(|i| b[(i % k) * n + i / k]).collect()
    } else {
        b.clone()
    };
    let mut args = vec![
        cfg.input.buffer(&a),
        cfg.input.buffer(&b_given),
        ArgValue::zeroed(m * n * cfg.output.bytes()),
        ArgValue::I32(m as i32),
        ArgValue::I32(n as i32),
        ArgValue::I32(k as i32),
    ];
    if !cfg.tma {
        args.extend([k, n, n].map(|x| ArgValue::I32(x as i32)));
    }
    // Triton's global and profile scratch pointers.
    args.extend([ArgValue::zeroed(0), ArgValue::zeroed(0)]);
    let tiles = (m as u32).div_ceil(cfg.bm) * (n as u32).div_ceil(cfg.bn);
    let entry = if cfg.tma { "matmul_tma" } else { "matmul" };
    run(
        cfg.file,
        entry,
        (tiles, 1, 1),
        cfg.threads,
        cfg.smem,
        &mut args,
    );
    let c = cfg.output.read(&args[2]);
    let mut worst = 0.0f64;
    let mut exact = true;
    for i in 0..m {
        for j in 0..n {
            let (mut want, mut mag) = (0.0, 0.0);
            for kk in 0..k {
                want += a[i * k + kk] * b[kk * n + j];
                mag += (a[i * k + kk] * b[kk * n + j]).abs();
            }
            let got = c[i * n + j];
            let bound = cfg.output.ulp(want) / 2.0 + k as f64 * 2f64.powi(-23) * mag + 1e-30;
            exact &= got == want;
            worst = worst.max((got - want).abs() / bound);
        }
    }
    (worst, exact)
}

#[test]
fn matmul_sm80_mma_sync_is_exact_on_integers() {
    // Edges on every side: 192 x 160 output (partial tiles), K = 208 (a partial K step).
    let (_, exact) = matmul(&MATMUL_SM80, 192, 160, 208, |r| r.int(-2, 2) as f64);
    assert!(exact);
}

#[test]
fn matmul_sm80_mma_sync_within_tolerance() {
    let (worst, _) = matmul(&MATMUL_SM80, 128, 256, 192, |r| {
        r.int(-64, 64) as f64 / 64.0
    });
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn matmul_sm90a_wgmma_is_exact_on_integers() {
    let (_, exact) = matmul(&MATMUL_SM90A, 192, 160, 208, |r| r.int(-2, 2) as f64);
    assert!(exact);
}

#[test]
fn matmul_sm90a_wgmma_within_tolerance() {
    let (worst, _) = matmul(&MATMUL_SM90A, 128, 256, 192, |r| {
        r.int(-64, 64) as f64 / 64.0
    });
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn matmul_tma_sm80_descriptors_as_pointer_math() {
    // On sm_80 Triton turns tl.make_tensor_descriptor into pointer arithmetic.
    let cfg = Matmul {
        file: "matmul_tma_sm80.ptx",
        tma: true,
        ..MATMUL_SM80
    };
    let (_, exact) = matmul(&cfg, 256, 128, 192, |r| r.int(-2, 2) as f64);
    assert!(exact);
}

#[test]
fn matmul_bf16_sm90a_wgmma_n256() {
    let cfg = Matmul {
        file: "matmul_bf16_sm90a.ptx",
        tma: false,
        bm: 128,
        bn: 256,
        threads: 256,
        smem: 147456,
        input: Ty::Bf16,
        output: Ty::Bf16,
    };
    let (worst, _) = matmul(&cfg, 128, 256, 128, |r| r.int(-32, 32) as f64 / 32.0);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn matmul_fp8_sm90a_wgmma_e4m3() {
    let cfg = Matmul {
        file: "matmul_fp8_sm90a.ptx",
        tma: false,
        bm: 128,
        bn: 128,
        threads: 256,
        smem: 81920,
        input: Ty::E4m3,
        output: Ty::F16,
    };
    // e4m3 holds the integers up to 16 and halves up to 8 exactly.
    let (worst, _) = matmul(&cfg, 128, 128, 256, |r| r.int(-8, 8) as f64 / 2.0);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

/// One of `attn_fwd`'s configurations.
struct Attn {
    file: &'static str,
    head_dim: usize,
    block_m: u32,
    threads: u32,
    smem: u32,
    causal: bool,
}

/// Runs `attn_fwd` on Z = 1, H = 2 heads of `n_ctx` rows and checks O and LSE against the
/// float64 softmax attention. The bound per output: P is rounded to f16 before P·V (2^-11
/// relative), so |O - ref| <= 2^-11 * sum(p |v|) / sum(p) plus half an f16 ulp of O; `ex2.approx`
/// and f32 arithmetic stay far below that. LSE (log2 domain) within 1e-4.
fn attention(cfg: &Attn, n_ctx: usize) -> f64 {
    let (h, d) = (2usize, cfg.head_dim);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d ^ (n_ctx * d) as u64);
    let mut tensor = || -> Vec<f64> {
        (0..h * n_ctx * d)
            .map(|_| rng.int(-512, 512) as f64 / 256.0)
            .collect()
    };
    let (q, k, v) = (tensor(), tensor(), tensor());
    let sm_scale = 0.125f32;
    let stride_h = (n_ctx * d) as i32;
    let mut args = vec![
        Ty::F16.buffer(&q),
        Ty::F16.buffer(&k),
        Ty::F16.buffer(&v),
        ArgValue::zeroed(h * n_ctx * d * 2),
        ArgValue::zeroed(h * n_ctx * 4),
        ArgValue::F32(sm_scale),
        ArgValue::I32(stride_h * h as i32),
        ArgValue::I32(stride_h),
        ArgValue::I32(d as i32),
        ArgValue::I32(h as i32),
        ArgValue::I32(n_ctx as i32),
        ArgValue::zeroed(0),
        ArgValue::zeroed(0),
    ];
    let grid = ((n_ctx as u32).div_ceil(cfg.block_m), h as u32, 1);
    run(cfg.file, "attn_fwd", grid, cfg.threads, cfg.smem, &mut args);
    let o = Ty::F16.read(&args[3]);
    let lse: Vec<f32> = args[4].read();
    let scale2 = sm_scale as f64 * std::f64::consts::LOG2_E;
    let mut worst = 0.0f64;
    for head in 0..h {
        let base = head * n_ctx * d;
        for i in 0..n_ctx {
            let keys = if cfg.causal { i + 1 } else { n_ctx };
            let s: Vec<f64> = (0..keys)
                .map(|j| {
                    (0..d)
                        .map(|x| q[base + i * d + x] * k[base + j * d + x])
                        .sum::<f64>()
                        * scale2
                })
                .collect();
            let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let p: Vec<f64> = s.iter().map(|x| (x - max).exp2()).collect();
            let sum: f64 = p.iter().sum();
            let want_lse = max + sum.log2();
            let got_lse = lse[head * n_ctx + i] as f64;
            assert!(
                (got_lse - want_lse).abs() <= 1e-4,
                "{}: LSE of head {head} row {i}: {got_lse} vs {want_lse}",
                cfg.file
            );
            for x in 0..d {
                let want: f64 = (0..keys).map(|j| p[j] * v[base + j * d + x]).sum::<f64>() / sum;
                let spread: f64 = (0..keys)
                    .map(|j| p[j] * v[base + j * d + x].abs())
                    .sum::<f64>()
                    / sum;
                let got = o[base + i * d + x];
                let bound = 2f64.powi(-11) * spread + Ty::F16.ulp(want) / 2.0 + 1e-6;
                worst = worst.max((got - want).abs() / bound);
            }
        }
    }
    worst
}

#[test]
fn attn_fwd_sm80_mma_sync() {
    let cfg = Attn {
        file: "attn_fwd_sm80.ptx",
        head_dim: 64,
        block_m: 128,
        threads: 128,
        smem: 49152,
        causal: false,
    };
    let worst = attention(&cfg, 192);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn attn_fwd_sm90a_wgmma_register_a() {
    let cfg = Attn {
        file: "attn_fwd_sm90a.ptx",
        head_dim: 64,
        block_m: 128,
        threads: 128,
        smem: 65536,
        causal: false,
    };
    let worst = attention(&cfg, 192);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn attn_fwd_causal_d128_sm80() {
    let cfg = Attn {
        file: "attn_fwd_causal_d128_sm80.ptx",
        head_dim: 128,
        block_m: 128,
        threads: 256,
        smem: 98304,
        causal: true,
    };
    let worst = attention(&cfg, 192);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn attn_fwd_causal_d128_sm90a() {
    let cfg = Attn {
        file: "attn_fwd_causal_d128_sm90a.ptx",
        head_dim: 128,
        block_m: 128,
        threads: 256,
        smem: 131072,
        causal: true,
    };
    let worst = attention(&cfg, 192);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

/// `attn_bwd` (causal, HEAD_DIM 64, BLOCK_KV 128, BLOCK_Q 32; 8 warps) on one head of `n_ctx`
/// rows, grid `n_ctx / 128`: program j computes dK and dV of keys 128j.. and dQ of queries
/// 32j.. . Checked against the float64 backward pass from the same LSE and Delta (given in
/// f32, as the kernel reads them). The kernel rounds P and dS to f16 before its dots: the bound
/// per output is 2^-10 times the sum of the magnitudes of its terms, plus half an f16 ulp.
fn attention_backward(file: &str, n_ctx: usize) -> f64 {
    let d = 64usize;
    let mut rng = Rng(0x1234_5678_9abc_def1 ^ n_ctx as u64);
    let mut tensor = || -> Vec<f64> {
        (0..n_ctx * d)
            .map(|_| rng.int(-256, 256) as f64 / 256.0)
            .collect()
    };
    let (q, k, v, d_o) = (tensor(), tensor(), tensor(), tensor());
    let sm_scale = 0.125f64;
    let scale2 = sm_scale * std::f64::consts::LOG2_E;
    let dot = |x: &[f64], i: usize, y: &[f64], j: usize| -> f64 {
        (0..d).map(|c| x[i * d + c] * y[j * d + c]).sum()
    };
    // Forward: LSE (log2 units) and Delta = rowsum(O * dO), rounded to f32 as passed.
    let mut lse = vec![0f64; n_ctx];
    let mut delta = vec![0f64; n_ctx];
    for i in 0..n_ctx {
        let s: Vec<f64> = (0..=i).map(|j| dot(&q, i, &k, j) * scale2).collect();
        let max = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = s.iter().map(|x| (x - max).exp2()).sum();
        lse[i] = (max + sum.log2()) as f32 as f64;
        let p: Vec<f64> = s.iter().map(|x| (x - lse[i]).exp2()).collect();
        delta[i] = (0..d)
            .map(|c| (0..=i).map(|j| p[j] * v[j * d + c]).sum::<f64>() * d_o[i * d + c])
            .sum::<f64>() as f32 as f64;
    }
    let p = |i: usize, j: usize| -> f64 {
        if j > i {
            0.0
        } else {
            (dot(&q, i, &k, j) * scale2 - lse[i]).exp2()
        }
    };
    let ds = |i: usize, j: usize| p(i, j) * (dot(&d_o, i, &v, j) - delta[i]);
    let zeroed = || ArgValue::zeroed(n_ctx * d * 2);
    let f32s = |x: &[f64]| ArgValue::buffer(&x.iter().map(|&v| v as f32).collect::<Vec<f32>>());
    let mut args = vec![
        Ty::F16.buffer(&q),
        Ty::F16.buffer(&k),
        Ty::F16.buffer(&v),
        Ty::F16.buffer(&d_o),
        zeroed(),
        zeroed(),
        zeroed(),
        f32s(&lse),
        f32s(&delta),
        ArgValue::F32(sm_scale as f32),
        ArgValue::I32(1),
        ArgValue::I32(n_ctx as i32),
        ArgValue::zeroed(0),
        ArgValue::zeroed(0),
    ];
    let programs = n_ctx as u32 / 128;
    run(file, "attn_bwd", (programs, 1, 1), 256, 61440, &mut args);
    let (dq, dk, dv) = (
        Ty::F16.read(&args[4]),
        Ty::F16.read(&args[5]),
        Ty::F16.read(&args[6]),
    );
    let mut worst = 0.0f64;
    let mut check = |got: f64, terms: &mut dyn Iterator<Item = f64>| {
        let (mut want, mut mag) = (0.0, 0.0);
        for t in terms {
            want += t;
            mag += t.abs();
        }
        let bound = 2f64.powi(-10) * mag + Ty::F16.ulp(want) / 2.0 + 1e-6;
        worst = worst.max((got - want).abs() / bound);
    };
    for j in 0..n_ctx {
        for c in 0..d {
            check(
                dv[j * d + c],
                &mut (j..n_ctx).map(|i| p(i, j) * d_o[i * d + c]),
            );
            check(
                dk[j * d + c],
                &mut (j..n_ctx).map(|i| sm_scale * ds(i, j) * q[i * d + c]),
            );
        }
    }
    for i in 0..32 * programs as usize {
        for c in 0..d {
            check(
                dq[i * d + c],
                &mut (0..=i).map(|j| sm_scale * ds(i, j) * k[j * d + c]),
            );
        }
    }
    worst
}

#[test]
fn attn_bwd_sm80_mma_sync() {
    let worst = attention_backward("attn_bwd_sm80.ptx", 256);
    assert!(worst <= 1.0, "error {worst} of the bound");
}

#[test]
fn attn_bwd_sm90a_wgmma() {
    let worst = attention_backward("attn_bwd_sm90a.ptx", 256);
    assert!(worst <= 1.0, "error {worst} of the bound");
}
