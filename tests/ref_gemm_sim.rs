//! The hand-written Hopper GEMM (`tools/gpu-gemm/ref_gemm.cu`, PTX in
//! `tests/realworld/handwritten/`, how it was made in its `SOURCES.md`): ptxas assembles it, and the simulator runs it with race
//! checking on — a cluster of two CTAs, TMA loads with 128-byte swizzle and a B tile multicast
//! to both, a 4-stage mbarrier ring that wraps, producer and consumer warpgroups with
//! `setmaxnreg`, `wgmma` m64n256k16, the TMA-store epilogue — and must give C = A·Bᵀ bit for
//! bit on integer inputs (every product and sum exact in f32, the result exact in bf16).

use phasegate::ptx::SmVersion;
use phasegate::ptx::ptxas;
use phasegate::runtime::sim::{
    self, ArgValue, Launch, Outcome, Swizzle, TensorMap, TensorMapArg, TmaDataType,
};

const PTX: &str = include_str!("realworld/handwritten/ref_gemm_sm90a.ptx");

/// The dynamic shared memory the kernel asks for, from the PTX itself.
fn dynamic_shared() -> u32 {
    PTX.lines()
        .find_map(|l| l.split("ref_gemm_dynamic_smem = ").nth(1))
        .and_then(|v| v.trim_end_matches(';').parse().ok())
        .expect("ref_gemm_dynamic_smem in the PTX")
}

fn bf16_of_int(x: i32) -> u16 {
    ((x as f32).to_bits() >> 16) as u16
}

/// Small integers in -3..=3 from a xorshift generator.
fn ints(n: usize, seed: u64) -> Vec<i32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 7) as i32 - 3
        })
        .collect()
}

fn map(rows: usize, cols: usize, box_cols: u32, box_rows: u32, data: &[u16]) -> ArgValue {
    let m = TensorMap::tiled(
        TmaDataType::Bf16,
        0,
        &[cols as u64, rows as u64],
        &[cols as u64 * 2],
        &[box_cols, box_rows],
    )
    .and_then(|m| m.with_swizzle(Swizzle::B128))
    .unwrap_or_else(|e| panic!("{e}"));
    let bytes = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    ArgValue::TensorMap(Box::new(TensorMapArg::owning(m, bytes)))
}

/// Runs C = A·Bᵀ for an `m × n × k` problem on `ctas` CTAs and checks every element.
fn gemm(m: usize, n: usize, k: usize, ctas: u32, seed: u64) {
    let (a, b) = (ints(m * k, seed), ints(n * k, seed + 1));
    let bits = |v: &[i32]| -> Vec<u16> { v.iter().map(|&x| bf16_of_int(x)).collect() };
    let mut args = [
        map(m, k, 64, 128, &bits(&a)),
        map(n, k, 64, 128, &bits(&b)),
        // C starts as NaN: an element no store reaches fails the comparison.
        map(m, n, 64, 64, &vec![0x7fc0u16; m * n]),
        ArgValue::U32(m as u32),
        ArgValue::U32(n as u32),
        ArgValue::U32(k as u32),
    ];
    let launch = Launch {
        grid: (ctas, 1, 1),
        block: (384, 1, 1),
        cluster: Some((2, 1, 1)),
        dynamic_shared_bytes: dynamic_shared(),
        ..Launch::default()
    };
    match sim::simulate_ptx(PTX, "ref_gemm", &launch, &mut args) {
        Ok(Outcome::Completed(stats)) => {
            assert!(stats.warnings.is_empty(), "{:#?}", stats.warnings)
        }
        Ok(Outcome::Finding(r)) => panic!("unexpected finding:\n{r}"),
        Err(e) => panic!("{e}"),
    }
    let ArgValue::TensorMap(c) = &args[2] else {
        unreachable!()
    };
    let c: Vec<u16> = c
        .data()
        .expect("own tensor")
        .chunks_exact(2)
        .map(|p| u16::from_le_bytes([p[0], p[1]]))
        .collect();
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..k).map(|l| a[i * k + l] * b[j * k + l]).sum();
            // |want| ≤ 9k = 2880 here: exact in f32; bf16 keeps 8 significant bits, so round.
            let want = {
                let bits = (want as f32).to_bits();
                ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16
            };
            assert_eq!(c[i * n + j], want, "C[{i}, {j}]");
        }
    }
}

#[test]
fn ptxas_assembles_the_reference_gemm() {
    let ptxas = ptxas::locate().unwrap_or_else(|e| panic!("{e}"));
    // nvcc 13.0 writes `.version 9.0`; the tests' ptxas is 12.9 (ISA 8.8), and every
    // instruction here is in the ISA since 8.0 (wgmma, setmaxnreg, the tensor copies,
    // prefetch.tensormap), so the module is assembled as 8.8.
    assert!(PTX.contains("\n.version 9.0\n"));
    let text = PTX.replace("\n.version 9.0\n", "\n.version 8.8\n");
    let result = ptxas::assemble(&ptxas, &text, SmVersion::arch_specific(90))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(result.clean, "{}", result.log);
}

/// One cluster, one tile pair: 5 k-blocks through the 4-stage ring, so stage 0 is refilled
/// after both CTAs' consumers released it.
#[test]
fn one_tile_pair_with_the_ring_wrapping() {
    gemm(256, 256, 320, 2, 3);
}

/// Two clusters over ragged edges: 3 M tiles (the second pair's second CTA reads and writes
/// nothing in bounds), a 200-column N tile and a 200-long K (the last k-block partly zero
/// fill) — TMA's clipping does the edges.
#[test]
fn ragged_edges_on_two_clusters() {
    gemm(384, 200, 200, 4, 5);
}
