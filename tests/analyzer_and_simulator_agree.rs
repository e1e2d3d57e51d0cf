//! The analyzer and the simulator do not disagree on a correct kernel: every kernel the
//! analyzer passes, `explore` runs under many schedules without finding anything.
//!
//! The kernels are the generator's random barrier-correct ones (named barriers over warp
//! subsets, `bar.red`, mbarrier phases, bulk copies) and the examples. The generated kernels
//! are correct by construction (and agree with an H100, `book/src/gpu/validation.md`), so any
//! finding of the analyzer on them is a false positive, and a failure here. (Seeds 0..2000 pass
//! in a release run; `book/src/reliability/README.md`.)

#[path = "../examples/support/kernels_for_sim.rs"]
mod kernels_for_sim;

use phasegate::lints::{LintConfig, lint_module};
use phasegate::ptx::parse;
use phasegate::runtime::generate;
use phasegate::runtime::sim::{ArgValue, Launch, explore};

#[test]
fn generated_kernels_pass_the_analyzer_and_explore_finds_nothing() {
    let (mut passed, mut flagged) = (0, Vec::new());
    for seed in 0..100 {
        let k = generate::kernel(seed);
        let module = parse(&k.ptx).expect("generated PTX parses");
        let findings = lint_module(&module, &LintConfig::default());
        if !findings.is_empty() {
            let lints: Vec<&str> = findings.iter().map(|d| d.lint).collect();
            println!(
                "false positive on generated kernel {seed} ({:?}): {lints:?}",
                k.phases
            );
            flagged.push(seed);
            continue;
        }
        passed += 1;
        let n = (k.grid * k.block) as usize;
        let input: Vec<u32> = (0..n as u32)
            .map(|i| i.wrapping_mul(40503) ^ seed as u32)
            .collect();
        let args = vec![
            ArgValue::buffer(&input),
            ArgValue::zeroed(n * 4),
            ArgValue::U32(n as u32),
        ];
        let launch = Launch {
            grid: (k.grid, 1, 1),
            block: (k.block, 1, 1),
            ..Launch::default()
        };
        let found = explore(&module, &k.entry, &launch, &args, 12).expect("the simulator runs it");
        assert!(found.failure.is_none(), "seed {seed}: {:?}", found.failure);
    }
    println!(
        "{passed} generated kernels passed the analyzer and explore; {} flagged: {flagged:?}",
        flagged.len()
    );
    assert!(
        flagged.is_empty(),
        "the analyzer flags {} of {} correct generated kernels: {flagged:?}",
        flagged.len(),
        passed + flagged.len()
    );
}

#[test]
fn example_kernels_pass_the_analyzer_and_explore_finds_nothing() {
    for (name, spec, launch, args) in kernels_for_sim::cases() {
        let module = parse(spec.ptx).expect("parses");
        assert!(
            lint_module(&module, &LintConfig::default()).is_empty(),
            "{name}"
        );
        let found = explore(&module, spec.entry, &launch, &args, 6).expect("the simulator runs it");
        assert!(found.failure.is_none(), "{name}: {:?}", found.failure);
    }
}
