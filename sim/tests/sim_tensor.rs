//! Tensor-core instructions against a plain CPU matrix product: the fixtures
//! `tests/sim/tensor_mma.ptx` (mma.sync, ldmatrix, stmatrix) and `tests/sim/tensor_wgmma.ptx`
//! (wgmma.mma_async through shared-memory descriptors in every swizzle mode and major-ness, and
//! from registers), with small integer-valued inputs so that every result is exact. The
//! fragment layouts and canonical shared-memory layouts are written here again from the PTX
//! ISA's text (§9.7.14.5.7-10, §9.7.15.5.1), independently of the simulator's code. Then the
//! findings around wgmma's asynchrony.

use phasegate_sim::{ArgValue, FindingKind, Launch, Outcome, Report, simulate_ptx};

fn fixture(file: &str) -> String {
    let path = format!("{}/../tests/sim/{file}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn launch(threads: u32, smem: u32) -> Launch {
    Launch {
        block: (threads, 1, 1),
        dynamic_shared_bytes: smem,
        ..Launch::default()
    }
}

fn run(file: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) -> Outcome {
    simulate_ptx(&fixture(file), entry, launch, args).unwrap_or_else(|e| panic!("{entry}: {e}"))
}

fn completes(file: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) {
    if let Outcome::Finding(r) = run(file, entry, launch, args) {
        panic!("{entry}: unexpected finding:\n{r}");
    }
}

fn finding(
    file: &str,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
    kind: FindingKind,
) -> Report {
    match run(file, entry, launch, args) {
        Outcome::Finding(r) => {
            assert_eq!(r.kind, kind, "{entry}: wrong finding:\n{r}");
            *r
        }
        Outcome::Completed(_) => panic!("{entry}: expected {kind:?}, the run completed"),
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

/// Element types, with their bit patterns for small exact values.
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
    fn bits(self) -> u32 {
        match self {
            Ty::F16 | Ty::Bf16 => 16,
            Ty::E4m3 | Ty::E5m2 | Ty::S8 | Ty::U8 => 8,
            Ty::Tf32 | Ty::F32 | Ty::S32 => 32,
        }
    }
    /// A random value exactly representable, small enough for exact products.
    fn sample(self, rng: &mut Rng) -> f64 {
        match self {
            Ty::U8 => rng.int(0, 6) as f64,
            Ty::S8 | Ty::S32 => rng.int(-5, 5) as f64,
            Ty::E4m3 | Ty::E5m2 => rng.int(-6, 6) as f64 / 2.0,
            _ => rng.int(-8, 8) as f64 / 4.0,
        }
    }
    /// The bit pattern of `v` (exactly representable); tf32 gets garbage in the 13 bits the
    /// tensor cores ignore.
    fn encode(self, v: f64, rng: &mut Rng) -> u32 {
        let float = |e: i32, m: i32, v: f64| -> u32 {
            if v == 0.0 {
                return 0;
            }
            let bias = (1 << (e - 1)) - 1;
            let sign = ((v < 0.0) as u32) << (e + m);
            let x = v.abs();
            let exp = x.log2().floor() as i32;
            let man = ((x / 2f64.powi(exp) - 1.0) * 2f64.powi(m)) as u32;
            assert_eq!(
                (1.0 + man as f64 / 2f64.powi(m)) * 2f64.powi(exp),
                x,
                "{v} in {self:?}"
            );
            sign | (((exp + bias) as u32) << m) | man
        };
        match self {
            Ty::F16 => float(5, 10, v),
            Ty::Bf16 => float(8, 7, v),
            Ty::E4m3 => float(4, 3, v),
            Ty::E5m2 => float(5, 2, v),
            Ty::Tf32 => (v as f32).to_bits() | (rng.next() as u32 & 0x1fff),
            Ty::F32 => (v as f32).to_bits(),
            Ty::S8 | Ty::U8 => v as i64 as u32 & 0xff,
            Ty::S32 => v as i64 as u32,
        }
    }
    /// The accumulator bit pattern of an exact result.
    fn result(self, v: f64, satfinite: bool) -> u32 {
        match self {
            Ty::F32 => (v as f32).to_bits(),
            Ty::F16 => Ty::F16.encode(v, &mut Rng(1)),
            Ty::S32 if satfinite => v.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32,
            Ty::S32 => v as i64 as u32,
            _ => unreachable!(),
        }
    }
    fn decode_acc(self, bits: u32) -> f64 {
        match self {
            Ty::F32 => f32::from_bits(bits) as f64,
            Ty::S32 => bits as i32 as f64,
            _ => unreachable!(),
        }
    }
}

fn words(v: &[u32]) -> ArgValue {
    ArgValue::buffer(v)
}

// --- mma.sync (§9.7.14.5.7-10): the ISA's row/col formulas, element i of a lane ---

fn a_rc(k: u32, bits: u32, lane: u32, i: u32) -> (u32, u32) {
    let (group, tig) = (lane >> 2, lane % 4);
    match (k, bits) {
        (16, 16) => {
            let row = if i < 2 || (4..6).contains(&i) {
                group
            } else {
                group + 8
            };
            let col = tig * 2 + (i & 1) + if i >= 4 { 8 } else { 0 };
            (row, col)
        }
        (8, 16) => (if i < 2 { group } else { group + 8 }, tig * 2 + (i & 1)),
        (8, 32) => (
            if i == 0 || i == 2 { group } else { group + 8 },
            if i < 2 { tig } else { tig + 4 },
        ),
        (4, 32) => (if i == 0 { group } else { group + 8 }, tig),
        (32, 8) => {
            let row = if i < 4 || (8..12).contains(&i) {
                group
            } else {
                group + 8
            };
            (row, tig * 4 + (i & 3) + if i >= 8 { 16 } else { 0 })
        }
        (16, 8) => (if i < 4 { group } else { group + 8 }, tig * 4 + (i & 3)),
        _ => unreachable!(),
    }
}

fn b_rc(k: u32, bits: u32, lane: u32, i: u32) -> (u32, u32) {
    let (group, tig) = (lane >> 2, lane % 4);
    let row = match (k, bits) {
        (16, 16) => tig * 2 + (i & 1) + if i >= 2 { 8 } else { 0 },
        (8, 16) => tig * 2 + i,
        (8, 32) => {
            if i == 0 {
                tig
            } else {
                tig + 4
            }
        }
        (4, 32) => tig,
        (32, 8) => tig * 4 + (i & 3) + if i >= 4 { 16 } else { 0 },
        (16, 8) => tig * 4 + i,
        _ => unreachable!(),
    };
    (row, group)
}

fn c_rc(lane: u32, i: u32) -> (u32, u32) {
    let (group, tig) = (lane >> 2, lane % 4);
    (if i < 2 { group } else { group + 8 }, tig * 2 + (i & 1))
}

/// Packs matrix `m` (`cols` wide) into per-lane registers, `regs` per lane.
fn pack(
    m: &[u32],
    cols: u32,
    bits: u32,
    regs: u32,
    rc: impl Fn(u32, u32) -> (u32, u32),
) -> Vec<u32> {
    let per = 32 / bits;
    let mask = if bits == 32 {
        u32::MAX
    } else {
        (1 << bits) - 1
    };
    let mut out = vec![0u32; 32 * regs as usize];
    for lane in 0..32 {
        for j in 0..regs {
            for e in 0..per {
                let (r, c) = rc(lane, j * per + e);
                out[(lane * regs + j) as usize] |=
                    (m[(r * cols + c) as usize] & mask) << (e * bits);
            }
        }
    }
    out
}

struct MmaCase {
    entry: &'static str,
    k: u32,
    a: Ty,
    b: Ty,
    c: Ty,
    satfinite: bool,
}

fn check_mma(case: &MmaCase, seed: u64, c_base: f64) {
    let mut rng = Rng(seed);
    let k = case.k;
    let av: Vec<f64> = (0..16 * k).map(|_| case.a.sample(&mut rng)).collect();
    let bv: Vec<f64> = (0..k * 8).map(|_| case.b.sample(&mut rng)).collect();
    let cv: Vec<f64> = (0..128).map(|_| c_base + rng.int(-20, 20) as f64).collect();
    let bits = case.a.bits();
    let ab: Vec<u32> = av.iter().map(|&v| case.a.encode(v, &mut rng)).collect();
    let bb: Vec<u32> = bv.iter().map(|&v| case.b.encode(v, &mut rng)).collect();
    let cb: Vec<u32> = cv.iter().map(|&v| case.c.result(v, false)).collect();
    let (a_regs, b_regs) = (16 * k / 32 / (32 / bits), k * 8 / 32 / (32 / bits));
    let acc_regs = if case.c == Ty::F16 { 2 } else { 4 };
    let cbits = if case.c == Ty::F16 { 16 } else { 32 };
    let mut args = vec![
        words(&pack(&ab, k, bits, a_regs, |l, i| a_rc(k, bits, l, i))),
        words(&pack(&bb, 8, bits, b_regs, |l, i| b_rc(k, bits, l, i))),
        words(&pack(&cb, 8, cbits, acc_regs, c_rc)),
        ArgValue::zeroed(32 * acc_regs as usize * 4),
    ];
    completes("tensor_mma.ptx", case.entry, &launch(32, 0), &mut args);
    let d: Vec<u32> = args[3].read();
    let per = 32 / cbits;
    for lane in 0..32u32 {
        for j in 0..acc_regs {
            for e in 0..per {
                let (r, c) = c_rc(lane, j * per + e);
                let want: f64 = cv[(r * 8 + c) as usize]
                    + (0..k)
                        .map(|x| av[(r * k + x) as usize] * bv[(x * 8 + c) as usize])
                        .sum::<f64>();
                let got = (d[(lane * acc_regs + j) as usize] >> (e * cbits))
                    & if cbits == 32 { u32::MAX } else { 0xffff };
                assert_eq!(
                    got,
                    case.c.result(want, case.satfinite),
                    "{}: D[{r}][{c}] should be {want}",
                    case.entry
                );
            }
        }
    }
}

#[test]
fn mma_sync_fragments_match_a_cpu_product() {
    use Ty::*;
    let cases = [
        ("mma_f16_f32", 16, F16, F16, F32),
        ("mma_bf16_f32", 16, Bf16, Bf16, F32),
        ("mma_f16_f16", 16, F16, F16, F16),
        ("mma_f16_k8", 8, F16, F16, F32),
        ("mma_tf32_k8", 8, Tf32, Tf32, F32),
        ("mma_tf32_k4", 4, Tf32, Tf32, F32),
        ("mma_s8_k32", 32, S8, S8, S32),
        ("mma_u8s8_k16", 16, U8, S8, S32),
        ("mma_e4m3e5m2_k32", 32, E4m3, E5m2, F32),
    ];
    for (seed, (entry, k, a, b, c)) in cases.into_iter().enumerate() {
        let case = MmaCase {
            entry,
            k,
            a,
            b,
            c,
            satfinite: false,
        };
        check_mma(&case, 100 + seed as u64, 0.0);
    }
}

#[test]
fn mma_s32_wraps_and_saturates() {
    let case = |entry, satfinite| MmaCase {
        entry,
        k: 32,
        a: Ty::S8,
        b: Ty::S8,
        c: Ty::S32,
        satfinite,
    };
    // C near the top of the s32 range: the products overflow it in some elements.
    let base = i32::MAX as f64 - 40.0;
    check_mma(&case("mma_s8_k32", false), 7, base);
    check_mma(&case("mma_s8_k32_satfinite", true), 7, base);
}

#[test]
fn mma_needs_the_whole_warp() {
    let mut args = [ArgValue::zeroed(128)];
    finding(
        "tensor_mma.ptx",
        "mma_half_warp_exited",
        &launch(32, 0),
        &mut args,
        FindingKind::WarpCollective,
    );
}

// --- ldmatrix / stmatrix (§9.7.14.5.15-16) ---

/// Element `c` of row `r` of matrix `m` in the fixtures' shared tile (row slot 4r + m).
fn tile_value(m: u32, r: u32, c: u32) -> u32 {
    ((4 * r + m) * 8 + c + 1) * 3
}

#[test]
fn ldmatrix_fragments() {
    let src: Vec<u16> = (0..32u32)
        .flat_map(|slot| (0..8u32).map(move |c| tile_value(slot % 4, slot / 4, c) as u16))
        .collect();
    for num in [1u32, 2, 4] {
        for trans in [false, true] {
            let entry = format!("ldsm_x{num}{}", if trans { "_trans" } else { "" });
            let mut args = [
                ArgValue::buffer(&src),
                ArgValue::zeroed(32 * num as usize * 4),
            ];
            completes("tensor_mma.ptx", &entry, &launch(32, 0), &mut args);
            let out: Vec<u32> = args[1].read();
            for lane in 0..32 {
                let (row, col) = (lane / 4, 2 * (lane % 4));
                for m in 0..num {
                    let e = |r, c| tile_value(m, r, c);
                    let want = if trans {
                        e(col, row) | e(col + 1, row) << 16
                    } else {
                        e(row, col) | e(row, col + 1) << 16
                    };
                    assert_eq!(
                        out[(lane * num + m) as usize],
                        want,
                        "{entry} lane {lane} matrix {m}"
                    );
                }
            }
        }
    }
}

#[test]
fn stmatrix_fragments() {
    for num in [1u32, 2, 4] {
        for trans in [false, true] {
            let entry = format!("stsm_x{num}{}", if trans { "_trans" } else { "" });
            // Lane l's register m holds elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1)
            // of the fragment of matrix m.
            let src: Vec<u32> = (0..32u32)
                .flat_map(|l| {
                    (0..num).map(move |m| (l * 16 + m * 4 + 1) | (l * 16 + m * 4 + 2) << 16)
                })
                .collect();
            let mut args = [words(&src), ArgValue::zeroed(512)];
            completes("tensor_mma.ptx", &entry, &launch(32, 0), &mut args);
            let out: Vec<u16> = args[1].read();
            let frag = |m: u32, r: u32, c: u32| -> u16 {
                let l = 4 * r + c / 2;
                let word = (l * 16 + m * 4 + 1) | (l * 16 + m * 4 + 2) << 16;
                (word >> (16 * (c % 2))) as u16
            };
            for m in 0..num {
                for r in 0..8 {
                    for c in 0..8 {
                        let want = if trans { frag(m, c, r) } else { frag(m, r, c) };
                        assert_eq!(
                            out[((4 * r + m) * 8 + c) as usize],
                            want,
                            "{entry} matrix {m} [{r}][{c}]"
                        );
                    }
                }
            }
        }
    }
}

// --- wgmma.mma_async (§9.7.15.5) ---

/// A shared-memory operand layout: major-ness, swizzle bytes (0, 32, 64, 128), LBO, SBO.
#[derive(Clone, Copy, Debug)]
struct Layout {
    mn_major: bool,
    swizzle: u32,
    lbo: u32,
    sbo: u32,
}

impl Layout {
    /// The canonical layouts of §9.7.15.5.1.2.1.3 (in bytes; t elements per 16 bytes), then the
    /// swizzle: Swizzle<b, 4, 3> XORs address bits 7.. into bits 4.. .
    fn offset(&self, mn: u32, k: u32, eb: u32) -> u32 {
        let t = 16 / eb;
        let s = self.swizzle;
        let linear = if !self.mn_major {
            if s == 0 {
                // ((8,m),(T,2k)):((1T,SBO),(1,LBO))
                (mn % 8) * 16 + (mn / 8) * self.sbo + (k % t) * eb + (k / t) * self.lbo
            } else {
                // ((8,m),(T,2k)):((s/16 T,SBO),(1,T))
                (mn % 8) * s + (mn / 8) * self.sbo + k * eb
            }
        } else if s == 0 {
            // ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
            (mn % t) * eb + (mn / t) * self.sbo + (k % 8) * 16 + (k / 8) * self.lbo
        } else {
            // ((T,s/16,m),(8,k)):((1,T,LBO),(s/16 T,SBO))
            let w = s / 16;
            (mn % t) * eb
                + ((mn / t) % w) * 16
                + (mn / (t * w)) * self.lbo
                + (k % 8) * s
                + (k / 8) * self.sbo
        };
        if s == 0 {
            linear
        } else {
            linear ^ (((linear >> 7) & (s / 16 - 1)) << 4)
        }
    }
    /// The descriptor without its start address.
    fn desc(&self) -> u64 {
        let mode = match self.swizzle {
            0 => 0u64,
            128 => 1,
            64 => 2,
            _ => 3,
        };
        ((self.lbo as u64 >> 4) << 16) | ((self.sbo as u64 >> 4) << 32) | mode << 62
    }
    /// A layout of an operand `mn` wide and 32 bytes deep in K, with gaps between the
    /// repeating patterns where `room` bytes allow.
    fn new(mn_major: bool, swizzle: u32, mn: u32, eb: u32, room: u32) -> Layout {
        let (lbo, sbo) = match (mn_major, swizzle) {
            // Core matrices of 8 rows x 16 bytes: two along K (LBO), mn / 8 groups (SBO).
            (false, 0) => (128, 512),
            (false, s) => (16, if mn * s * 2 <= room { 16 * s } else { 8 * s }),
            // T mn-elements x 8 k: mn / T chunks (SBO), two k groups (LBO).
            (true, 0) => {
                let chunks = mn * eb / 16;
                (chunks * 256, 256)
            }
            (true, s) => {
                let blocks = (mn * eb).div_ceil(s);
                (16 * s, blocks * 16 * s)
            }
        };
        Layout {
            mn_major,
            swizzle,
            lbo,
            sbo,
        }
    }
}

struct WgmmaCase {
    entry: &'static str,
    n: u32,
    k: u32,
    a: Ty,
    b: Ty,
    d: Ty,
    a_mn_major: bool,
    b_mn_major: bool,
    neg_a: bool,
    neg_b: bool,
    reg_a: bool,
}

/// Row and column of accumulator element `i` of thread `t` (warp t / 32 owns rows 16w..16w+15).
fn d_rc(t: u32, i: u32) -> (u32, u32) {
    let (w, lane) = (t / 32, t % 32);
    let (group, tig) = (lane >> 2, lane % 4);
    (
        16 * w + group + 8 * ((i >> 1) & 1),
        (i >> 2) * 8 + tig * 2 + (i & 1),
    )
}

fn check_wgmma(case: &WgmmaCase, swizzle_a: u32, swizzle_b: u32, scale_d: bool, seed: u64) {
    let mut rng = Rng(seed);
    let (n, k) = (case.n, case.k);
    let eb = case.a.bits() / 8;
    let av: Vec<f64> = (0..64 * k).map(|_| case.a.sample(&mut rng)).collect();
    let bv: Vec<f64> = (0..k * n).map(|_| case.b.sample(&mut rng)).collect();
    let dv: Vec<f64> = (0..64 * n).map(|_| rng.int(-20, 20) as f64).collect();
    let la = Layout::new(case.a_mn_major, swizzle_a, 64, eb, 16384);
    let lb = Layout::new(case.b_mn_major, swizzle_b, n, eb, 32768);
    let mut a_img = vec![0u8; 16384];
    let mut b_img = vec![0u8; 32768];
    let put = |img: &mut Vec<u8>, off: u32, bits: u32| {
        let bytes = bits.to_le_bytes();
        img[off as usize..(off + eb) as usize].copy_from_slice(&bytes[..eb as usize]);
    };
    if case.reg_a {
        // Thread t's register j: elements 2j, 2j + 1 of its A fragment (rows 16 w + ...).
        let mut regs = vec![0u32; 128 * 4];
        for t in 0..128u32 {
            for i in 0..8u32 {
                let (r, c) = a_rc(16, 16, t % 32, i);
                let v = case
                    .a
                    .encode(av[((16 * (t / 32) + r) * k + c) as usize], &mut rng);
                regs[(t * 4 + i / 2) as usize] |= v << (16 * (i % 2));
            }
        }
        for (i, w) in regs.iter().enumerate() {
            a_img[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
    } else {
        for m in 0..64 {
            for kk in 0..k {
                let bits = case.a.encode(av[(m * k + kk) as usize], &mut rng);
                put(&mut a_img, la.offset(m, kk, eb), bits);
            }
        }
    }
    for nn in 0..n {
        for kk in 0..k {
            let bits = case.b.encode(bv[(kk * n + nn) as usize], &mut rng);
            put(&mut b_img, lb.offset(nn, kk, eb), bits);
        }
    }
    let per = if case.d == Ty::F16 { 2 } else { 1 };
    let regs = n / 2 / per;
    let mut d_in = vec![0u32; 128 * regs as usize];
    for t in 0..128 {
        for j in 0..regs {
            for e in 0..per {
                let (r, c) = d_rc(t, j * per + e);
                let bits = case.d.result(dv[(r * n + c) as usize], false);
                d_in[(t * regs + j) as usize] |= bits << (16 * e);
            }
        }
    }
    let mut args = vec![
        ArgValue::Buffer(a_img),
        ArgValue::Buffer(b_img),
        ArgValue::U64(la.desc()),
        ArgValue::U64(lb.desc()),
        ArgValue::U32(scale_d as u32),
        words(&d_in),
        ArgValue::zeroed(d_in.len() * 4),
    ];
    completes(
        "tensor_wgmma.ptx",
        case.entry,
        &launch(128, 49152),
        &mut args,
    );
    let d: Vec<u32> = args[6].read();
    let (sa, sb) = (
        if case.neg_a { -1.0 } else { 1.0 },
        if case.neg_b { -1.0 } else { 1.0 },
    );
    for t in 0..128 {
        for j in 0..regs {
            for e in 0..per {
                let (r, c) = d_rc(t, j * per + e);
                let prod: f64 = (0..k)
                    .map(|x| sa * av[(r * k + x) as usize] * sb * bv[(x * n + c) as usize])
                    .sum();
                let want = prod
                    + if scale_d {
                        dv[(r * n + c) as usize]
                    } else {
                        0.0
                    };
                let got = (d[(t * regs + j) as usize] >> (16 * e))
                    & if per == 2 { 0xffff } else { u32::MAX };
                assert_eq!(
                    got,
                    case.d.result(want, false),
                    "{} (swizzle {swizzle_a}/{swizzle_b}, scale-d {scale_d}): D[{r}][{c}] should be {want}, is {}",
                    case.entry,
                    if per == 1 {
                        case.d.decode_acc(got)
                    } else {
                        f64::NAN
                    }
                );
            }
        }
    }
}

fn wgmma_case(
    entry: &'static str,
    n: u32,
    k: u32,
    ab: (Ty, Ty),
    d: Ty,
    majors: (bool, bool),
) -> WgmmaCase {
    WgmmaCase {
        entry,
        n,
        k,
        a: ab.0,
        b: ab.1,
        d,
        a_mn_major: majors.0,
        b_mn_major: majors.1,
        neg_a: false,
        neg_b: false,
        reg_a: false,
    }
}

const SWIZZLES: [u32; 4] = [0, 32, 64, 128];

#[test]
fn wgmma_k_major_every_swizzle() {
    let case = wgmma_case(
        "wgmma_f16_kk",
        64,
        16,
        (Ty::F16, Ty::F16),
        Ty::F32,
        (false, false),
    );
    for (i, s) in SWIZZLES.into_iter().enumerate() {
        check_wgmma(&case, s, SWIZZLES[(i + 1) % 4], true, 10 + i as u64);
    }
}

#[test]
fn wgmma_mn_major_every_swizzle() {
    let case = wgmma_case(
        "wgmma_f16_mn",
        64,
        16,
        (Ty::F16, Ty::F16),
        Ty::F32,
        (true, true),
    );
    for (i, s) in SWIZZLES.into_iter().enumerate() {
        check_wgmma(&case, s, SWIZZLES[(i + 2) % 4], i % 2 == 0, 20 + i as u64);
    }
}

#[test]
fn wgmma_types_shapes_and_scales() {
    let mut neg = wgmma_case(
        "wgmma_f16_neg_a",
        64,
        16,
        (Ty::F16, Ty::F16),
        Ty::F32,
        (false, true),
    );
    neg.neg_a = true;
    check_wgmma(&neg, 128, 64, true, 30);
    let bf = wgmma_case(
        "wgmma_bf16_n256",
        256,
        16,
        (Ty::Bf16, Ty::Bf16),
        Ty::F32,
        (false, true),
    );
    check_wgmma(&bf, 128, 128, true, 31);
    check_wgmma(&bf, 32, 0, false, 32);
    let h = wgmma_case(
        "wgmma_f16_f16acc",
        32,
        16,
        (Ty::F16, Ty::F16),
        Ty::F16,
        (false, true),
    );
    check_wgmma(&h, 64, 32, true, 33);
    let tf = wgmma_case(
        "wgmma_tf32",
        16,
        8,
        (Ty::Tf32, Ty::Tf32),
        Ty::F32,
        (false, false),
    );
    check_wgmma(&tf, 128, 32, true, 34);
    check_wgmma(&tf, 0, 64, true, 35);
    let f8 = wgmma_case(
        "wgmma_e4m3",
        32,
        32,
        (Ty::E4m3, Ty::E4m3),
        Ty::F32,
        (false, false),
    );
    check_wgmma(&f8, 128, 0, true, 36);
    let i8 = wgmma_case(
        "wgmma_s8u8",
        32,
        32,
        (Ty::S8, Ty::U8),
        Ty::S32,
        (false, false),
    );
    check_wgmma(&i8, 64, 128, true, 37);
    let mut reg = wgmma_case(
        "wgmma_f16_reg_a",
        64,
        16,
        (Ty::F16, Ty::F16),
        Ty::F32,
        (false, true),
    );
    reg.reg_a = true;
    reg.neg_b = true;
    check_wgmma(&reg, 0, 128, true, 38);
}

// --- findings around wgmma's asynchrony (§9.7.15.7) ---

fn wgmma_finding(entry: &str, kind: FindingKind) -> Report {
    let mut args = [ArgValue::zeroed(512)];
    finding(
        "tensor_wgmma.ptx",
        entry,
        &launch(128, 4096),
        &mut args,
        kind,
    )
}

fn wgmma_completes(entry: &str) {
    let mut args = [ArgValue::zeroed(512)];
    completes("tensor_wgmma.ptx", entry, &launch(128, 4096), &mut args);
}

#[test]
fn accumulator_read_in_flight() {
    wgmma_completes("wgmma_read_after_wait");
    let r = wgmma_finding("wgmma_read_in_flight", FindingKind::WgmmaRegisterInFlight);
    assert!(
        r.message.contains("%d0") || r.message.contains("%d1"),
        "{r}"
    );
    assert!(r.sites[0].instruction.starts_with("add.f32"), "{r}");
    assert!(r.sites[1].instruction.starts_with("wgmma.mma_async"), "{r}");
    wgmma_finding(
        "wgmma_wait_leaves_it_in_flight",
        FindingKind::WgmmaRegisterInFlight,
    );
    // A chain of wgmma of one shape on the same accumulators is ordered by the hardware.
    wgmma_completes("wgmma_chained_same_shape");
}

#[test]
fn wgmma_fence_required() {
    wgmma_finding("wgmma_no_fence", FindingKind::WgmmaFenceMissing);
    let r = wgmma_finding("wgmma_written_after_fence", FindingKind::WgmmaFenceMissing);
    assert!(r.message.contains("%d2"), "{r}");
}

#[test]
fn shared_operands_need_a_proxy_fence() {
    let r = wgmma_finding("wgmma_no_proxy_fence", FindingKind::ProxyFenceMissing);
    assert!(r.message.contains("wgmma.mma_async"), "{r}");
    assert!(r.sites[1].instruction.starts_with("st.shared"), "{r}");
    // cp.async writes in the generic proxy: the same fence is needed after it (any thread on
    // the way to the wgmma may execute it: here every thread after the barrier).
    let r = wgmma_finding(
        "wgmma_cp_async_no_proxy_fence",
        FindingKind::ProxyFenceMissing,
    );
    assert!(r.sites[1].instruction.starts_with("cp.async"), "{r}");
    wgmma_completes("wgmma_cp_async_proxy_fence");
    // Overwriting an operand while the wgmma is in flight races with its read.
    let r = wgmma_finding(
        "wgmma_operand_overwritten",
        FindingKind::AsyncReadBeforeWait,
    );
    assert!(r.sites[1].instruction.starts_with("wgmma.mma_async"), "{r}");
}

#[test]
fn the_warps_of_a_warpgroup_give_the_same_descriptors() {
    let r = wgmma_finding("wgmma_descriptor_differs", FindingKind::WarpCollective);
    assert!(r.message.contains("different matrix descriptors"), "{r}");
    assert_ne!(r.sites[0].warp, r.sites[1].warp, "{r}");
}

/// A B operand that a fifth warp writes between the reads of two warps of the warpgroup: warp 0
/// reads it after the write (ordered by a named barrier, fenced), warps 1 to 3 after it too, in
/// time, but unordered (they wait for warp 0's issue on an mbarrier with `try_wait.relaxed`,
/// which acquires nothing). Warp 0's read finds what each chunk's write needs of a reader
/// (`Race::async_read_chunks`), and warp 1's read of the same chunks must not take it as met:
/// the report is the one each warp's own check of every chunk gives (the sixteenth round's
/// code reports this text). The kernel is here, not in `tests/sim`, to stay in the crate.
const B_WRITTEN_BETWEEN_WARPS: &str = r#".version 8.6
.target sm_90a
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry wgmma_b_written_between_warps()
{
	.reg .pred %p<4>;
	.reg .pred complete;
	.reg .b32 %r<16>;
	.reg .f32 %d<4>;
	.reg .b64 %rd<16>;
	.shared .align 8 .b64 read0;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 4;
	add.s32 %r4, %r2, %r3;
	mov.b32 %r5, 0;
	st.shared.v4.b32 [%r4], {%r5, %r5, %r5, %r5};
	shr.u32 %r6, %r2, 4;
	and.b32 %r6, %r6, 16383;
	cvt.u64.u32 %rd1, %r6;
	or.b64 %rd1, %rd1, 68720001024;
	mov.f32 %d0, 0f00000000;
	mov.f32 %d1, 0f00000000;
	mov.f32 %d2, 0f00000000;
	mov.f32 %d3, 0f00000000;
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r9, 1;
	@%p1 mbarrier.init.shared.b64 [read0], %r9;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	shr.u32 %r7, %r1, 5;
	setp.eq.u32 %p1, %r7, 4;
	@%p1 bra WRITER;
	setp.eq.u32 %p2, %r7, 0;
	@%p2 bra FIRST;
WAIT:
	mbarrier.try_wait.parity.relaxed.cluster.shared.b64 complete, [read0], 0;
	@!complete bra WAIT;
	bra.uni MMA;
FIRST:
	bar.sync 1, 64;
MMA:
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd1, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	setp.eq.u32 %p3, %r1, 0;
	@%p3 mbarrier.arrive.shared.b64 %rd3, [read0];
	wgmma.wait_group.sync.aligned 0;
	ret;
WRITER:
	setp.eq.u32 %p2, %r1, 128;
	@%p2 st.shared.v4.b32 [%r2+16], {%r1, %r1, %r1, %r1};
	fence.proxy.async.shared::cta;
	bar.sync 1, 64;
	ret;
}
"#;

#[test]
fn a_write_between_the_warps_reads_of_b_is_a_race() {
    let r = match simulate_ptx(
        B_WRITTEN_BETWEEN_WARPS,
        "wgmma_b_written_between_warps",
        &launch(160, 4096),
        &mut [],
    )
    .unwrap()
    {
        Outcome::Finding(r) => r,
        Outcome::Completed(_) => panic!("the write between the warps' reads was not reported"),
    };
    assert_eq!(r.kind, FindingKind::SharedRace, "{r}");
    assert_eq!(r.message, "data race on shared memory `smem`+16", "{r}");
    let [read, write] = &r.sites[..] else {
        panic!("two sites: {r}")
    };
    assert_eq!((read.warp, read.tid), (1, (32, 0, 0)), "{r}");
    assert!(read.instruction.starts_with("wgmma.mma_async"), "{r}");
    assert_eq!(read.what, "wgmma.mma_async issued here reads it", "{r}");
    assert_eq!((write.warp, write.tid), (4, (128, 0, 0)), "{r}");
    assert!(
        write.instruction.starts_with("@%p2 st.shared.v4.b32"),
        "{r}"
    );
    assert_eq!(write.what, "wrote it", "{r}");
}

/// A B operand that one warpgroup reads, and another after an mbarrier was initialised in it
/// (ordered after the first group's reads by barriers): the second group's read is a plain
/// access of a valid mbarrier. Its chunks' places, kept from the first group's read
/// (`OperandPlaces`), were found with no mbarrier there: the CTA's mbarrier epoch in their key
/// makes the second read find them again, and `resolve` report the access (as each warp's own
/// search of its chunks did).
const B_HOLDS_AN_MBARRIER_LATER: &str = r#".version 8.6
.target sm_90a
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry wgmma_b_holds_an_mbarrier_later()
{
	.reg .pred %p<4>;
	.reg .b32 %r<16>;
	.reg .f32 %d<4>;
	.reg .b64 %rd<16>;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 4;
	add.s32 %r4, %r2, %r3;
	mov.b32 %r5, 0;
	st.shared.v4.b32 [%r4], {%r5, %r5, %r5, %r5};
	shr.u32 %r6, %r2, 4;
	and.b32 %r6, %r6, 16383;
	cvt.u64.u32 %rd1, %r6;
	or.b64 %rd1, %rd1, 68720001024;
	add.s64 %rd2, %rd1, 128;
	mov.f32 %d0, 0f00000000;
	mov.f32 %d1, 0f00000000;
	mov.f32 %d2, 0f00000000;
	mov.f32 %d3, 0f00000000;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	shr.u32 %r7, %r1, 7;
	setp.eq.u32 %p1, %r7, 1;
	@%p1 bra SECOND;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	bar.sync 1;
	setp.eq.u32 %p2, %r1, 0;
	mov.u32 %r9, 1;
	@%p2 mbarrier.init.shared.b64 [%r2+2064], %r9;
	bar.sync 2;
	ret;
SECOND:
	bar.sync 1;
	bar.sync 2;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd2, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	ret;
}
"#;

#[test]
fn an_mbarrier_initialised_in_b_after_its_places_were_found_is_reported() {
    let r = match simulate_ptx(
        B_HOLDS_AN_MBARRIER_LATER,
        "wgmma_b_holds_an_mbarrier_later",
        &launch(256, 4096),
        &mut [],
    )
    .unwrap()
    {
        Outcome::Finding(r) => r,
        Outcome::Completed(_) => panic!("the read of the mbarrier was not reported"),
    };
    assert_eq!(r.kind, FindingKind::MbarrierMemoryAccess, "{r}");
    assert!(r.message.contains("`smem`+2064"), "{r}");
    assert_eq!((r.sites[0].warp, r.sites[0].tid), (4, (128, 0, 0)), "{r}");
    assert!(r.sites[0].instruction.starts_with("wgmma.mma_async"), "{r}");
}

// --- half precision and fp8 conversions and packed arithmetic (tests/sim/half.ptx) ---

/// Runs `half_ops` on triples of words; returns each thread's 24 results.
fn half_ops(inputs: &[[u32; 3]]) -> Vec<[u32; 24]> {
    let flat: Vec<u32> = inputs.iter().flatten().copied().collect();
    let mut args = [
        words(&flat),
        ArgValue::zeroed(inputs.len() * 24 * 4),
        ArgValue::U32(inputs.len() as u32),
    ];
    completes("half.ptx", "half_ops", &launch(32, 0), &mut args);
    let out: Vec<u32> = args[1].read();
    out.chunks(24).map(|c| c.try_into().expect("24")).collect()
}

#[test]
fn half_conversions_round_to_nearest_even() {
    let f = |x: f32| x.to_bits();
    let tie16 = 1.0 + 2f32.powi(-11);
    let above16 = 1.0 + 3.0 * 2f32.powi(-11);
    let tie_bf = 1.0 + 2f32.powi(-8);
    let above_bf = 1.0 + 3.0 * 2f32.powi(-8);
    let r = half_ops(&[
        [f(tie16), f(above16), 0],
        [f(65520.0), f32::NAN.to_bits(), 0],
        [f(tie_bf), f(above_bf), 0],
        [f(500.0), f(-1e9), 0],
        [f(1e9), f(-3.0), 0],
        // f16 pairs for the packed arithmetic: a = (1, 2), b = (2^-11, -0.5), c = (1, 1).
        [0x4000_3c00, 0xb800_1000, 0x3c00_3c00],
        // NaNs and negative zeros: a holds the f16 NaNs 0x7d48 and 0x7f94 (as bf16, 0x7f94 is a
        // NaN too), b = -0.0 (f32), c = (-0, -0).
        [0x7d48_7f94, f(-0.0), 0x8000_8000],
    ]);
    // cvt.rn.f16x2.f32: a to the upper half; ties to even, overflow to infinity, NaN canonical.
    assert_eq!(r[0][0], 0x3c00_3c02);
    assert_eq!(r[1][0], 0x7c00_7fff);
    // cvt.rn.bf16x2.f32.
    assert_eq!(r[2][1], 0x3f80_3f82);
    // cvt.rn.relu.f16x2.f32: negative to +0.
    assert_eq!(r[4][2] & 0xffff, 0);
    // cvt.rn.satfinite.e4m3x2.f32 / e5m2x2: out of range to the largest finite value.
    assert_eq!(r[3][3], 0x7efe);
    assert_eq!(r[4][4], 0x7bc2);
    assert_eq!(r[1][4] & 0xff, 0x7f);
    // cvt.rn.f16.f32 and cvt.rn.bf16.f32.
    assert_eq!(r[0][8], 0x3c00);
    assert_eq!(r[2][9], 0x3f80);
    // add.rn.f16x2: 1 + 2^-11 is a tie (to 1), 2 - 0.5 = 1.5.
    assert_eq!(r[5][12], 0x3e00_3c00);
    // fma.rn.f16x2: 1 * 2^-11 + 1 = 1 (tie to even); 2 * -0.5 + 1 = 0.
    assert_eq!(r[5][15], 0x0000_3c00);
    // neg.f16x2 flips both signs.
    assert_eq!(r[5][22], 0xc000_bc00);
    // As an H100 does (examples/tensor_gpu.rs): .relu turns -0 into +0 and NaN into the
    // canonical NaN; neg and abs of a NaN give the canonical NaN; cvt.f32.f16 of a NaN gives
    // the canonical f32 NaN, cvt.f32.bf16 keeps a NaN's bits.
    assert_eq!(r[6][2] & 0xffff, 0);
    assert_eq!(r[6][16], 0x7fff_7fff);
    assert_eq!(r[6][22] >> 16, 0x7fff);
    assert_eq!(r[6][23] & 0xffff, 0x7fff);
    assert_eq!(r[6][10], 0x7fff_ffff);
    assert_eq!(r[6][11], 0x7f94_0000);
}
