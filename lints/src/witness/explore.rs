//! The runs the analyzer makes of one entry: a launch that fits the kernel, parameter values,
//! and schedules, within a budget.
//!
//! 1. The launch: the shapes of [`launch::candidates`] (one when the PTX declares it), each
//!    run once round-robin. A shape under which the run stops on something other than a
//!    barrier rule (an access outside memory, a trap) does not fit. Of the others, the one
//!    whose run executed the most barrier instructions is the launch the kernel was written
//!    for (a block too small leaves roles empty), one whose run completed before one whose run
//!    broke a rule, the earlier candidate before the later; and the smallest cluster under
//!    which some block fits (a kernel that needs a cluster does not fit a smaller one). These
//!    runs stop at the same number of instructions per thread ([`search_steps`]); the chosen
//!    shape's run, if it stopped there, goes on with a whole run's budget.
//! 2. Scenarios: parameter values ([`params`]) and global memory: every integer field 128 (a
//!    few tiles and iterations), 2048 and 65536 (rings that wrap many times: a kernel over `n`
//!    elements in tiles of thousands needs a large `n`), 1 (loops that run once),
//!    then 128 again with every byte of global memory 0xff instead of zero (data-dependent
//!    branches the other way: every float a NaN).
//! 3. Schedules per scenario: round-robin; PCT (probabilistic concurrency testing) of depth 2
//!    and 3, which finds an ordering bug of depth d with probability at least 1/(n·k^(d-1)),
//!    with several seeds; random. Each schedule is deterministic: its seed replays it.
//!
//! Every run stops at its own step budget and the entry at a total one ([`Budget`]).

use super::launch::{self, Directives, Shape};
use super::params::{self, Field};
use super::{Proof, Proven, classify, steps};
use crate::analysis::FunctionAnalysis;
use crate::diagnostic::Witness;
use phasegate_ptx::{Function, Module};
use phasegate_sim::probe::{Kernel, Probe, ProbeRun};
use phasegate_sim::{FindingKind, Launch, Outcome, Policy, Report, Schedule};

/// How much the runs of one entry may cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most runs.
    pub runs: usize,
    /// Most thread-instructions of one run.
    pub run_steps: u64,
    /// Most thread-instructions of all runs together.
    pub total_steps: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            runs: 36,
            run_steps: 1_500_000,
            total_steps: 10_000_000,
        }
    }
}

/// Values the runs give what the PTX does not hold: every integer field of the parameters,
/// and every byte of global memory until written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scenario {
    ints: u64,
    fill: u8,
}

/// The scenarios, in order (module docs).
const SCENARIOS: [Scenario; 5] = [
    Scenario { ints: 128, fill: 0 },
    Scenario {
        ints: 2048,
        fill: 0,
    },
    Scenario {
        ints: 65536,
        fill: 0,
    },
    Scenario { ints: 1, fill: 0 },
    Scenario {
        ints: 128,
        fill: 0xff,
    },
];

/// The scenario the launch search runs with: long enough loops to reach every role's barriers.
const SEARCH: Scenario = Scenario {
    ints: 2048,
    fill: 0,
};

/// Most runs of the launch search.
const SEARCH_RUNS: usize = 16;

/// Where pointer fields point: far apart in the open global memory of the run.
const POINTER_BASE: u64 = 0x10_0000_0000;
const POINTER_STRIDE: u64 = 0x1_0000_0000;

/// The parameter block of a run: every integer field `value`, every pointer field an address
/// of its own in open global memory ([`POINTER_BASE`] on, [`POINTER_STRIDE`] apart).
pub(crate) fn param_block(fields: &[Field], bytes: u32, value: u64) -> Vec<u8> {
    let mut block = vec![0u8; bytes as usize];
    let mut pointers = 0u64;
    for f in fields {
        let v = if f.pointer {
            pointers += 1;
            POINTER_BASE + pointers * POINTER_STRIDE
        } else {
            value
        };
        let at = f.offset as usize;
        let n = (f.width as usize).min(8);
        if at + n <= block.len() {
            block[at..at + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
    block
}

/// Runs `entry` (`fa` analyzes it) as the module docs say and returns what the runs proved.
pub fn prove(module: &Module, entry: &Function, fa: &FunctionAnalysis, budget: Budget) -> Proof {
    let mut proof = Proof::default();
    let kernel = match Kernel::decode(module, &entry.name) {
        Ok(k) => k,
        Err(e) => {
            proof
                .unproven
                .push(format!("the simulator cannot run the kernel: {e}"));
            return proof;
        }
    };
    let (reqntid, maxntid, reqnctapercluster) = kernel.shape_directives();
    let shapes = launch::candidates(
        entry,
        Directives {
            reqntid,
            maxntid,
            reqnctapercluster,
        },
        if kernel.uses_dynamic_shared() {
            kernel.max_dynamic_shared_bytes()
        } else {
            0
        },
    );
    let fields = params::fields(fa);
    let unknown = unknown_bytes(fa, &kernel);
    let made_up = made_up_operands(fa);
    let mut spent = 0u64;
    let mut cx = Runs {
        module,
        entry: &entry.name,
        kernel: &kernel,
        unknown_bytes: &unknown,
        made_up_operands: &made_up,
        fields: &fields,
        param_bytes: kernel.param_bytes(),
        reads_thread_yz: launch::reads_thread_yz(module, entry),
        budget,
        spent: &mut spent,
        proof: &mut proof,
    };
    // 1. The launch. Within one cluster shape, the block whose round-robin run reaches the
    // most barrier instructions, one that completes before one that does not, the first
    // candidate before the others. Clusters in the order of the candidates (smallest first):
    // the first whose best run completes is the kernel's (a kernel that needs a cluster does
    // not fit a smaller one: its remote accesses name CTAs the cluster does not have, or it
    // waits for a peer that is not there); when none completes, the first that broke a
    // barrier rule.
    let mut best: Option<(usize, bool, Shape, ProbeRun)> = None;
    let mut first_broken: Option<(usize, bool, Shape, ProbeRun)> = None;
    let mut searched = 0;
    let mut clusters: Vec<(u32, u32, u32)> = shapes.iter().map(|s| s.cluster).collect();
    clusters.dedup();
    'clusters: for cluster in clusters {
        let mut here: Option<(usize, bool, Shape, ProbeRun)> = None;
        for &shape in shapes.iter().filter(|s| s.cluster == cluster) {
            if searched >= SEARCH_RUNS {
                break;
            }
            searched += 1;
            let Some(run) = cx.run_for(
                shape,
                SEARCH,
                Schedule::default(),
                search_steps(shape, budget),
            ) else {
                // The simulator cannot run the kernel (an instruction it does not know):
                // another shape would not help; the proof says why it is incomplete.
                break 'clusters;
            };
            let clean = match &run.outcome {
                Outcome::Completed(_) => true,
                Outcome::Finding(r) if r.kind == FindingKind::StepLimit => true,
                Outcome::Finding(r) => {
                    if !protocol(module, r, &run) {
                        // A stop that is not a barrier rule: the shape does not fit the kernel.
                        continue;
                    }
                    false
                }
            };
            let mut pcs: Vec<u32> = run.log.iter().map(|e| e.pc).collect();
            pcs.sort_unstable();
            pcs.dedup();
            let coverage = pcs.len();
            let better = match &here {
                None => true,
                Some((c, cl, ..)) => coverage > *c || (coverage == *c && clean && !cl),
            };
            if better {
                here = Some((coverage, clean, shape, run));
            }
        }
        match here {
            Some(h) if h.1 => {
                best = Some(h);
                break;
            }
            Some(h) if first_broken.is_none() => first_broken = Some(h),
            _ => {}
        }
    }
    let best = best.or(first_broken);
    let Some((_, _, shape, first)) = best else {
        cx.proof.unproven.push(format!(
            "no launch the analyzer tried runs the kernel ({} shapes: {})",
            shapes.len(),
            shapes
                .iter()
                .take(3)
                .map(Shape::describe)
                .collect::<Vec<_>>()
                .join("; ")
        ));
        return proof;
    };
    // A search run that ran out of its share of steps is run again with the whole budget: the
    // same schedule replays the same prefix, and goes on.
    let first = match &first.outcome {
        Outcome::Finding(r)
            if r.kind == FindingKind::StepLimit
                && search_steps(shape, budget) < budget.run_steps =>
        {
            cx.run(shape, SEARCH, Schedule::default()).unwrap_or(first)
        }
        _ => first,
    };
    let first_signature = Some(signature(&first));
    let first = Some(first);
    cx.proof.launch = shape.describe();
    if let Some(run) = &first {
        cx.proof.skeleton =
            super::skeleton::skeleton(module, &kernel, run, shape.cluster != (1, 1, 1));
    }
    if let Some(run) = first {
        cx.record(shape, SEARCH, Schedule::default(), &run);
    }
    // 2 and 3. Scenarios and schedules.
    // A structure's fields are related by the host code that fills it (a divisor and its
    // magic multiplier, a count and its log2): all of them 1 is no structure a host makes,
    // while a few scalars of 1 are a real launch (loops that run once).
    let scenarios: Vec<Scenario> = SCENARIOS
        .iter()
        .copied()
        .filter(|s| s.ints != 1 || !params::has_structure(fa.function))
        .collect();
    // Each schedule in every scenario before the next schedule: the budget may end first.
    let debug = std::env::var_os("PHASEGATE_WITNESS_DEBUG").is_some();
    // A scenario whose runs keep doing the same thing under other schedules is settled: its
    // barrier protocol does not depend on the schedule the way the runs can vary it.
    let mut seen: Vec<Vec<u64>> = vec![Vec::new(); scenarios.len()];
    let mut repeats = vec![0usize; scenarios.len()];
    if let Some((k, _)) = scenarios.iter().enumerate().find(|(_, s)| **s == SEARCH)
        && let Some(sig) = first_signature
    {
        seen[k].push(sig);
    }
    'all: for schedule in schedules() {
        for (k, &scenario) in scenarios.iter().enumerate() {
            if scenario == SEARCH && schedule == Schedule::default() {
                continue;
            }
            if repeats[k] >= SETTLED {
                continue;
            }
            if cx.exhausted() {
                break 'all;
            }
            if let Some(run) = cx.run(shape, scenario, schedule) {
                let sig = signature(&run);
                if seen[k].contains(&sig) {
                    repeats[k] += 1;
                } else {
                    repeats[k] = 0;
                    seen[k].push(sig);
                }
                cx.record(shape, scenario, schedule, &run);
            }
        }
    }
    if debug {
        eprintln!(
            "witness proof of `{}`: {} runs, {}, {} findings, unproven: {:?}",
            entry.name,
            proof.runs,
            proof.launch,
            proof.findings.len(),
            proof.unproven
        );
    }
    proof
}

/// Thread-instructions per thread of a launch-search run.
const SEARCH_STEPS_PER_THREAD: u64 = 3000;

/// The steps of a launch-search run of `shape`: the same number per thread for every shape, so
/// that the coverage the search compares is how far each shape's threads got (equal totals would
/// carry a small block's threads further), at most one run's budget.
fn search_steps(shape: Shape, budget: Budget) -> u64 {
    let threads = |d: (u32, u32, u32)| u64::from(d.0) * u64::from(d.1) * u64::from(d.2);
    (threads(shape.block) * threads(shape.cluster) * SEARCH_STEPS_PER_THREAD).min(budget.run_steps)
}

/// Runs in a row that repeat an earlier run of their scenario before the scenario is settled.
const SETTLED: usize = 3;

/// What a run did, as far as the barrier protocol goes: each warp's barrier events in order
/// (failed polls left out: how often a wait spins is the schedule's, not the protocol's), and
/// how the run ended.
fn signature(run: &ProbeRun) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut events: Vec<(u32, u32, u8, i64)> = run
        .log
        .iter()
        .filter(|e| e.kind != phasegate_sim::probe::LogKind::WaitPending)
        .map(|e| (e.warp, e.pc, e.kind as u8, e.phase.unwrap_or(-2)))
        .collect();
    // Stable by warp: each warp's own order is kept.
    events.sort_by_key(|e| e.0);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    events.hash(&mut h);
    match &run.outcome {
        Outcome::Completed(_) => 0u8.hash(&mut h),
        Outcome::Finding(r) => (1u8, r.kind.code(), &r.message).hash(&mut h),
    }
    h.finish()
}

/// The ops of the entry whose byte counts (an expect-tx, a bulk copy's size) are not
/// constants: computed from the parameters or memory, which the runs make up. A made-up count
/// is as unknown as a tensor copy's box (CUTLASS reads its transaction bytes from its
/// parameters), so the runs take it to be what balances the transactions.
pub(crate) fn unknown_bytes(fa: &FunctionAnalysis, kernel: &Kernel) -> Vec<u32> {
    use phasegate_ptx::Opcode;
    let mut out = Vec::new();
    for (stmt, inst) in fa.instructions() {
        let count = match &inst.opcode {
            Opcode::Mbarrier if inst.has("expect_tx") => inst.operands.last(),
            Opcode::Cp
                if inst.has("bulk")
                    && !inst.has("tensor")
                    && inst.modifiers.iter().any(|m| m.starts_with("mbarrier")) =>
            {
                inst.operands.get(2)
            }
            _ => None,
        };
        if count.is_some_and(|op| made_up(fa, stmt, op)) {
            out.extend(kernel.pcs_of(&fa.function.name, stmt));
        }
    }
    out
}

/// The statements whose barrier operands (a named barrier's id or thread count, an mbarrier's
/// expected count) are not constants: computed from the parameters or memory, which the runs
/// make up. A run that breaks a range rule there (an id past 15, a count past the CTA) broke
/// it with a made-up value, which proves nothing about the kernel.
fn made_up_operands(fa: &FunctionAnalysis) -> std::collections::HashSet<phasegate_ptx::StmtId> {
    use phasegate_ptx::{Opcode, Operand};
    let mut out = std::collections::HashSet::new();
    for (stmt, inst) in fa.instructions() {
        let operands: &[Operand] = match &inst.opcode {
            Opcode::Bar | Opcode::Barrier if inst.has("cluster") => &[],
            // `bar.red.op d, a{, b}, {!}c`: the id and count sit between the result and the
            // predicate.
            Opcode::Bar | Opcode::Barrier if inst.has("red") => {
                let n = inst.operands.len();
                inst.operands.get(1..n.saturating_sub(1)).unwrap_or(&[])
            }
            Opcode::Bar | Opcode::Barrier => &inst.operands,
            Opcode::Mbarrier if inst.has("init") => inst.operands.get(1..).unwrap_or(&[]),
            _ => &[],
        };
        if operands.iter().any(|op| made_up(fa, stmt, op)) {
            out.insert(stmt);
        }
    }
    out
}

/// Whether operand `op` of statement `stmt` is no constant: the kernel computes it from its
/// parameters or memory, which the runs make up.
fn made_up(
    fa: &FunctionAnalysis,
    stmt: phasegate_ptx::StmtId,
    op: &phasegate_ptx::Operand,
) -> bool {
    !matches!(op, phasegate_ptx::Operand::Imm(_))
        && fa.consts.operand(stmt, op, &fa.vars).as_const().is_none()
}

/// The schedules tried per scenario (module docs).
fn schedules() -> Vec<Schedule> {
    let mut out = vec![Schedule::default()];
    for seed in 1..=4 {
        out.push(Schedule {
            policy: Policy::Pct { depth: 2 },
            seed,
        });
    }
    for seed in 5..=7 {
        out.push(Schedule {
            policy: Policy::Pct { depth: 3 },
            seed,
        });
    }
    for seed in 8..=9 {
        out.push(Schedule {
            policy: Policy::Random,
            seed,
        });
    }
    out
}

/// Whether a run's stop is about the barriers (a lint's rule).
fn protocol(module: &Module, r: &Report, run: &ProbeRun) -> bool {
    classify::lint_of(r.kind, &r.message, site_instruction(module, r), run).is_some()
}

/// The instruction of a report's first site, in the PTX model.
fn site_instruction<'m>(module: &'m Module, r: &Report) -> Option<&'m phasegate_ptx::Instruction> {
    let site = r.sites.first()?;
    let body = module.function(&site.function)?.body.as_ref()?;
    match body.get(site.stmt?) {
        phasegate_ptx::Statement::Instruction(i) => Some(i),
        _ => None,
    }
}

/// The state of the runs of one entry.
struct Runs<'a> {
    module: &'a Module,
    /// The entry's name.
    entry: &'a str,
    kernel: &'a Kernel,
    /// Ops whose byte counts the kernel computes from its inputs ([`unknown_bytes`]).
    unknown_bytes: &'a [u32],
    /// Statements of the entry whose barrier ids and counts are made up ([`made_up_operands`]).
    made_up_operands: &'a std::collections::HashSet<phasegate_ptx::StmtId>,
    fields: &'a [Field],
    param_bytes: u32,
    /// Whether the kernel's roles depend on the y or z thread index ([`launch::reads_thread_yz`]).
    reads_thread_yz: bool,
    budget: Budget,
    spent: &'a mut u64,
    proof: &'a mut Proof,
}

impl Runs<'_> {
    fn exhausted(&self) -> bool {
        self.proof.runs >= self.budget.runs || *self.spent >= self.budget.total_steps
    }

    /// The parameter block of a scenario whose integers are `value`.
    fn params(&self, value: u64) -> Vec<u8> {
        param_block(self.fields, self.param_bytes, value)
    }

    /// One run; `None` when the simulator cannot run it (the reason goes to the proof).
    fn run(&mut self, shape: Shape, scenario: Scenario, schedule: Schedule) -> Option<ProbeRun> {
        self.run_for(shape, scenario, schedule, self.budget.run_steps)
    }

    /// One run of at most `max_steps` thread-instructions.
    fn run_for(
        &mut self,
        shape: Shape,
        scenario: Scenario,
        schedule: Schedule,
        max_steps: u64,
    ) -> Option<ProbeRun> {
        if self.exhausted() {
            return None;
        }
        let launch = Launch {
            grid: shape.grid,
            block: shape.block,
            cluster: Some(shape.cluster),
            dynamic_shared_bytes: shape.dynamic_shared,
            schedule,
            max_steps,
            race_check: true,
        };
        let probe = Probe {
            params: self.params(scenario.ints),
            cluster: 0,
            log: true,
            fill: scenario.fill,
            unknown_bytes: self.unknown_bytes.to_vec(),
        };
        self.proof.runs += 1;
        let result = self.kernel.run(&launch, &probe);
        if std::env::var_os("PHASEGATE_WITNESS_DEBUG").is_some() {
            eprintln!(
                "witness run {}: {} {scenario:?} {schedule}: {}",
                self.proof.runs,
                shape.describe(),
                match &result {
                    Ok(r) => match &r.outcome {
                        Outcome::Completed(s) =>
                            format!("completed ({} steps)", s.thread_instructions),
                        Outcome::Finding(f) => format!("{}: {}", f.kind.code(), f.message),
                    },
                    Err(e) => format!("error: {e}"),
                }
            );
        }
        match result {
            Ok(run) => {
                *self.spent += match &run.outcome {
                    Outcome::Completed(s) => s.thread_instructions,
                    Outcome::Finding(r) => r.thread_instructions,
                };
                // A run that stopped on what made-up inputs cause (an access outside memory,
                // a trap) says nothing about the rules at the statements it passed: only runs
                // that completed, ran out of steps or broke a rule count as having kept them.
                let judged = match &run.outcome {
                    Outcome::Completed(_) => true,
                    Outcome::Finding(r) => {
                        r.kind == FindingKind::StepLimit || protocol(self.module, r, &run)
                    }
                };
                if judged {
                    for e in &run.log {
                        let loc = self.kernel.location(e.pc);
                        if let Some(stmt) = loc.stmt {
                            self.proof.reached.insert((loc.function.to_string(), stmt));
                        }
                    }
                }
                Some(run)
            }
            Err(e) => {
                let why = format!("the simulator cannot run the kernel: {e}");
                if !self.proof.unproven.contains(&why) {
                    self.proof.unproven.push(why);
                }
                *self.spent += self.budget.run_steps / 4;
                None
            }
        }
    }

    /// Keeps what run `run` found: a finding with its witness, or why it says nothing.
    fn record(&mut self, shape: Shape, scenario: Scenario, schedule: Schedule, run: &ProbeRun) {
        let Outcome::Finding(r) = &run.outcome else {
            return;
        };
        if r.kind == FindingKind::StepLimit {
            return;
        }
        let site = r.sites.first();
        let out_of_range = matches!(
            r.kind,
            FindingKind::BarrierId
                | FindingKind::BarrierThreadCount
                | FindingKind::MbarrierCountRange
        ) && site.is_some_and(|s| {
            s.function == self.entry && s.stmt.is_some_and(|st| self.made_up_operands.contains(&st))
        });
        let lint = if out_of_range {
            None
        } else {
            classify::lint_of(r.kind, &r.message, site_instruction(self.module, r), run)
        };
        let Some(lint) = lint else {
            let why = format!(
                "a run stopped on what made-up inputs may cause, not a barrier rule: {}",
                r.message
            );
            if !self.proof.unproven.iter().any(|u| u == &why) && self.proof.unproven.len() < 8 {
                self.proof.unproven.push(why);
            }
            return;
        };
        let Some((function, stmt)) = site.and_then(|s| Some((s.function.clone(), s.stmt?))) else {
            return;
        };
        if std::env::var_os("PHASEGATE_WITNESS_REPORT").is_some() {
            eprintln!("witness report ({}):\n{r}", lint.name);
        }
        // One finding per lint and statement; the same rule broken at one statement in two
        // runs is one mistake, named by the run that says more about it.
        // A shorter run of the same finding replaces a longer one: the witness a person reads.
        let same = |p: &Proven| p.function == function && p.stmt == stmt;
        let cost = r.thread_instructions;
        if self.proof.findings.iter().any(|p| {
            same(p)
                && (p.lint.name == lint.name && p.cost <= cost
                    || classify::more_specific(p.lint, lint))
        }) {
            return;
        }
        self.proof.findings.retain(|p| {
            !(same(p) && (classify::more_specific(lint, p.lint) || p.lint.name == lint.name))
        });
        let clustered = shape.cluster != (1, 1, 1);
        let steps = steps::steps(
            self.module,
            self.kernel,
            r,
            &run.log,
            &run.blocked,
            run.warps_per_cta,
            clustered,
        );
        let mut assumptions = Vec::new();
        if run.log.iter().any(|e| e.text.contains("tensor copy")) {
            assumptions.push(
                "each tensor copy delivers the bytes its barrier expects (its box is in a tensor map the PTX does not hold)"
                    .to_string(),
            );
        }
        let witness = Witness {
            kernel: self.entry.to_string(),
            launch: format!(
                "{}; {}; schedule {}",
                shape.describe(),
                self.describe_params(scenario),
                schedule
            ),
            replay: replay(&shape, scenario, schedule),
            steps,
            assumptions,
        };
        let mut notes: Vec<String> = r.state.iter().map(|s| format!("state: {s}")).collect();
        notes.extend(r.notes.iter().cloned());
        if r.kind == FindingKind::SharedRace {
            notes.push("in this run a warp arrived twice in one phase of a named barrier (bar.arrive, then another barrier instruction on the same barrier before it completed): both arrivals count (PTX ISA §9.7.13.1), so the phase completed before the warps it was to wait for arrived, and the accesses it was to order race".into());
        }
        self.proof.findings.push(Proven {
            lint,
            function,
            stmt,
            cost,
            message: r.message.clone(),
            spec: r.spec.clone(),
            notes,
            witness,
            unproven: (!shape.block_declared && self.reads_thread_yz).then(|| {
                format!(
                    "the kernel's roles read %tid.y/%tid.z for a block shape fixed at compile time (it never reads %ntid) that the PTX does not declare (.reqntid or .maxntid): the run's block {}x{}x{} is a guess",
                    shape.block.0, shape.block.1, shape.block.2
                )
            }),
        });
    }

    /// `n = 128, out = a pointer into zeroed memory`.
    fn describe_params(&self, scenario: Scenario) -> String {
        let value = scenario.ints;
        let memory = if scenario.fill == 0 {
            "zeroed memory".to_string()
        } else {
            format!("memory of bytes 0x{:02x}", scenario.fill)
        };
        if self.fields.is_empty() {
            return format!("no parameters read; global memory: {memory}");
        }
        let ints: Vec<&str> = self
            .fields
            .iter()
            .filter(|f| !f.pointer)
            .map(|f| f.name.as_str())
            .collect();
        let pointers: Vec<&str> = self
            .fields
            .iter()
            .filter(|f| f.pointer)
            .map(|f| f.name.as_str())
            .collect();
        let mut parts = Vec::new();
        if !ints.is_empty() {
            parts.push(format!("{} = {value}", list(&ints)));
        }
        if !pointers.is_empty() {
            parts.push(format!("{} = pointers into {memory}", list(&pointers)));
        }
        parts.join(", ")
    }
}

/// `a, b and 3 more`.
fn list(names: &[&str]) -> String {
    if names.len() <= 4 {
        names.join(", ")
    } else {
        format!("{} and {} more", names[..3].join(", "), names.len() - 3)
    }
}

/// What `phasegate sim --witness` reads to replay a run: the shape, the scenario and the
/// schedule, `block=160x1x1,cluster=1x1x1,grid=2x1x1,smem=0,ints=128,fill=0,schedule=pct:2:3`.
fn replay(shape: &Shape, scenario: Scenario, schedule: Schedule) -> String {
    let d = |(x, y, z): (u32, u32, u32)| format!("{x}x{y}x{z}");
    let s = match schedule.policy {
        Policy::Pct { depth } => format!("pct:{depth}:{}", schedule.seed),
        p => format!("{}:{}", p.name(), schedule.seed),
    };
    format!(
        "block={},cluster={},grid={},smem={},ints={},fill={},schedule={s}",
        d(shape.block),
        d(shape.cluster),
        d(shape.grid),
        shape.dynamic_shared,
        scenario.ints,
        scenario.fill
    )
}
