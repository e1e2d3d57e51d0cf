//! The simulator on arbitrary PTX: every `.entry` that reads runs on a small launch (two CTAs
//! of 64 threads, a random schedule, a budget of 200,000 thread-instructions) with arguments
//! made from its parameter list. Whatever the kernel does, the simulator returns: a completed
//! run, a finding (deadlock, undefined behaviour, out-of-bounds access, trap, step limit), or
//! an error saying what it cannot simulate. Never a panic, a hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use phasegate::ptx::{ScalarType, VarDecl};
use phasegate::runtime::sim::{ArgValue, Launch, Policy, Schedule, simulate_module};

/// An argument for one kernel parameter: a 4 KiB buffer for 64-bit parameters (most are
/// pointers), small values for other scalars, zero bytes for arrays and structs.
fn argument(p: &VarDecl) -> ArgValue {
    if !p.array.is_empty() || p.vector.is_some() {
        return ArgValue::Bytes(vec![0; p.byte_size().min(4096) as usize]);
    }
    match p.ty {
        ScalarType::F32 => ArgValue::F32(1.5),
        ScalarType::F64 => ArgValue::F64(1.5),
        ScalarType::Pred => ArgValue::Bool(true),
        t if t.size() == 8 => ArgValue::Buffer(vec![0x5a; 4096]),
        _ => ArgValue::U32(100),
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(module) = phasegate::ptx::parse(text) else {
        return;
    };
    // The seed of the schedule comes from the input, so that libFuzzer explores schedules too.
    let seed = data.iter().fold(0u64, |h, &b| h.rotate_left(5) ^ b as u64);
    let launch = Launch {
        grid: (2, 1, 1),
        block: (64, 1, 1),
        schedule: Schedule {
            policy: Policy::Random,
            seed,
        },
        max_steps: 200_000,
        ..Launch::default()
    };
    for entry in module.entries() {
        let mut args: Vec<ArgValue> = entry.params.iter().map(argument).collect();
        // Ok(outcome) and Err(SimError) are both answers; only a panic or a hang is a bug.
        let _ = simulate_module(&module, &entry.name, &launch, &mut args);
    }
});
