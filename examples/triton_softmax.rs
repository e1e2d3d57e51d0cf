//! Simulates a kernel that Triton 3.9 compiled (a persistent row softmax, from
//! `tests/realworld/triton/gen.py`) on the CPU and checks it against a float64 softmax.
//! `cargo run --example triton_softmax`
//!
//! Triton appends two pointer parameters to every kernel's signature: a global scratch buffer
//! (allocated per launch through `triton.set_allocator`, used by kernels that build tensor
//! descriptors on the device; 0 bytes here) and a profiling buffer (always empty). Pass them as
//! empty buffers, after the kernel's own arguments. The launch takes `num_warps * 32` threads
//! per CTA (`.reqntid`) and the kernel's dynamic shared memory (`SOURCES.md`: 12,320 bytes).
//! On the command line the same run is
//! `phasegate sim tests/realworld/triton/softmax_sm80.ptx --grid 2 --block 256
//!  --dynamic-shared 12320 --arg buf:16000 --arg npy:x.npy --arg u32:1000 --arg u32:1000
//!  --arg u32:4 --arg u32:1000 --arg buf:0 --arg buf:0 --out 0:f32:y.npy`.

use phasegate::runtime::sim::{self, ArgValue, Launch, Outcome};

fn main() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/realworld/triton/softmax_sm80.ptx"
    );
    let ptx = std::fs::read_to_string(path).expect("the corpus file");
    let (rows, cols) = (4usize, 1000usize);
    // A small xorshift generator: inputs in [-3, 3).
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let x: Vec<f32> = (0..rows * cols)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 6.0 - 3.0
        })
        .collect();
    let mut args = [
        ArgValue::buffer(&vec![0f32; rows * cols]), // out_ptr
        ArgValue::buffer(&x),                       // in_ptr
        ArgValue::U32(cols as u32),                 // in_row_stride
        ArgValue::U32(cols as u32),                 // out_row_stride
        ArgValue::U32(rows as u32),                 // n_rows
        ArgValue::U32(cols as u32),                 // n_cols
        ArgValue::Buffer(Vec::new()),               // Triton's global scratch
        ArgValue::Buffer(Vec::new()),               // Triton's profiling scratch
    ];
    let launch = Launch {
        grid: (2, 1, 1),
        block: (256, 1, 1),
        dynamic_shared_bytes: 12320,
        ..Launch::default()
    };
    let stats = match sim::simulate_ptx(&ptx, "softmax_rows", &launch, &mut args) {
        Ok(Outcome::Completed(stats)) => stats,
        Ok(Outcome::Finding(report)) => panic!("the simulator found:\n{report}"),
        Err(e) => panic!("{e}"),
    };
    let y: Vec<f32> = args[0].read();
    let mut worst = 0f64;
    for r in 0..rows {
        let row = &x[r * cols..(r + 1) * cols];
        let max = row.iter().fold(f64::MIN, |m, &v| m.max(v as f64));
        let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
        for c in 0..cols {
            let want = (row[c] as f64 - max).exp() / sum;
            worst = worst.max(((y[r * cols + c] as f64) - want).abs() / want);
        }
    }
    println!(
        "Triton softmax ({rows}x{cols}) simulated: {} thread-instructions, {} warnings; largest relative error against float64: {worst:.2e}",
        stats.thread_instructions,
        stats.warnings.len()
    );
    assert!(worst < 1e-5, "relative error {worst}");
}
