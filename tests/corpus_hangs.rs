//! The corpus kernels that hang on an H100 (killed by the watchdog after 25 s, see
//! `tests/corpus/README.md` and `tests/corpus/synccheck.tsv`) are reported by the simulator,
//! from the same nvcc PTX, as the deadlock or the protocol error behind the hang. Race
//! checking is off here so that each run goes on to where the GPU stopped; with it on, the
//! parity bugs are reported earlier, as the shared-memory races their early wakeups cause.

use phasegate::runtime::sim::{ArgValue, FindingKind, Launch, Outcome, simulate_ptx};

/// (kernel, grid, block, dynamic shared bytes), as `tests/corpus/corpus_main.h` launches them.
const HANGS: &[(&str, u32, u32, u32)] = &[
    ("named_deadlock", 2, 64, 0),
    ("bc_count_mismatch", 2, 128, 0),
    ("pm_first_parity_one", 2, 128, 0),
    ("pm_constant_parity_loop", 2, 128, 0),
    ("tx_mismatch", 1, 160, PIPELINE_SMEM),
    ("pm_producer_same_round", 1, 160, PIPELINE_SMEM),
];

/// The pipeline kernels' dynamic shared memory (`tests/corpus/pipeline.h`).
const PIPELINE_SMEM: u32 = 4 * 4096;

#[test]
fn every_kernel_that_hangs_on_the_gpu_is_reported_by_the_simulator() {
    let n = 1u32 << 16;
    for &(name, grid, block, smem) in HANGS {
        let path = format!("{}/tests/corpus/ptx/{name}.ptx", env!("CARGO_MANIFEST_DIR"));
        let ptx = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let input: Vec<f32> = (0..n).map(|i| ((i % 7) as i32 - 3) as f32).collect();
        let mut args = vec![
            ArgValue::zeroed(n as usize * 4),
            ArgValue::buffer(&input),
            ArgValue::U32(n),
        ];
        let launch = Launch {
            grid: (grid, 1, 1),
            block: (block, 1, 1),
            dynamic_shared_bytes: smem,
            max_steps: 50_000_000,
            race_check: false,
            ..Launch::default()
        };
        // Five of them deadlock in the simulator as on the GPU. `pm_producer_same_round`'s
        // producer waits for the wrong phase, returns at once and arrives again: the simulator
        // stops there, at the undefined behaviour (a pending count below zero) behind the hang.
        match simulate_ptx(&ptx, name, &launch, &mut args) {
            Ok(Outcome::Finding(report)) => {
                println!("{name}: {:?}: {}", report.kind, report.message);
                assert!(
                    matches!(
                        report.kind,
                        FindingKind::Deadlock
                            | FindingKind::MbarrierInvalidPhase
                            | FindingKind::MbarrierMissingWait
                            | FindingKind::MbarrierCountRange
                    ),
                    "{name}: {report}"
                );
            }
            other => {
                panic!("{name}: expected a deadlock or the protocol error behind it, got {other:?}")
            }
        }
    }
}
