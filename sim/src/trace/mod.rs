//! Observability: `tracing` events per barrier operation, and a recorded timeline of the run
//! (warp time slices, barrier operations, phase completions, asynchronous copies) that
//! exports to Chrome trace JSON ([`Trace::chrome_json`], opens in Perfetto), an SVG picture
//! ([`Trace::svg`]) and a textual summary ([`Trace::summary`]).
//!
//! The timeline is data only; the machine records into it (`exec::timeline`).
//!
//! Time is simulated: each warp has a clock that counts its issued instructions and jumps
//! forward to the completion time of whatever it waited for.

mod chrome;
mod summary;
mod svg;

/// One row of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Track {
    /// `cta (0,0,0) warp 1`, `cta (0,0,0) barriers`, `async copies`.
    pub name: String,
    /// Grouping for viewers: the CTA's `%ctaid` (or the cluster) the track belongs to.
    pub group: String,
}

/// What an [`Event`] records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A warp ran instructions.
    Run,
    /// A barrier operation by a warp (instant).
    Barrier,
    /// A barrier phase completed (instant).
    Phase,
    /// Threads of a warp waited (at a barrier, an mbarrier, for async groups).
    Wait,
    /// An asynchronous copy, from issue to completion.
    Copy,
}

/// One slice or instant of the timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Index into [`Trace::tracks`] of the row it is on.
    pub track: usize,
    /// Simulated time it starts at.
    pub start: u64,
    /// Simulated time it ends at (`start` for an instant).
    pub end: u64,
    /// What it records.
    pub kind: EventKind,
    /// What viewers show: the operation, the barrier waited for and its PTX line, the copy.
    pub label: String,
}

/// The recorded timeline of a run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The rows: per CTA of each cluster, one per warp and one for its barriers; per cluster,
    /// one for the cluster barrier and one for async copies.
    pub tracks: Vec<Track>,
    /// Every event, in the order recorded.
    pub events: Vec<Event>,
    /// Start time of the cluster in flight (clusters run one after another).
    pub(crate) base: u64,
    /// Track of each warp of the cluster in flight, then of each CTA's barrier row.
    pub(crate) warp_tracks: Vec<usize>,
    /// Per warp of the cluster in flight: its last run event, to extend contiguous slices.
    pub(crate) last_run: Vec<usize>,
    pub(crate) cta_tracks: Vec<usize>,
    pub(crate) cluster_track: usize,
    pub(crate) async_track: usize,
}

impl Trace {
    pub(crate) fn track(&mut self, name: String, group: String) -> usize {
        self.tracks.push(Track { name, group });
        self.tracks.len() - 1
    }

    /// The end of the last event.
    pub fn end_time(&self) -> u64 {
        self.events.iter().map(|e| e.end).max().unwrap_or(0)
    }
}
