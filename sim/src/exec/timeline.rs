//! The machine's side of the timeline (`trace`): `tracing` events and the recorded
//! tracks, slices, barrier operations, phase completions and waits of the cluster in flight.

use crate::async_copy::AsyncKind;
use crate::machine::Machine;
use crate::state::Block;
use crate::trace::{Event, EventKind};

impl Machine<'_> {
    /// Creates the tracks of the cluster in flight.
    pub(crate) fn trace_start_cluster(&mut self) {
        let _span = tracing::debug_span!("cluster", index = self.cluster_index).entered();
        tracing::debug!(target: "phasegate::sim", ctas = self.ctas.len(), warps = self.warps.len(), "cluster starts");
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        trace.base = trace.end_time();
        trace.warp_tracks.clear();
        trace.last_run = vec![usize::MAX; self.warps.len()];
        trace.cta_tracks.clear();
        for warp in &self.warps {
            let ctaid = self.ctas[warp.cta as usize].ctaid;
            let t = trace.track(
                format!("cta {ctaid:?} warp {}", warp.index),
                format!("cta {ctaid:?}"),
            );
            trace.warp_tracks.push(t);
        }
        for cta in &self.ctas {
            let t = trace.track(
                format!("cta {:?} barriers", cta.ctaid),
                format!("cta {:?}", cta.ctaid),
            );
            trace.cta_tracks.push(t);
        }
        let first = self.ctas[0].ctaid;
        trace.cluster_track = trace.track(
            format!("cluster of cta {first:?}"),
            format!("cluster {}", self.cluster_index),
        );
        trace.async_track = trace.track(
            format!("async copies (cluster {})", self.cluster_index),
            format!("cluster {}", self.cluster_index),
        );
    }

    pub(crate) fn trace_slice(&mut self, w: usize, start: u64) {
        let end = self.warps[w].clock;
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        if end > start {
            let track = trace.warp_tracks[w];
            let base = trace.base;
            // Merge with the previous slice of the same warp when contiguous.
            if let Some(last) = trace.events.get_mut(trace.last_run[w])
                && last.end == base + start
            {
                last.end = base + end;
                return;
            }
            trace.last_run[w] = trace.events.len();
            trace.events.push(Event {
                track,
                start: base + start,
                end: base + end,
                kind: EventKind::Run,
                label: "run".into(),
            });
        }
    }

    /// Whether barrier operations are recorded: a timeline is kept, or a `tracing` subscriber
    /// wants them.
    pub(crate) fn tracing(&self) -> bool {
        self.trace.is_some() || tracing::enabled!(target: "phasegate::sim", tracing::Level::TRACE)
    }

    /// Records barrier operation `what` (made only when a trace or a `tracing` subscriber
    /// wants it: barrier operations are frequent).
    pub(crate) fn trace_barrier(
        &mut self,
        w: usize,
        cta: u32,
        what: impl FnOnce() -> String,
        _blocks: bool,
    ) {
        if !self.tracing() {
            return;
        }
        let what = what();
        tracing::trace!(target: "phasegate::sim", cta, warp = self.warps[w].index, op = what, "barrier operation");
        let at = self.warps[w].clock;
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        let track = trace.warp_tracks[w];
        trace.events.push(Event {
            track,
            start: trace.base + at,
            end: trace.base + at,
            kind: EventKind::Barrier,
            label: what,
        });
    }

    /// A phase of a barrier of CTA `cta` (or the cluster barrier, `cta == u32::MAX`) completed.
    pub(crate) fn trace_phase(&mut self, cta: u32, what: &str, at: u64) {
        tracing::trace!(target: "phasegate::sim", cta, barrier = what, "phase completes");
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        let track = if cta == u32::MAX {
            trace.cluster_track
        } else {
            trace.cta_tracks[cta as usize]
        };
        trace.events.push(Event {
            track,
            start: trace.base + at,
            end: trace.base + at,
            kind: EventKind::Phase,
            label: format!("{what} completes a phase"),
        });
    }

    pub(crate) fn trace_async(&mut self, _warp: u32, issued: u64, done: u64, kind: &AsyncKind) {
        tracing::trace!(target: "phasegate::sim", issued, done, "async operation completes");
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        let label = match kind {
            AsyncKind::BulkLoad { bytes, .. } => format!("cp.async.bulk load {bytes} B"),
            AsyncKind::BulkStore { bytes, .. } => format!("cp.async.bulk store {bytes} B"),
            AsyncKind::CpAsync { bytes, .. } => format!("cp.async {bytes} B"),
            AsyncKind::MbarArrive { .. } => "cp.async.mbarrier.arrive".to_string(),
            AsyncKind::Unknown { .. } => "tensor copy (box unknown)".to_string(),
            AsyncKind::Tensor(t) => format!(
                "cp{}.async.bulk.tensor.{}d {} {} B",
                if t.reduce.is_some() { ".reduce" } else { "" },
                t.map.rank,
                if t.mbar.is_some() { "load" } else { "store" },
                t.map.box_bytes()
            ),
        };
        let track = trace.async_track;
        trace.events.push(Event {
            track,
            start: trace.base + issued,
            end: trace.base + done.max(issued),
            kind: EventKind::Copy,
            label,
        });
    }
}

impl Machine<'_> {
    /// Wakes blocked lanes of warp `w` at simulated time `at`, recording their wait.
    pub(crate) fn wake_lanes(&mut self, w: usize, mask: u32, at: u64) {
        let warp = &mut self.warps[w];
        let mask = mask & warp.blocked;
        if mask == 0 {
            return;
        }
        let lane = mask.trailing_zeros() as usize;
        let (since, why, pc) = (warp.wait_since[lane], warp.why[lane], warp.wait_pc[lane]);
        warp.clock = warp.clock.max(at);
        warp.wake(mask);
        let end = self.warps[w].clock;
        if self.trace.is_none() || end <= since {
            return;
        }
        let label = match why {
            Block::Named { id } => format!("wait bar {id}"),
            Block::Cluster => "wait barrier.cluster".to_string(),
            Block::Parked { cta, offset } => {
                format!("wait {}", self.mbar_name(cta, offset))
            }
            Block::AsyncWait => "wait_group".to_string(),
            Block::Warpgroup => "wgmma.wait_group for the warpgroup".to_string(),
            Block::Gather => "wait for the warp".to_string(),
            Block::None => "wait".to_string(),
        };
        let label = format!("{label} (line {})", self.prog.sites[pc as usize].line);
        let Some(trace) = self.trace.as_deref_mut() else {
            return;
        };
        let track = trace.warp_tracks[w];
        trace.events.push(Event {
            track,
            start: trace.base + since,
            end: trace.base + end,
            kind: EventKind::Wait,
            label,
        });
    }
}
