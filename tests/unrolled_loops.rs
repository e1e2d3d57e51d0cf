//! Loops around barriers are unrolled sixteen times with a remainder loop; the simulator checks
//! that every trip count runs the body exactly that many times.

#[path = "../examples/latency.rs"]
#[allow(dead_code)]
mod latency;

use phasegate::runtime::sim::{Launch, Outcome, simulate};

#[test]
fn unrolled_barrier_loops_run_every_iteration() {
    for iters in [0u32, 1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 40] {
        let (mut cycles, mut counts) = (vec![0u64; 1], vec![0u32; 1]);
        let launch = Launch {
            grid: (1, 1, 1),
            block: (64, 1, 1),
            ..Launch::default()
        };
        let outcome = simulate(
            &latency::bar_red_popc_latency::SPEC,
            &launch,
            (&mut cycles[..], &mut counts[..], iters),
        );
        assert!(
            matches!(outcome, Ok(Outcome::Completed(_))),
            "{iters}: {outcome:?}"
        );
        // Each round counts the 32 of 64 threads whose (tid ^ i) is even.
        assert_eq!(counts[0], 32 * iters, "{iters} iterations");
        assert!(
            latency::bar_red_popc_latency::PTX
                .matches("bar.red.popc.u32")
                .count()
                >= 17
        );
    }
}
