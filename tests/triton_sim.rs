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
