//! The entry points: one launch of an entry ([`simulate_module`]), of PTX text
//! ([`simulate_ptx`]), with a timeline ([`simulate_traced`]), and many schedules of one launch
//! ([`explore`]).

use crate::args::ArgValue;
use crate::error::SimError;
use crate::launch::Launch;
use crate::outcome::Outcome;
use crate::report::Report;
use crate::run;
use crate::sched::{Policy, Schedule};
use crate::trace::Trace;
use phasegate_ptx::Module;

/// Runs `entry` of `module` once. Buffers in `args` are copied back after the run (also
/// after a finding), so the caller reads the kernel's results there.
pub fn simulate_module(
    module: &Module,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
) -> Result<Outcome, SimError> {
    run::run(module, entry, launch, args, None)
}

/// Like [`simulate_module`], and records the timeline of the run.
pub fn simulate_traced(
    module: &Module,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
) -> Result<(Outcome, Trace), SimError> {
    let mut trace = Trace::default();
    let outcome = run::run(module, entry, launch, args, Some(&mut trace))?;
    Ok((outcome, trace))
}

/// Reads PTX text and runs `entry` (see [`simulate_module`]).
///
/// One warp reverses 32 words through shared memory: each thread stores its `%tid.x`, and
/// after the `bar.sync` reads the word of thread `31 - %tid.x` and writes it out.
///
/// ```
/// use phasegate_sim::{ArgValue, FindingKind, Launch, simulate_ptx};
///
/// let ptx = r#"
/// .version 8.0
/// .target sm_90
/// .address_size 64
///
/// .visible .entry reverse(.param .u64 out)
/// {
///     .reg .b32 %r<6>;
///     .reg .b64 %rd<4>;
///     .shared .align 4 .b32 tile[32];
///
///     mov.u32 %r1, %tid.x;
///     mov.u32 %r2, tile;
///     shl.b32 %r3, %r1, 2;
///     add.u32 %r4, %r2, %r3;
///     st.shared.u32 [%r4], %r1;
///     bar.sync 0;
///     mov.u32 %r5, 124;
///     sub.u32 %r5, %r5, %r3;
///     add.u32 %r5, %r2, %r5;
///     ld.shared.u32 %r5, [%r5];
///     ld.param.u64 %rd1, [out];
///     cvta.to.global.u64 %rd1, %rd1;
///     mul.wide.u32 %rd2, %r1, 4;
///     add.s64 %rd3, %rd1, %rd2;
///     st.global.u32 [%rd3], %r5;
///     ret;
/// }
/// "#;
/// let mut args = [ArgValue::zeroed(32 * 4)];
/// let outcome = simulate_ptx(ptx, "reverse", &Launch::default(), &mut args)?;
/// assert!(outcome.is_completed(), "{:?}", outcome.report());
/// assert_eq!(args[0].read::<u32>(), (0..32).rev().collect::<Vec<u32>>());
///
/// // Without the barrier, the loads race with the other threads' stores.
/// let racy = ptx.replace("bar.sync 0;", "");
/// let outcome = simulate_ptx(&racy, "reverse", &Launch::default(), &mut args)?;
/// assert_eq!(outcome.report().map(|r| r.kind), Some(FindingKind::SharedRace));
/// # Ok::<(), phasegate_sim::SimError>(())
/// ```
pub fn simulate_ptx(
    ptx: &str,
    entry: &str,
    launch: &Launch,
    args: &mut [ArgValue],
) -> Result<Outcome, SimError> {
    let module = parse(ptx)?;
    simulate_module(&module, entry, launch, args)
}

fn parse(ptx: &str) -> Result<Module, SimError> {
    phasegate_ptx::parse(ptx).map_err(|e| SimError::Parse {
        line: e.line,
        col: e.col,
        message: e.message,
    })
}

/// A failing schedule found by [`explore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Replays the failure: `Launch { schedule, .. }`.
    pub schedule: Schedule,
    /// What the failing run found.
    pub report: Report,
}

/// What [`explore`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exploration {
    /// Runs made (up to and including the failing one).
    pub runs: usize,
    /// The first failing schedule, if any run failed.
    pub failure: Option<Failure>,
}

/// Runs `runs` schedules of the launch — the launch's own schedule first, then random and PCT
/// schedules with seeds following it — on fresh copies of `args`, and returns the first
/// failure. Async completions are scheduling choices too, so a kernel correct only when its
/// copies are fast (or slow) fails under some schedule.
pub fn explore(
    module: &Module,
    entry: &str,
    launch: &Launch,
    args: &[ArgValue],
    runs: usize,
) -> Result<Exploration, SimError> {
    // Decoded once: every run is the same launch but for its schedule.
    let prog = crate::decode::decode(module, entry)?;
    for i in 0..runs {
        let schedule = exploration_schedule(launch.schedule, i);
        let mut copy = args.to_vec();
        let l = Launch {
            schedule,
            ..launch.clone()
        };
        if let Outcome::Finding(report) = run::run_decoded(&prog, entry, &l, &mut copy, None)? {
            return Ok(Exploration {
                runs: i + 1,
                failure: Some(Failure {
                    schedule,
                    report: *report,
                }),
            });
        }
    }
    Ok(Exploration {
        runs,
        failure: None,
    })
}

/// The `i`-th schedule [`explore`] tries.
pub fn exploration_schedule(first: Schedule, i: usize) -> Schedule {
    if i == 0 {
        return first;
    }
    let seed = first.seed.wrapping_add(i as u64);
    let policy = match i % 3 {
        1 => Policy::Random,
        2 => Policy::Pct { depth: 3 },
        _ => Policy::Pct { depth: 5 },
    };
    Schedule { policy, seed }
}
