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
//! No file imports a file that imports it back, and this one only declares modules and
//! re-exports; each layer below imports only layers under it:
//!
//! ```text
//! simulate          the entry points (simulate_module, simulate_ptx, explore, ...)
//! run               one launch: shape, arguments in memory, buffers back
//! args              ArgValue and the typed arguments (KernelArgs)
//! parallel, fp8     clusters in parallel with the in-order result; host fp8 types
//! cluster, exec,    one cluster's run and the launch's totals; instructions; deadlock
//!   deadlock          reports
//! machine           one cluster's state
//! barrier           the barrier state machines (named, mbarrier, cluster; violation)
//! async_copy, outcome, state, tma_state
//! launch, report, tensor_copy, tensor_state
//! decode, generate, overlay, sched, struct_arg
//! error, memory, race, rng, tensormap, trace
//! ```
//!
//! Inside `decode`, `exec` and `barrier` the same holds file by file (see their docs). The
//! barrier state machines are public as [`barrier`], the executable definition of barrier
//! semantics.
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
mod cluster;
mod deadlock;
mod decode;
mod error;
mod event_log;
mod exec;
pub mod fp8;
pub mod generate;
mod launch;
mod machine;
mod memory;
mod outcome;
mod overlay;
mod parallel;
pub mod probe;
mod race;
mod report;
pub mod rng;
mod run;
mod sched;
mod simulate;
mod spare;
mod state;
mod struct_arg;
mod tensor_copy;
mod tensor_state;
mod tensormap;
mod tma_state;
mod trace;

pub use args::{ArgValue, Element, KernelArg, KernelArgs, TensorMapArg};
pub use error::SimError;
pub use launch::{Launch, check_block};
pub use outcome::{Outcome, RunError, Stats};
pub use report::{FindingKind, Object, Report, Site};
pub use sched::{Policy, Schedule};
pub use simulate::{
    Exploration, Failure, exploration_schedule, explore, simulate_module, simulate_ptx,
    simulate_traced,
};
pub use struct_arg::{Reloc, RelocKind, RelocTarget, StructArg, StructBuffer};
pub use tensormap::{
    Interleave, L2Promotion, OobFill, Swizzle, TensorMap, TensorMapError, TensorMapSpec,
    TensorSource, TmaDataType,
};
pub use trace::{Event, EventKind, Trace, Track};
