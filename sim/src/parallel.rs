//! Clusters in parallel, with the result of running them in order.
//!
//! A launch's semantics is sequential: cluster `c` runs on global memory as clusters `0..c`
//! left it, with its own scheduler (seeded from the schedule and `c`), and the launch's stats,
//! warnings and findings are the clusters' added in order (the first finding ends the launch).
//! Clusters never synchronise with each other on a GPU (nothing guarantees that two are
//! resident at once), so a kernel that is correct there is correct in that order; one whose
//! cluster waits for a later one spins, in the simulator, to the step limit.
//!
//! The parallel run reproduces that exactly, whatever the number of threads:
//! 1. a *wave* of clusters runs in parallel (rayon), each against a snapshot of global memory
//!    (the launch's memory at the wave's start) through a copy-on-write overlay that records,
//!    per byte, what the cluster wrote and what it read before writing it;
//! 2. the runs are committed in cluster order. A run is the sequential run when no byte it read
//!    was written by a cluster committed since the snapshot (it then read exactly what it
//!    would have read in order, so it did exactly the same), it did not look at the unfenced
//!    tensor maps after a predecessor in the wave changed them, and the launch's step budget
//!    was not spent before it ended. Such a run's writes are applied; any other run (cluster
//!    communication through global memory: tickets, flags, split-K semaphores and reductions)
//!    is discarded and the cluster runs again, in order, on the committed memory;
//! 3. a speculative run whose warp polls one global value without end gives up early
//!    ([`Stop::Abandon`]): it may wait for a flag a predecessor sets, which it cannot see.
//!
//! A launch whose clusters mostly communicate (a tile scheduler's ticket counter taken by
//! every cluster) would run each cluster twice; once more than half of a wave's clusters ran
//! again, the rest of the launch runs in order (the result is the same either way).
//!
//! Waves start small and grow ([`Waves`]): every wave ends with its slowest cluster while the
//! other threads wait, and commits in one thread, so short clusters lose to the waves' ends
//! (softmax over 8192 rows, a row a cluster, on a 16-core Xeon: 0.72 s in waves of 64, 0.61 s
//! in waves of 256). A wave that committed without a cluster
//! running again doubles the next (up to [`MAX_PER_THREAD`] clusters a thread, and up to
//! [`FOOTPRINT_BUDGET`] bytes of footprints, as the last wave's clusters measured them); one
//! with a cluster run again starts over at [`WAVE_PER_THREAD`], so that a launch whose
//! clusters communicate wastes little speculative work.
//!
//! Everything a run returns is a function of the memory it read, so the outcome, the buffers,
//! stats, warnings, findings (with their instruction counts and replay schedule) are those of
//! the sequential run, for 1 thread or 16. Only the time taken changes.

use super::cluster::{ClusterRun, Totals, run_cluster, run_rest_in_order};
use super::machine::{ClusterMem, LaunchMem, Shape, volume};
use super::overlay::{Footprint, GlobalMem, Overlay, PageMap};
use super::report::Stop;
use super::tma_state::TmaState;
use crate::decode::Program;
use crate::error::SimError;
use crate::launch::Launch;
use crate::outcome::Outcome;
use rayon::prelude::*;

/// Whether a launch of `clusters` clusters runs in parallel: more than one cluster and more
/// than one thread in the current rayon pool (`RAYON_NUM_THREADS`, or a pool the caller
/// installed). With one thread the clusters run in order with no overlay at all.
pub(crate) fn worthwhile(clusters: u64) -> bool {
    clusters > 1 && rayon::current_num_threads() > 1
}

/// Clusters per thread of the first wave: enough to even out clusters of different lengths,
/// few enough that the overlays of a wave stay small.
const WAVE_PER_THREAD: u64 = 4;

/// The most clusters per thread a wave grows to.
const MAX_PER_THREAD: u64 = 64;

/// The most bytes of footprints a wave grows to (what its clusters read and wrote, held until
/// they commit).
const FOOTPRINT_BUDGET: usize = 512 << 20;

/// The size of the next wave: doubled after a wave whose clusters all committed as they ran,
/// within [`MAX_PER_THREAD`] and [`FOOTPRINT_BUDGET`]; back to [`WAVE_PER_THREAD`] after one
/// with a cluster run again.
struct Waves {
    threads: u64,
    per_thread: u64,
}

impl Waves {
    fn new(threads: usize) -> Waves {
        Waves {
            threads: threads as u64,
            per_thread: WAVE_PER_THREAD,
        }
    }

    fn size(&self) -> u64 {
        self.per_thread * self.threads
    }

    /// The wave just committed had `again` clusters run again, of `clusters` whose footprints
    /// held `bytes`.
    fn after(&mut self, again: u64, clusters: u64, bytes: usize) {
        if again > 0 {
            self.per_thread = WAVE_PER_THREAD;
            return;
        }
        let per_cluster = (bytes as u64).div_ceil(clusters.max(1)).max(1);
        let affordable = FOOTPRINT_BUDGET as u64 / per_cluster / self.threads;
        self.per_thread = (self.per_thread * 2)
            .min(MAX_PER_THREAD)
            .min(affordable.max(WAVE_PER_THREAD));
    }
}

pub(crate) fn run_clusters(
    prog: &Program,
    shape: &Shape,
    mem: &mut LaunchMem,
    launch: &Launch,
) -> Result<Outcome, SimError> {
    let clusters = volume(shape.grid) / volume(shape.cluster);
    let mut waves = Waves::new(rayon::current_num_threads());
    let mut totals = Totals::new(launch.schedule);
    let mut start = 0;
    while start < clusters {
        let end = (start + waves.size()).min(clusters);
        let runs: Vec<(ClusterRun, Footprint)> = {
            let (global, params, unfenced) = (&mem.global, &mem.kernel_params[..], &mem.unfenced);
            (start..end)
                .into_par_iter()
                .map(|c| {
                    let cm = ClusterMem {
                        global: GlobalMem::Overlay(Box::new(Overlay::new(global, true))),
                        kernel_params: params,
                        tma: TmaState {
                            unfenced: unfenced.clone(),
                            ..Default::default()
                        },
                    };
                    let (run, view) = run_cluster(prog, shape, launch, c as u32, cm, 0, None, None);
                    (run, footprint(view))
                })
                .collect()
        };
        // Bytes written by the clusters committed since the wave's snapshot.
        let mut dirty = PageMap::default();
        let mut unfenced_changed = false;
        let mut again = 0;
        let mut bytes = 0;
        for (i, (run, fp)) in runs.into_iter().enumerate() {
            let c = (start + i as u64) as u32;
            let before = totals.stats.thread_instructions;
            let gave_up = matches!(run.result, Err(Stop::Abandon));
            let stale_maps = run.tma.map_reads && unfenced_changed;
            let over_budget = before + run.stats.thread_instructions > launch.max_steps;
            let exact = !(gave_up || stale_maps || over_budget || fp.reads_any(&dirty));
            let (run, fp) = if exact {
                for op in &run.tma.log {
                    op.apply(&mut mem.unfenced);
                }
                (run, fp)
            } else {
                tracing::debug!(target: "phasegate::sim", cluster = c, "runs again in order");
                again += 1;
                let cm = ClusterMem {
                    global: GlobalMem::Overlay(Box::new(Overlay::new(&mem.global, false))),
                    kernel_params: &mem.kernel_params,
                    tma: TmaState {
                        unfenced: mem.unfenced.clone(),
                        ..Default::default()
                    },
                };
                let (mut run, view) = run_cluster(prog, shape, launch, c, cm, before, None, None);
                let fp = footprint(view);
                mem.unfenced = std::mem::take(&mut run.tma.unfenced);
                (run, fp)
            };
            unfenced_changed |= !run.tma.log.is_empty();
            bytes += fp.bytes();
            fp.commit(&mut mem.global, &mut dirty);
            if let Some(outcome) = totals.add(run, shape.ctas_per_cluster)? {
                return Ok(outcome);
            }
        }
        if 2 * again > end - start && end < clusters {
            return run_rest_in_order(prog, shape, mem, launch, None, totals, end as u32);
        }
        waves.after(again, end - start, bytes);
        start = end;
    }
    Ok(totals.finish())
}

fn footprint(view: GlobalMem<'_>) -> Footprint {
    match view {
        GlobalMem::Overlay(o) => o.finish(),
        GlobalMem::Direct(_) | GlobalMem::Open(_) => Footprint::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waves_double_within_their_bounds_and_start_over_after_a_cluster_ran_again() {
        let mut w = Waves::new(4);
        assert_eq!(w.size(), 16);
        w.after(0, 16, 16 << 10);
        assert_eq!(w.size(), 32);
        for _ in 0..10 {
            w.after(0, w.size(), (w.size() as usize) << 10);
        }
        assert_eq!(
            w.size(),
            MAX_PER_THREAD * 4,
            "at most MAX_PER_THREAD a thread"
        );
        w.after(1, w.size(), 0);
        assert_eq!(
            w.size(),
            16,
            "a cluster that ran again starts the waves over"
        );
        // Clusters of 64 MiB of footprint each: 512 MiB hold 8, 2 a thread; the wave stays at
        // the first wave's size rather than shrinking below it.
        w.after(0, 16, 16 * (64 << 20));
        assert_eq!(w.size(), 16);
        // 8 MiB each: 64 fit, 16 a thread, reached by doubling.
        w.after(0, 16, 16 * (8 << 20));
        assert_eq!(w.size(), 32);
        w.after(0, 32, 32 * (8 << 20));
        assert_eq!(w.size(), 64);
        w.after(0, 64, 64 * (8 << 20));
        assert_eq!(w.size(), 64, "the budget holds the wave at 16 a thread");
    }
}
