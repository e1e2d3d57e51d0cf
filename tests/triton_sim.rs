//! Kernels that Triton 3.9 compiled (`tests/realworld/triton/`), simulated on the CPU with their
//! own launch shape (`num_warps * 32` threads, `.reqntid`), Triton's two trailing scratch
//! pointers passed as empty buffers, and checked against float64 references on random inputs.
//! The runs must complete with race checking on and without warnings.

use phasegate::runtime::sim::{self, ArgValue, Launch, Outcome};

fn corpus(file: &str) -> String {
    let path = format!(
        "{}/tests/realworld/triton/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Uniform values in [lo, hi) from a xorshift generator seeded by `seed`.
fn random(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (s >> 40) as f32 / (1u64 << 24) as f32 * (hi - lo)
        })
        .collect()
}

fn run(file: &str, entry: &str, launch: &Launch, args: &mut [ArgValue]) {
    match sim::simulate_ptx(&corpus(file), entry, launch, args) {
        Ok(Outcome::Completed(stats)) => {
            assert!(stats.warnings.is_empty(), "{file}: {:#?}", stats.warnings)
        }
        Ok(Outcome::Finding(r)) => panic!("{file}: unexpected finding:\n{r}"),
        Err(e) => panic!("{file}: {e}"),
    }
}

#[test]
fn vector_add_is_exact() {
    let n = 3000usize;
    for file in ["vector_add_sm80.ptx", "vector_add_sm90a.ptx"] {
        let (x, y) = (random(n, 1, -8.0, 8.0), random(n, 2, -8.0, 8.0));
        let mut args = [
            ArgValue::buffer(&x),
            ArgValue::buffer(&y),
            ArgValue::buffer(&vec![f32::NAN; n]),
            ArgValue::U32(n as u32),
            ArgValue::Buffer(Vec::new()),
            ArgValue::Buffer(Vec::new()),
        ];
        let launch = Launch {
            grid: (n.div_ceil(1024) as u32, 1, 1),
            block: (128, 1, 1),
            ..Launch::default()
        };
        run(file, "vector_add", &launch, &mut args);
        let out: Vec<f32> = args[2].read();
        let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a + b).collect();
        assert_eq!(out, want, "{file}");
    }
}

#[test]
fn softmax_matches_float64() {
    let (rows, cols) = (5usize, 777usize);
    for file in ["softmax_sm80.ptx", "softmax_sm90a.ptx"] {
        let x = random(rows * cols, 3, -4.0, 4.0);
        let mut args = [
            ArgValue::buffer(&vec![f32::NAN; rows * cols]),
            ArgValue::buffer(&x),
            ArgValue::U32(cols as u32),
            ArgValue::U32(cols as u32),
            ArgValue::U32(rows as u32),
            ArgValue::U32(cols as u32),
            ArgValue::Buffer(Vec::new()),
            ArgValue::Buffer(Vec::new()),
        ];
        // A persistent kernel: 2 programs walk the 5 rows.
        let launch = Launch {
            grid: (2, 1, 1),
            block: (256, 1, 1),
            dynamic_shared_bytes: 12320,
            ..Launch::default()
        };
        run(file, "softmax_rows", &launch, &mut args);
        let y: Vec<f32> = args[0].read();
        for r in 0..rows {
            let row = &x[r * cols..(r + 1) * cols];
            let max = row.iter().fold(f64::MIN, |m, &v| m.max(v as f64));
            let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
            for c in 0..cols {
                let want = (row[c] as f64 - max).exp() / sum;
                let err = (y[r * cols + c] as f64 - want).abs() / want;
                assert!(
                    err < 1e-5,
                    "{file} [{r}, {c}]: {} against {want}",
                    y[r * cols + c]
                );
            }
        }
    }
}

/// The f16 bits of a small integer (exact: |x| < 2048).
fn f16_of_int(x: i32) -> u16 {
    if x == 0 {
        return 0;
    }
    let (sign, m) = (u16::from(x < 0) << 15, x.unsigned_abs());
    let e = 31 - m.leading_zeros();
    let mantissa = ((m << 10) >> e) & 0x3ff;
    sign | ((e as u16 + 15) << 10) | mantissa as u16
}

/// Triton's matmul through device-built tensor descriptors (`tl.make_tensor_descriptor`:
/// `tensormap.replace` into its global scratch, `fence.proxy.tensormap::generic`, TMA loads
/// into a 4-stage ring, `wgmma`, a TMA store). Integer inputs make every product and sum exact,
/// so the result is compared bit for bit.
#[test]
fn tma_matmul_with_device_built_descriptors_is_exact() {
    let (m, n, k) = (256usize, 256usize, 128usize);
    let ints = |count: usize, seed: u64| -> Vec<i32> {
        random(count, seed, -4.0, 5.0)
            .iter()
            .map(|v| v.floor() as i32)
            .collect()
    };
    let (a, bt) = (ints(m * k, 11), ints(n * k, 12));
    let bits = |v: &[i32]| -> Vec<u16> { v.iter().map(|&x| f16_of_int(x)).collect() };
    let mut args = [
        ArgValue::buffer(&bits(&a)),
        ArgValue::buffer(&bits(&bt)),
        ArgValue::buffer(&vec![0x7e00u16; m * n]),
        ArgValue::U32(m as u32),
        ArgValue::U32(n as u32),
        ArgValue::U32(k as u32),
        // Triton's global scratch: 384 bytes a program for its three descriptors.
        ArgValue::buffer(&vec![0u8; 384 * 4]),
        ArgValue::Buffer(Vec::new()),
    ];
    let launch = Launch {
        grid: (4, 1, 1),
        block: (256, 1, 1),
        dynamic_shared_bytes: 131104,
        ..Launch::default()
    };
    run("matmul_tma_sm90a.ptx", "matmul_tma", &launch, &mut args);
    let c: Vec<u16> = args[2].read();
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k).map(|l| a[i * k + l] * bt[j * k + l]).sum();
            assert_eq!(
                c[i * n + j],
                f16_of_int(want),
                "C[{i}, {j}] should be {want}"
            );
        }
    }
}
