//! The CPU simulator: runs the PTX that ships — what `#[kernel]` generated or what nvcc wrote
//! — with the barrier semantics of the PTX ISA, and stops with a [`Report`] on a deadlock or
//! undefined behaviour.
//!
//! ```text
//! PTX model --decode--> Program (compact ops) --Machine (per cluster)--> Outcome
//!                                               \--scheduler (policy, seed, cluster)
//! ```
//!
//! Dependencies run one way: the code of instructions depends on the state it works on,
//! never the reverse. `machine` holds one cluster's state (CTAs, warps, the barrier
//! objects, the async-operation queue, the race detector); `exec` implements instructions
//! as methods of the machine, `deadlock` and `run`/`parallel` drive it. The state it holds
//! knows nothing of it:
//!
//! - `barrier`: the three barrier families as state machines with the spec's semantics.
//!   They take thread ids, lane masks and counts and return the lanes to wake, a completed
//!   phase, or the rule broken (`barrier::Violation`); `exec::barrier` and `exec::mbar` read
//!   operands, block and wake warps and name report sites;
//! - `async_copy`: the queue of asynchronous operations and their groups (`exec::asyncs`
//!   completes them), with `tensor_copy`, the box of one tensor copy;
//! - `trace`: the timeline as data (`exec::timeline` records into it);
//! - `tma_state`: tensor maps modified and not fenced, `setmaxnreg` per warpgroup;
//! - `tensor_state`: the wgmma operations in flight per warp and each warpgroup's issue log;
//! - `state`: the little types both sides use (`Block`, `Res`, lane masks).
//!
//! ```text
//! exec/*, deadlock, run, parallel --> machine --> barrier, async_copy, trace, tma_state,
//!                                           |    tensor_state
//!                                           \--> state, race, report, decode, memory
//! ```
//!
//! A launch's clusters run in order, each on global memory as the ones before it left it, or
//! in parallel on the current rayon pool with exactly that result (see `parallel`): the
//! outcome, buffers, stats and reports of a schedule do not depend on the number of threads.
//!
//! - [`simulate_module`] runs one launch of an entry, [`simulate_ptx`] one of PTX text;
//! - [`explore`] runs many schedules of a (small) launch and returns the first failure with
//!   the schedule that replays it;
//! - [`simulate_traced`] also records a timeline ([`Trace`]: Chrome trace JSON, SVG, summary).
//!
//! A run returns `Ok(Outcome::Completed(stats))`, `Ok(Outcome::Finding(report))` when the
//! kernel is at fault (deadlock, undefined behaviour, out-of-bounds access, trap, step budget
//! exceeded), or `Err(SimError)` when the simulator cannot run it (an instruction it does not
//! know, a bad launch, bad arguments). It never panics on any input.

#![warn(missing_docs)]

mod args;
mod async_copy;
pub mod barrier;
mod checked;
mod deadlock;
mod decode;
mod exec;
pub mod fp8;
pub mod generate;
mod machine;
mod memory;
mod overlay;
mod parallel;
mod race;
mod report;
pub mod rng;
mod run;
mod sched;
mod state;
mod struct_arg;
mod tensor_copy;
mod tensor_state;
mod tensormap;
mod tma_state;
mod trace;

pub use args::{ArgValue, Element, KernelArg, KernelArgs, TensorMapArg, TensorSource};
pub use checked::RunError;
/// The simulator's exact narrow-float codec, which the host fp8 types share.
pub(crate) use decode::half::Fmt as NarrowFormat;
pub(crate) use exec::half::{decode as narrow_decode, encode as narrow_encode};
pub use report::{FindingKind, Report, Site};
pub use sched::{Policy, Schedule};
pub use struct_arg::{Reloc, RelocKind, RelocTarget, StructArg, StructBuffer};
pub use tensormap::{
    Interleave, L2Promotion, OobFill, Swizzle, TensorMap, TensorMapError, TensorMapSpec,
    TmaDataType,
};
pub use trace::{Event, EventKind, Trace, Track};

use phasegate_ptx::Module;
use std::fmt;

/// The shape and options of one launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// CTAs per dimension (`%nctaid`).
    pub grid: (u32, u32, u32),
    /// Threads per CTA per dimension (`%ntid`).
    pub block: (u32, u32, u32),
    /// CTAs per cluster; `None` uses the kernel's `.reqnctapercluster`, or clusters of one CTA.
    pub cluster: Option<(u32, u32, u32)>,
    /// Bytes of dynamic shared memory per CTA, as a driver launch's `sharedMemBytes` gives.
    pub dynamic_shared_bytes: u32,
    /// The order in which warps run and async operations complete; the same schedule replays
    /// a run exactly.
    pub schedule: Schedule,
    /// The most thread-instructions the run may execute before it stops with
    /// [`FindingKind::StepLimit`].
    pub max_steps: u64,
    /// Whether shared-memory accesses are checked for data races (happens-before).
    pub race_check: bool,
}

impl Default for Launch {
    fn default() -> Launch {
        Launch {
            grid: (1, 1, 1),
            block: (32, 1, 1),
            cluster: None,
            dynamic_shared_bytes: 0,
            schedule: Schedule::default(),
            max_steps: 1_000_000_000,
            race_check: true,
        }
    }
}

/// Counts of a run, and what it found below the level that stops a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Instructions issued, counted once per thread of the issuing group.
    pub thread_instructions: u64,
    /// Instructions issued, counted once per warp group.
    pub warp_instructions: u64,
    /// Clusters run.
    pub clusters: u64,
    /// CTAs run.
    pub ctas: u64,
    /// Phases completed by named barriers (`bar`/`barrier`, reductions included).
    pub barrier_phases: u64,
    /// Phases completed by mbarrier objects.
    pub mbarrier_phases: u64,
    /// Phases completed by cluster barriers (`barrier.cluster`).
    pub cluster_phases: u64,
    /// Asynchronous operations issued: `cp.async`, bulk and tensor copies,
    /// `cp.async.mbarrier.arrive`.
    pub async_ops: u64,
    /// Scheduling decisions.
    pub decisions: u64,
    /// Warnings: behaviour the spec allows but that is almost always a bug, and that the run
    /// went on past (threads that exit without an aligned barrier the rest of their warp
    /// executes), each once per instruction.
    pub warnings: Vec<Report>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every thread exited and nothing was found.
    Completed(Stats),
    /// The kernel broke a rule of the spec; the run stopped there.
    Finding(Box<Report>),
}

impl Outcome {
    /// Whether every thread exited with nothing found.
    pub fn is_completed(&self) -> bool {
        matches!(self, Outcome::Completed(_))
    }
    /// The report of a finding (`None` for a completed run).
    pub fn report(&self) -> Option<&Report> {
        match self {
            Outcome::Finding(r) => Some(r),
            Outcome::Completed(_) => None,
        }
    }
    /// The stats of a completed run; panics with the report otherwise (for tests).
    #[track_caller]
    pub fn expect_completed(self) -> Stats {
        match self {
            Outcome::Completed(s) => s,
            Outcome::Finding(r) => panic!("expected the run to complete, but:\n{r}"),
        }
    }
    /// The report of a finding; panics otherwise (for tests).
    #[track_caller]
    pub fn expect_finding(self) -> Report {
        match self {
            Outcome::Finding(r) => *r,
            Outcome::Completed(s) => panic!(
                "expected a finding, but the run completed ({} thread-instructions)",
                s.thread_instructions
            ),
        }
    }
}

/// Why the simulator could not run a kernel (not the kernel's fault).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// The PTX text does not parse.
    Parse {
        /// 1-based line of the offending token.
        line: u32,
        /// 1-based column (in characters) of the offending token.
        col: u32,
        /// What was found and what was expected, lowercase.
        message: String,
    },
    /// A thread reached an instruction (or form of one) the simulator does not implement.
    Unsupported {
        /// The function (entry or `.func`) the instruction is in.
        function: String,
        /// Its PTX line (0 when the module was not read from text).
        line: u32,
        /// The instruction as the PTX writes it.
        instruction: String,
        /// What the simulator lacks to run it.
        reason: String,
    },
    /// The launch does not fit the kernel or the simulator's limits.
    Launch(String),
    /// The arguments do not fit the kernel's parameters.
    Args(String),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Parse { line, col, message } => write!(
                f,
                "cannot read the PTX: line {line}, column {col}: {message}"
            ),
            SimError::Unsupported {
                function,
                line,
                instruction,
                reason,
            } => {
                write!(
                    f,
                    "the simulator cannot run line {line} of `{function}`: {reason} (instruction `{instruction}`)"
                )
            }
            SimError::Launch(m) => write!(f, "bad launch: {m}"),
            SimError::Args(m) => write!(f, "bad arguments: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

/// A block shape against launch bounds: the exact shape `.reqntid` requires (PTX ISA §11.4.3)
/// and the most threads `.maxntid` allows (§11.4.2). `kernel` names the kernel in the error,
/// which says which bound and what the launch has. The simulator and the GPU launch share it.
pub fn check_block(
    kernel: &str,
    required: Option<(u32, u32, u32)>,
    max_threads: Option<u64>,
    block: (u32, u32, u32),
) -> Result<(), String> {
    if let Some(required) = required
        && required != block
    {
        return Err(format!(
            "{kernel} requires blocks of {required:?} (.reqntid), the launch has {block:?}"
        ));
    }
    let threads = block.0 as u64 * block.1 as u64 * block.2 as u64;
    if let Some(max) = max_threads
        && threads > max
    {
        return Err(format!(
            "{kernel} allows at most {max} threads per block (.maxntid), the launch has {threads}"
        ));
    }
    Ok(())
}

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

pub(crate) fn parse(ptx: &str) -> Result<Module, SimError> {
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
    for i in 0..runs {
        let schedule = exploration_schedule(launch.schedule, i);
        let mut copy = args.to_vec();
        let l = Launch {
            schedule,
            ..launch.clone()
        };
        if let Outcome::Finding(report) = simulate_module(module, entry, &l, &mut copy)? {
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
