//! Generated barrier-correct kernels give the same result under every schedule the simulator
//! tries, and the simulator finds nothing wrong in them.

use phasegate_sim::generate;
use phasegate_sim::{ArgValue, Launch, Outcome, Policy, Schedule, simulate_ptx};

fn run(k: &generate::Generated, schedule: Schedule) -> Vec<u32> {
    let n = (k.grid * k.block) as usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) ^ k.seed as u32)
        .collect();
    let mut args = vec![
        ArgValue::buffer(&input),
        ArgValue::zeroed(n * 4),
        ArgValue::U32(n as u32),
    ];
    let launch = Launch {
        grid: (k.grid, 1, 1),
        block: (k.block, 1, 1),
        schedule,
        ..Launch::default()
    };
    match simulate_ptx(&k.ptx, &k.entry, &launch, &mut args) {
        Ok(Outcome::Completed(_)) => args[1].read::<u32>(),
        Ok(other) => panic!(
            "seed {} {:?} under {schedule}: {other:?}\n{}",
            k.seed, k.phases, k.ptx
        ),
        Err(e) => panic!(
            "seed {} under {schedule}: simulator error {e:?}\n{}",
            k.seed, k.ptx
        ),
    }
}

#[test]
fn results_do_not_depend_on_the_schedule() {
    for seed in 0..30 {
        let k = generate::kernel(seed);
        let reference = run(
            &k,
            Schedule {
                policy: Policy::RoundRobin,
                seed: 0,
            },
        );
        for (i, policy) in [Policy::Random, Policy::Pct { depth: 3 }, Policy::Random]
            .into_iter()
            .enumerate()
        {
            let other = run(
                &k,
                Schedule {
                    policy,
                    seed: seed * 7 + i as u64,
                },
            );
            assert_eq!(
                reference, other,
                "seed {seed} ({:?}) differs under {policy:?}",
                k.phases
            );
        }
    }
}
