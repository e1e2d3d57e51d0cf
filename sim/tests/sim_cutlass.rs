//! CUTLASS 4.2's SM90 TMA warp-specialised GEMMs from the real-world corpus
//! (`tests/realworld/cutlass/`), simulated with the parameter block CUTLASS's host code built
//! on an H100 and compared with what the H100 computed from the same inputs
//! (`tests/realworld/cutlass/run/`, recorded by `tools/gpu-cutlass/`; see SOURCES.md there).
//!
//! Each kernel takes one by-value `Params` struct (1792 bytes) holding four `CUtensorMap`s (A,
//! B, C, D) with the GPU's addresses; the recorded `.struct` file relocates them onto the
//! simulator's buffers ([`StructArg`]).
//!
//! Tolerance. With integer inputs every product and sum is exact in f32, so the simulator and
//! the H100 agree bit for bit (the f32 → bf16/f16 conversion of the epilogue is `cvt.rn`, the
//! same on both). With fractional inputs the order and rounding of `wgmma`'s f32 accumulation
//! are not fixed by the PTX ISA (§9.7.15: the simulator sums each output in f64 and rounds
//! once); the accumulators then differ by about an f32 ulp, which changes the rounded 16-bit
//! output where it lies near a rounding boundary: every element agrees within one ulp of the
//! output type. Both are also checked against a float64 reference: within half an ulp of the
//! output (the correctly rounded value for integers) plus the f32 accumulation's error.

use phasegate_sim::{
    ArgValue, Launch, Outcome, RelocKind, RelocTarget, StructArg, TensorMap, simulate_module,
};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/realworld/cutlass")
}

/// The element type of a case's matrices.
#[derive(Clone, Copy, Debug)]
enum Half {
    Bf16,
    F16,
}

impl Half {
    fn to_f64(self, bits: u16) -> f64 {
        match self {
            Half::Bf16 => f32::from_bits((bits as u32) << 16) as f64,
            Half::F16 => {
                let sign = if bits >> 15 == 1 { -1.0 } else { 1.0 };
                let exp = ((bits >> 10) & 0x1f) as i32;
                let man = (bits & 0x3ff) as f64;
                match exp {
                    0 => sign * man * 2f64.powi(-24),
                    31 => f64::NAN,
                    _ => sign * (1.0 + man / 1024.0) * 2f64.powi(exp - 15),
                }
            }
        }
    }
    /// The spacing of representable values at `x` (one ulp).
    fn ulp(self, x: f64) -> f64 {
        let mantissa = match self {
            Half::Bf16 => 7,
            Half::F16 => 10,
        };
        let min_exp = match self {
            Half::Bf16 => -126,
            Half::F16 => -14,
        };
        let e = if x == 0.0 {
            min_exp
        } else {
            (x.abs().log2().floor() as i32).max(min_exp)
        };
        2f64.powi(e - mantissa)
    }
    /// How many representable values lie between two finite values of the same sign (or 0
    /// when equal): their distance in ulps.
    fn ulps_apart(self, a: u16, b: u16) -> u32 {
        let key = |x: u16| -> i32 {
            if x >> 15 == 1 {
                -((x & 0x7fff) as i32)
            } else {
                x as i32
            }
        };
        (key(a) - key(b)).unsigned_abs()
    }
}

/// A recorded case: the `.struct` description and what its comments say.
struct Case {
    name: &'static str,
    ptx: &'static str,
    ty: Half,
    exact: bool,
}

const CASES: [Case; 3] = [
    Case {
        name: "bf16_coop_int",
        ptx: "sm90_bf16_coop_tma_128x128x64_c1.ptx",
        ty: Half::Bf16,
        exact: true,
    },
    Case {
        name: "bf16_coop_frac",
        ptx: "sm90_bf16_coop_tma_128x128x64_c1.ptx",
        ty: Half::Bf16,
        exact: false,
    },
    Case {
        name: "f16_pingpong_int",
        ptx: "sm90_f16_pingpong_64x128x64_c2x1.ptx",
        ty: Half::F16,
        exact: true,
    },
];

/// The numbers after `key` in the description's comment lines (`256x256x128`, `1,4,1`, ...).
fn comment_numbers(text: &str, key: &str) -> Vec<f64> {
    let line = text
        .lines()
        .find(|l| l.starts_with('#') && l.contains(key))
        .unwrap_or_else(|| panic!("no comment with `{key}`"));
    let after = &line[line.find(key).expect("key") + key.len()..];
    after
        .split_whitespace()
        .next()
        .expect("a value")
        .split([',', 'x'])
        .map(|n| n.parse().unwrap_or_else(|_| panic!("`{n}` in `{line}`")))
        .collect()
}

fn dims(v: &[f64]) -> (u32, u32, u32) {
    (v[0] as u32, v[1] as u32, v[2] as u32)
}

fn halves(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

fn simulate_case(case: &Case) {
    let dir = corpus().join("run");
    let text = std::fs::read_to_string(dir.join(format!("{}.struct", case.name))).unwrap();
    let params = StructArg::parse(&text, &dir).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let gpu = std::fs::read(dir.join(format!("{}.D.bin", case.name))).unwrap();
    let mnk = comment_numbers(&text, "gemm_params.cu: ");
    let (m, n, k) = (mnk[0] as usize, mnk[1] as usize, mnk[2] as usize);
    let alpha = comment_numbers(&text, "alpha=")[0];
    let beta = comment_numbers(&text, "beta=")[0];
    let launch = Launch {
        grid: dims(&comment_numbers(&text, "grid ")),
        block: dims(&comment_numbers(&text, "block ")),
        cluster: Some(dims(&comment_numbers(&text, "cluster "))),
        dynamic_shared_bytes: comment_numbers(&text, "dynamic shared ")[0] as u32,
        ..Launch::default()
    };

    // The driver's tensor maps decode and re-encode to the same bytes (what the relocation
    // does, with the simulator's address).
    assert_eq!(params.relocs.len(), 4, "{}: A, B, C and D", case.name);
    for r in &params.relocs {
        assert_eq!(r.kind, RelocKind::TensorMap);
        let bytes: [u8; 128] = params.bytes[r.offset..r.offset + 128].try_into().unwrap();
        let map = TensorMap::decode(&bytes).unwrap();
        assert_eq!(
            map.encode(),
            bytes,
            "{}: the map at {:#x}",
            case.name,
            r.offset
        );
    }

    let ptx = std::fs::read_to_string(corpus().join(case.ptx)).unwrap();
    let module = phasegate_ptx::parse(&ptx).unwrap();
    let entry = module.entries().next().expect("an entry").name.clone();
    let mut args = [ArgValue::from(params)];
    let start = std::time::Instant::now();
    match simulate_module(&module, &entry, &launch, &mut args) {
        Ok(Outcome::Completed(stats)) => {
            assert!(
                stats.warnings.is_empty(),
                "{}: warnings: {:?}",
                case.name,
                stats.warnings
            );
            eprintln!(
                "{}: {} CTAs, {} thread-instructions in {:.1?}",
                case.name,
                stats.ctas,
                stats.thread_instructions,
                start.elapsed()
            );
        }
        Ok(Outcome::Finding(r)) => panic!("{}: finding:\n{r}", case.name),
        Err(e) => panic!("{}: {e}", case.name),
    }
    let ArgValue::Struct(out) = &args[0] else {
        panic!("the struct comes back")
    };
    let sim = out.data("D").expect("buffer D");
    assert_eq!(sim.len(), m * n * 2);

    // Against the H100.
    let (sim_h, gpu_h) = (halves(sim), halves(&gpu));
    if case.exact {
        let differ = sim_h.iter().zip(&gpu_h).filter(|(a, b)| a != b).count();
        assert_eq!(
            differ, 0,
            "{}: {differ} elements differ from the H100",
            case.name
        );
    } else {
        let worst = sim_h
            .iter()
            .zip(&gpu_h)
            .map(|(a, b)| case.ty.ulps_apart(*a, *b))
            .max()
            .unwrap();
        let differ = sim_h.iter().zip(&gpu_h).filter(|(a, b)| a != b).count();
        eprintln!(
            "{}: {differ} of {} elements differ from the H100, by at most {worst} ulp",
            case.name,
            sim_h.len()
        );
        assert!(worst <= 1, "{}: {worst} ulps from the H100", case.name);
    }

    // Against a float64 reference: A is M x K (K contiguous), B is N x K (K contiguous), C and
    // D are M x N.
    let a = halves(out.data("A").unwrap());
    let b = halves(out.data("B").unwrap());
    let c = halves(out.data("C").unwrap());
    for i in 0..m {
        for j in 0..n {
            let (mut acc, mut mag) = (0.0, 0.0);
            for l in 0..k {
                let p = case.ty.to_f64(a[i * k + l]) * case.ty.to_f64(b[j * k + l]);
                acc += p;
                mag += p.abs();
            }
            let want = alpha * acc + beta * case.ty.to_f64(c[i * n + j]);
            let got = case.ty.to_f64(sim_h[i * n + j]);
            let bound = if case.exact {
                case.ty.ulp(want) / 2.0
            } else {
                case.ty.ulp(want) / 2.0 + (k as f64 + 2.0) * 2f64.powi(-24) * alpha.abs() * mag
            };
            assert!(
                (got - want).abs() <= bound,
                "{}: D[{i}][{j}] = {got}, reference {want}",
                case.name
            );
        }
    }
}

#[test]
fn cooperative_bf16_integers_bit_for_bit() {
    simulate_case(&CASES[0]);
}

#[test]
fn cooperative_bf16_fractions_within_one_ulp() {
    simulate_case(&CASES[1]);
}

#[test]
fn pingpong_f16_cluster_integers_bit_for_bit() {
    simulate_case(&CASES[2]);
}

/// The error of the recorded cooperative case's struct after `edit`.
fn refused(edit: impl FnOnce(&mut StructArg)) -> String {
    let dir = corpus().join("run");
    let text = std::fs::read_to_string(dir.join("bf16_coop_int.struct")).unwrap();
    let mut s = StructArg::parse(&text, &dir).unwrap();
    edit(&mut s);
    let ptx = std::fs::read_to_string(corpus().join(CASES[0].ptx)).unwrap();
    let module = phasegate_ptx::parse(&ptx).unwrap();
    let entry = module.entries().next().unwrap().name.clone();
    let mut args = vec![ArgValue::from(s)];
    let launch = Launch {
        grid: (1, 4, 1),
        block: (384, 1, 1),
        dynamic_shared_bytes: 230400,
        ..Launch::default()
    };
    match simulate_module(&module, &entry, &launch, &mut args) {
        Err(e) => e.to_string(),
        Ok(o) => panic!("ran: {o:?}"),
    }
}

#[test]
fn bad_relocations_are_errors() {
    let e = refused(|s| s.relocs[0].offset = 1790);
    assert!(
        e.contains("tmap at 0x6fe: 128 bytes from there do not fit"),
        "{e}"
    );
    let e = refused(|s| s.relocs[1].offset = 0xc0);
    assert!(e.contains("tmap at 0xc0 overlaps tmap at 0x80"), "{e}");
    let e = refused(|s| {
        s.pointer(0xf8, RelocTarget::Own(0), 0);
    });
    assert!(e.contains("ptr at 0xf8 overlaps tmap at 0x80"), "{e}");
    let e = refused(|s| s.relocs[0].add = 1 << 20);
    assert!(e.contains("past the end of its 65536-byte buffer"), "{e}");
    let e = refused(|s| s.relocs[0].target = RelocTarget::Own(9));
    assert!(e.contains("the struct has 4 buffers, not 10"), "{e}");
    let e = refused(|s| s.relocs[0].target = RelocTarget::Arg(1));
    assert!(e.contains("the launch has 1 arguments, not 2"), "{e}");
    let e = refused(|s| s.relocs[0].offset = 0x40);
    assert!(e.contains("not a tensor map"), "{e}");
    let e = refused(|s| s.relocs[0].offset = 0x90);
    assert!(
        e.contains("tmap at 0x90: a CUtensorMap is 64-byte aligned"),
        "{e}"
    );
    let e = refused(|s| s.relocs[0].target = RelocTarget::Arg(0));
    assert!(e.contains("argument 0 is a struct, not a buffer"), "{e}");
    let e = refused(|s| s.relocs[0].add = 8);
    assert!(e.contains("tmap at 0x80"), "{e}");
    let e = refused(|s| s.bytes.truncate(1700));
    assert!(
        e.contains("has 1792 bytes; the struct's bytes are 1700"),
        "{e}"
    );
}

#[test]
fn bad_descriptions_are_errors() {
    let dir = corpus().join("run");
    let cases = [
        ("buffer A zero:8\n", "no `bytes PATH` line"),
        ("bytes nothing.bin\n", "line 1: cannot read"),
        (
            "bytes bf16_coop_int.params\nptr 8 Q\n",
            "line 2: no buffer named `Q`",
        ),
        (
            "bytes bf16_coop_int.params\nptr x8 A\n",
            "`x8` is not a number",
        ),
        (
            "bytes bf16_coop_int.params\nbuffer A zero:8\nbuffer A zero:8\n",
            "line 3: a second buffer named `A`",
        ),
        (
            "bytes bf16_coop_int.params\nbuffer A-1 zero:8\n",
            "not a buffer name",
        ),
        (
            "bytes bf16_coop_int.params\nbuffer A disk:8\n",
            "neither file:PATH nor zero:N",
        ),
        (
            "bytes bf16_coop_int.params\nreloc 8 A\n",
            "line 2: `reloc 8 A` is not",
        ),
    ];
    for (text, want) in cases {
        let e = StructArg::parse(text, &dir).unwrap_err();
        assert!(e.contains(want), "{text:?}: {e}");
    }
    let s = StructArg::parse(
        "bytes bf16_coop_int.params # the Params\nbuffer X zero:0x40\nptr 0x10 X+0x20\nptr 24 arg:2\n",
        &dir,
    )
    .unwrap();
    assert_eq!(s.buffers[0].data.len(), 64);
    assert_eq!(s.relocs[0].target, RelocTarget::Own(0));
    assert_eq!(s.relocs[0].add, 32);
    assert_eq!(s.relocs[1].target, RelocTarget::Arg(2));
}
