//! One cluster's run on the launch's memory ([`run_cluster`]), and the launch's counts and
//! outcome added up from its clusters' runs in cluster order ([`Totals`]): what `run` (the
//! clusters in order) and `parallel` (in parallel, with the same result) share.

use crate::async_copy::AsyncState;
use crate::barrier::cluster::ClusterBarrier;
use crate::decode::Program;
use crate::error::SimError;
use crate::launch::Launch;
use crate::machine::{ClusterMem, LaunchMem, Machine, Shape, build_cluster, volume};
use crate::outcome::{Outcome, Stats};
use crate::overlay::GlobalMem;
use crate::race::Race;
use crate::report::{Report, Stop};
use crate::sched::{Schedule, Scheduler};
use crate::tma_state::TmaState;
use crate::trace::Trace;

/// Runs clusters `first..` in order after `totals` (the clusters before them).
pub(crate) fn run_rest_in_order(
    prog: &Program,
    shape: &Shape,
    mem: &mut LaunchMem,
    launch: &Launch,
    mut trace: Option<&mut Trace>,
    mut totals: Totals,
    first: u32,
) -> Result<Outcome, SimError> {
    let clusters = volume(shape.grid) / volume(shape.cluster);
    for c in first..clusters as u32 {
        let cm = ClusterMem {
            global: GlobalMem::Direct(&mut mem.global),
            kernel_params: &mem.kernel_params,
            tma: TmaState {
                unfenced: std::mem::take(&mut mem.unfenced),
                ..Default::default()
            },
        };
        let before = totals.stats.thread_instructions;
        let (mut run, _) = run_cluster(
            prog,
            shape,
            launch,
            c,
            cm,
            before,
            trace.as_deref_mut(),
            None,
        );
        mem.unfenced = std::mem::take(&mut run.tma.unfenced);
        if let Some(outcome) = totals.add(run, shape.ctas_per_cluster)? {
            return Ok(outcome);
        }
    }
    Ok(totals.finish())
}

/// What one cluster's run left besides memory.
pub(crate) struct ClusterRun {
    pub result: Result<(), Stop>,
    /// The cluster's own counts (its warnings' instruction counts are its own too).
    pub stats: Stats,
    pub tma: TmaState,
    /// A probe run's threads still blocked at its end, and on what ([`crate::probe`]).
    pub blocked: Vec<crate::event_log::Blocked>,
    /// A probe run's valid mbarriers at its end.
    pub mbarriers: Vec<crate::event_log::MbarrierState>,
}

/// Runs cluster `c` on `mem`; `steps_before` thread-instructions of the launch's budget are
/// spent. Returns what it left, and its view of global memory (an overlay holds its reads and
/// writes).
#[expect(
    clippy::too_many_arguments,
    reason = "the launch, the cluster and its memory, the budget spent, and the two optional observers (trace, probe) are independent inputs"
)]
pub(crate) fn run_cluster<'a>(
    prog: &'a Program,
    shape: &'a Shape,
    launch: &Launch,
    c: u32,
    mem: ClusterMem<'a>,
    steps_before: u64,
    trace: Option<&'a mut Trace>,
    made: Option<crate::event_log::Made<'a>>,
) -> (ClusterRun, GlobalMem<'a>) {
    let mut sched = Scheduler::new(launch.schedule.for_cluster(c), 4096);
    let (ctas, warps) = build_cluster(prog, shape, c);
    let threads = warps.len() * 32;
    let n_ctas = ctas.len();
    let mut m = Machine {
        prog,
        shape,
        mem,
        ctas,
        warps,
        cluster: ClusterBarrier::default(),
        race: Race::new(
            threads,
            n_ctas,
            shape.shared_bytes as usize,
            launch.race_check,
            prog.issues_async(),
        ),
        asyncs: AsyncState::new(
            threads,
            prog.ops
                .iter()
                .any(|op| matches!(op.kind, crate::decode::Kind::CpAsyncMbarArrive { .. })),
        ),
        stats: Stats::default(),
        trace,
        max_steps: launch.max_steps,
        steps_before,
        cluster_index: c,
        gathering: 0,
        tensor: Default::default(),
        made,
    };
    m.trace_start_cluster();
    let result = {
        let _cta = tracing::debug_span!("cta", ctaid = ?m.ctas[0].ctaid, cluster = c).entered();
        m.run(&mut sched)
    };
    let (blocked, mbarriers) = if m.made_up() {
        (m.blocked_groups(), m.mbarrier_states())
    } else {
        (Vec::new(), Vec::new())
    };
    let Machine {
        mut stats,
        mem,
        warps,
        ctas,
        ..
    } = m;
    crate::spare::give_back(
        prog,
        warps.into_iter().map(|w| (w.regs, w.ran)),
        ctas.into_iter().map(|c| c.shared),
    );
    stats.decisions = sched.decisions;
    let run = ClusterRun {
        result,
        stats,
        tma: mem.tma,
        blocked,
        mbarriers,
    };
    (run, mem.global)
}

/// The launch's counts and outcome, from its clusters' runs added in cluster order.
pub(crate) struct Totals {
    pub stats: Stats,
    schedule: Schedule,
}

impl Totals {
    pub(crate) fn new(schedule: Schedule) -> Totals {
        Totals {
            stats: Stats::default(),
            schedule,
        }
    }

    /// Adds the next cluster's run; `Some` outcome when the launch ends with it (a finding).
    /// A warning the launch already has from an earlier cluster (same instruction) is not
    /// added again, and a warning's or finding's instruction count becomes the launch's.
    pub(crate) fn add(
        &mut self,
        run: ClusterRun,
        ctas_per_cluster: u32,
    ) -> Result<Option<Outcome>, SimError> {
        let before = self.stats.thread_instructions;
        let (t, s) = (&mut self.stats, run.stats);
        t.thread_instructions += s.thread_instructions;
        t.warp_instructions += s.warp_instructions;
        t.clusters += 1;
        t.ctas += ctas_per_cluster as u64;
        t.barrier_phases += s.barrier_phases;
        t.mbarrier_phases += s.mbarrier_phases;
        t.cluster_phases += s.cluster_phases;
        t.async_ops += s.async_ops;
        t.decisions += s.decisions;
        for mut w in s.warnings {
            if !t.warnings.iter().any(|x| same_site(x, &w)) {
                w.thread_instructions += before;
                t.warnings.push(w);
            }
        }
        match run.result {
            Ok(()) => Ok(None),
            Err(Stop::Finding(mut report)) => {
                report.schedule = self.schedule;
                report.thread_instructions = self.stats.thread_instructions;
                tracing::debug!(target: "phasegate::sim", kind = report.kind.code(), "finding");
                Ok(Some(Outcome::Finding(report)))
            }
            Err(Stop::Error(e)) => Err(e),
            Err(Stop::Abandon) => unreachable!("a speculative run is run again before it is added"),
        }
    }

    pub(crate) fn finish(mut self) -> Outcome {
        for w in &mut self.stats.warnings {
            w.schedule = self.schedule;
        }
        Outcome::Completed(self.stats)
    }
}

/// Whether two warnings are about one instruction (their first sites).
fn same_site(a: &Report, b: &Report) -> bool {
    match (a.sites.first(), b.sites.first()) {
        (Some(x), Some(y)) => {
            (x.line, &x.function, &x.instruction) == (y.line, &y.function, &y.instruction)
        }
        _ => false,
    }
}
