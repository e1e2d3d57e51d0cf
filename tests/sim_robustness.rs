//! The simulator never panics: random launches, arguments and schedules, on every fixture and
//! test kernel, with and without a line of the PTX removed. Any outcome (completion, finding,
//! error) is fine; a panic is not.

use phasegate::ptx;
use phasegate::runtime::sim::{self, ArgValue, Launch, Policy, Schedule};
use proptest::prelude::*;

fn sources() -> Vec<String> {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut out = Vec::new();
    for dir in ["tests/fixtures/ptx", "tests/sim"] {
        let mut names: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .expect("dir")
            .map(|e| e.expect("entry").path())
            .collect();
        names.sort();
        for p in names {
            if p.extension().is_some_and(|e| e == "ptx") {
                out.push(std::fs::read_to_string(&p).expect("read"));
            }
        }
    }
    out
}

fn arg(size: u32, pick: u8, v: u64) -> ArgValue {
    match (size, pick % 5) {
        (8, 0) => ArgValue::U64(v),
        (8, 1) => ArgValue::F64(f64::from_bits(v)),
        (8, _) => ArgValue::Buffer(vec![(v >> 8) as u8; (v % 70_000) as usize]),
        (4, 0) => ArgValue::F32(f32::from_bits(v as u32)),
        (4, 1) => ArgValue::I32(v as i32),
        (4, _) => ArgValue::U32((v % 5000) as u32),
        (1, _) => ArgValue::Bool(v & 1 == 1),
        (n, _) => ArgValue::Bytes(vec![v as u8; n as usize]),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn never_panics(
        file in any::<prop::sample::Index>(),
        entry in any::<prop::sample::Index>(),
        drop_line in prop::option::of(any::<prop::sample::Index>()),
        grid in 1u32..5,
        block in prop_oneof![1u32..300, Just(32u32), Just(128), Just(160), Just(256)],
        cluster in prop::option::of(prop_oneof![Just((2u32, 1u32, 1u32)), Just((1, 1, 1)), Just((4, 1, 1))]),
        dynamic in prop_oneof![Just(0u32), Just(65536u32), 0u32..300_000],
        policy in 0u8..3,
        seed in any::<u64>(),
        picks in prop::collection::vec(any::<u8>(), 8),
        values in prop::collection::vec(any::<u64>(), 8),
        mismatch in any::<bool>(),
    ) {
        let texts = sources();
        let mut text = texts[file.index(texts.len())].clone();
        if let Some(i) = drop_line {
            let lines: Vec<&str> = text.lines().collect();
            let skip = i.index(lines.len());
            text = lines.iter().enumerate().filter(|(k, _)| *k != skip).map(|(_, l)| *l).collect::<Vec<_>>().join("\n");
        }
        let Ok(module) = ptx::parse(&text) else { return Ok(()) };
        let entries: Vec<&ptx::Function> = module.entries().collect();
        if entries.is_empty() {
            return Ok(());
        }
        let f = entries[entry.index(entries.len())];
        let mut args: Vec<ArgValue> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let size = if mismatch && i == 0 { 3 } else { p.byte_size() as u32 };
                arg(size, picks[i % 8], values[i % 8])
            })
            .collect();
        let policy = match policy {
            0 => Policy::RoundRobin,
            1 => Policy::Random,
            _ => Policy::Pct { depth: 3 },
        };
        let launch = Launch {
            grid: (grid * cluster.map_or(1, |c| c.0), 1, 1),
            block: (block, 1, 1),
            cluster,
            dynamic_shared_bytes: dynamic,
            schedule: Schedule { policy, seed },
            max_steps: 200_000,
            race_check: seed % 4 != 0,
        };
        let _ = sim::simulate_module(&module, &f.name, &launch, &mut args);
    }
}

/// Found by `cargo fuzz run sim`: static shared memory near 4 GiB made the start of dynamic
/// shared memory overflow `u32` (a panic in debug builds, a wrapped offset in release ones).
/// It is a launch error, like any CTA over the hardware's shared memory.
#[test]
fn shared_memory_near_four_gib_is_a_launch_error() {
    let text = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k()\n{\n\t.shared .align 16 .b8 tile[122222222024];\n\tret;\n}\n";
    match sim::simulate_ptx(text, "k", &Launch::default(), &mut []) {
        Err(sim::SimError::Launch(message)) => {
            assert!(message.contains("shared memory exceed"), "{message}")
        }
        other => panic!("expected a launch error, got {other:?}"),
    }
}

/// A kernel whose body is `body`, with one `u32` output parameter `out`.
fn with_body(body: &str) -> String {
    format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{{\n{body}\n}}\n"
    )
}

fn first_word(text: &str) -> Result<u32, String> {
    let mut args = [ArgValue::zeroed(4)];
    match sim::simulate_ptx(text, "k", &Launch::default(), &mut args) {
        Ok(sim::Outcome::Completed(_)) => Ok(args[0].read::<u32>()[0]),
        Ok(sim::Outcome::Finding(r)) => Err(r.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

/// Found by `cargo fuzz run sim`: `.reg .b64 %rd<1333333330>;` made the simulator create a slot
/// for every name of the range (8 GB and over a minute before it failed). A range's name now
/// gets its slot when the body first uses it.
#[test]
fn a_billion_register_range_costs_only_its_used_names() {
    let text = with_body(
        "\t.reg .b32 %r<1333333330>;\n\t.reg .b64 %rd<1333333330>;\n\tld.param.u64 %rd1333333329, [out];\n\tmov.u32 %r7, 42;\n\tst.global.u32 [%rd1333333329], %r7;\n\tret;",
    );
    assert_eq!(first_word(&text), Ok(42));
}

/// Ranges follow the scope rules: an inner range shadows an outer name, `%r01` is not `%r1`,
/// and a name past the count is unknown.
#[test]
fn register_ranges_shadow_and_bound_their_names() {
    let text = with_body(
        "\t.reg .b32 %r4500;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r4500, 7;\n\t{\n\t.reg .b32 %r<5000>;\n\tmov.u32 %r4500, 9;\n\t}\n\tst.global.u32 [%rd1], %r4500;\n\tret;",
    );
    assert_eq!(first_word(&text), Ok(7));
    let leading_zero = with_body(
        "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r01, 1;\n\tret;",
    );
    assert!(first_word(&leading_zero).is_err_and(|e| e.contains("unknown register `%r01`")));
    let past_count = with_body(
        "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r10, 1;\n\tret;",
    );
    assert!(first_word(&past_count).is_err_and(|e| e.contains("unknown register `%r10`")));
}
