//! A short textual summary of a run's barrier activity.

use super::{EventKind, Trace};
use std::collections::BTreeMap;
use std::fmt::Write;

impl Trace {
    /// Barrier operations and phase completions by barrier, warp occupancy, copies.
    pub fn summary(&self) -> String {
        let end = self.end_time().max(1);
        let mut out = String::new();
        let warps = self
            .tracks
            .iter()
            .filter(|t| t.name.contains(" warp "))
            .count();
        let _ = writeln!(out, "timeline: {end} simulated cycles, {warps} warps");
        let mut ops: BTreeMap<&str, usize> = BTreeMap::new();
        let mut phases: BTreeMap<String, usize> = BTreeMap::new();
        let mut copies = 0usize;
        let mut copy_time = 0u64;
        let mut busy = vec![0u64; self.tracks.len()];
        let mut waits: BTreeMap<&str, (usize, u64)> = BTreeMap::new();
        for e in &self.events {
            match e.kind {
                EventKind::Barrier => *ops.entry(e.label.as_str()).or_default() += 1,
                EventKind::Phase => {
                    *phases
                        .entry(format!("{}: {}", self.tracks[e.track].name, e.label))
                        .or_default() += 1
                }
                EventKind::Copy => {
                    copies += 1;
                    copy_time += e.end - e.start;
                }
                EventKind::Run => busy[e.track] += e.end - e.start,
                EventKind::Wait => {
                    let w = waits.entry(e.label.as_str()).or_default();
                    w.0 += 1;
                    w.1 += e.end - e.start;
                }
            }
        }
        let _ = writeln!(out, "barrier operations (by instruction):");
        if ops.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for (label, n) in &ops {
            let _ = writeln!(out, "  {n:>8}  {label}");
        }
        let _ = writeln!(out, "phase completions:");
        if phases.is_empty() {
            let _ = writeln!(out, "  none");
        }
        for (label, n) in &phases {
            let _ = writeln!(out, "  {n:>8}  {label}");
        }
        if !waits.is_empty() {
            let _ = writeln!(out, "waits (count, total cycles):");
            let mut rows: Vec<_> = waits.into_iter().collect();
            rows.sort_by_key(|(_, (_, t))| std::cmp::Reverse(*t));
            for (label, (n, t)) in rows.iter().take(12) {
                let _ = writeln!(out, "  {n:>8}  {t:>10}  {label}");
            }
        }
        if copies > 0 {
            let _ = writeln!(
                out,
                "async operations: {copies} (mean {} cycles from issue to completion)",
                copy_time / copies as u64
            );
        }
        let mut rows: Vec<(usize, u64)> = busy
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, _)| self.tracks[*i].name.contains(" warp "))
            .collect();
        rows.sort_by_key(|r| std::cmp::Reverse(r.1));
        let _ = writeln!(out, "busiest warps (share of the timeline spent running):");
        for (i, b) in rows.iter().take(8) {
            let _ = writeln!(
                out,
                "  {:>5.1}%  {}",
                *b as f64 * 100.0 / end as f64,
                self.tracks[*i].name
            );
        }
        out
    }
}
