//! A matrix transpose through a shared-memory tile, with `sync_threads()` (`bar.sync 0`)
//! between the phase that fills the tile and the phase that drains it.
//!
//! Launch with blocks of 32×8 threads and a grid of ⌈width/32⌉ × ⌈height/32⌉ blocks.
//! `cargo run --example transpose` is phasegate's main job in one command: the kernel was
//! compiled, its features checked against its target and its barriers analyzed when this file
//! compiled; `main` simulates it on the CPU against a CPU transpose, then prints its parameter
//! layout and its PTX.

use phasegate::prelude::*;

/// `output[c * height + r] = input[r * width + c]` for a `height × width` row-major `input`.
#[kernel]
pub fn transpose(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    const TILE: u32 = 32;
    const ROWS: u32 = 8;
    // One padding column keeps the column reads of the second phase free of bank conflicts.
    let mut tile = shared_array::<f32, { (TILE * (TILE + 1)) as usize }>();
    let tx = thread_idx_x();
    let ty = thread_idx_y();
    let x = block_idx_x() * TILE + tx;
    for j in (0..TILE).step_by(ROWS) {
        let y = block_idx_y() * TILE + ty + j;
        if x < width && y < height {
            tile[(ty + j) * (TILE + 1) + tx] = input[y * width + x];
        }
    }
    sync_threads();
    let x = block_idx_y() * TILE + tx;
    for j in (0..TILE).step_by(ROWS) {
        let y = block_idx_x() * TILE + ty + j;
        if x < height && y < width {
            output[y * height + x] = tile[tx * (TILE + 1) + ty + j];
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Simulate a transpose whose sides are not multiples of the tile, and check it.
    let (width, height) = (70u32, 45u32);
    let input: Vec<f32> = (0..width * height)
        .map(|i| i as f32 * 0.25 - 100.0)
        .collect();
    let mut output = vec![f32::NAN; input.len()];
    let launch = phasegate::runtime::sim::Launch {
        grid: (width.div_ceil(32), height.div_ceil(32), 1),
        block: (32, 8, 1),
        ..Default::default()
    };
    let stats = transpose::simulate(&launch, (&input[..], &mut output[..], width, height))?;
    for r in 0..height {
        for c in 0..width {
            let (got, want) = (
                output[(c * height + r) as usize],
                input[(r * width + c) as usize],
            );
            if got != want {
                return Err(format!(
                    "simulated transpose differs at row {r}, column {c}: {got} instead of {want}"
                )
                .into());
            }
        }
    }
    println!(
        "// simulated a {width}x{height} transpose: {} CTAs, {} thread-instructions, no finding; equal to the CPU's",
        stats.ctas, stats.thread_instructions
    );
    let spec = transpose::SPEC;
    let (offsets, size) = spec.param_layout();
    println!(
        "// entry `{}`, target {}, {} bytes of static shared memory",
        spec.entry, spec.target, spec.static_shared_bytes
    );
    for (p, offset) in spec.params.iter().zip(offsets) {
        println!("//   param `{}` at byte {offset}: {:?}", p.name, p.ty);
    }
    println!("//   {size} bytes of parameters\n");
    println!("{}", transpose::PTX);
    Ok(())
}
