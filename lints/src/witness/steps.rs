//! A witness run told as numbered steps: the barrier events that lead to the broken rule, on
//! the objects the rule is about, and the event that breaks it.
//!
//! The log of a run holds every barrier event; a witness keeps the ones about the barrier
//! objects of the finding (the object of each site of the report, the objects the threads of a
//! deadlock wait on), merges the same event of several warps into one step (`warps 1-4`), and
//! keeps the first events and the last ones when there are many, so that a person can follow
//! the phases that matter.

use crate::diagnostic::WitnessStep;
use phasegate_ptx::{Module, Span, StmtId};
use phasegate_sim::Report;
use phasegate_sim::probe::{Blocked, Kernel, LogEvent, LogKind, Object};
use std::collections::HashMap;

/// Most steps before the violation that a witness shows: the first few and the last ones.
const HEAD: usize = 4;
const TAIL: usize = 14;

/// The steps of a run that stopped on `report`.
pub fn steps(
    module: &Module,
    kernel: &Kernel,
    report: &Report,
    log: &[LogEvent],
    blocked: &[Blocked],
    warps_per_cta: u32,
    clustered: bool,
) -> Vec<WitnessStep> {
    let objects = involved(kernel, report, log, blocked, warps_per_cta);
    // Occurrences of each (warp, op) so far: the iteration a step is in.
    let mut times: HashMap<(u32, u32), u32> = HashMap::new();
    let mut picked: Vec<(usize, u32)> = Vec::new();
    for (i, e) in log.iter().enumerate() {
        let n = times.entry((e.warp, e.pc)).or_insert(0);
        *n += 1;
        let relevant = match e.object {
            Some(o) => objects.contains(&o),
            None => e.kind == LogKind::Exit && objects.is_empty(),
        };
        if relevant {
            picked.push((i, *n));
        }
    }
    // Merge the same event of consecutive warps.
    let mut merged: Vec<(Vec<usize>, u32)> = Vec::new();
    for (i, n) in picked {
        let e = &log[i];
        if let Some((group, _)) = merged.last_mut() {
            let f = &log[group[0]];
            if f.pc == e.pc
                && f.kind == e.kind
                && f.object == e.object
                && e.kind != LogKind::Phase
                && !group.iter().any(|&g| log[g].warp == e.warp)
            {
                group.push(i);
                continue;
            }
        }
        merged.push((vec![i], n));
    }
    let mut out = Vec::new();
    let total = merged.len();
    for (k, (group, n)) in merged.iter().enumerate() {
        if total > HEAD + TAIL && k == HEAD {
            out.push(WitnessStep {
                number: 0,
                stmt: StmtId(0),
                function: String::new(),
                span: Span::NONE,
                source: None,
                who: String::new(),
                event: format!("… {} more events …", total - HEAD - TAIL),
            });
        }
        if total > HEAD + TAIL && k >= HEAD && k < total - TAIL {
            continue;
        }
        let first = &log[group[0]];
        let warps: Vec<(u32, u32)> = group.iter().map(|&g| (log[g].warp, log[g].lanes)).collect();
        let mut event = log[*group.last().expect("a group")].text.clone();
        if *n > 1 {
            event = format!("(time {n} here) {event}");
        }
        out.push(WitnessStep {
            number: k + 1,
            ..step(
                module,
                kernel,
                first.pc,
                who(&warps, warps_per_cta, clustered),
                event,
            )
        });
    }
    // The event that breaks the rule: the report's first site.
    if let Some(site) = report.sites.first() {
        let loc = site.stmt.map(|s| (site.function.clone(), s));
        let (stmt, function) = match loc {
            Some((f, s)) => (s, f),
            None => (StmtId(0), site.function.clone()),
        };
        let span = module
            .function(&function)
            .and_then(|f| f.body.as_ref())
            .filter(|b| stmt.index() < b.len())
            .map(|b| b.span(stmt))
            .unwrap_or(Span::NONE);
        let threads = who(
            &[(site.cta_rank * warps_per_cta + site.warp, site.lanes)],
            warps_per_cta,
            clustered,
        );
        out.push(WitnessStep {
            number: total + 1,
            stmt,
            function,
            span,
            source: None,
            who: threads,
            event: format!("{} ({}): {}", site.what, report.spec, report.message),
        });
    }
    out
}

/// The barrier objects a finding is about: the objects the threads of a deadlock wait on, and
/// the object of the last event at each site of the report.
fn involved(
    kernel: &Kernel,
    report: &Report,
    log: &[LogEvent],
    blocked: &[Blocked],
    warps_per_cta: u32,
) -> Vec<Object> {
    let mut out: Vec<Object> = Vec::new();
    let mut add = |o: Option<Object>| {
        if let Some(o) = o
            && !out.contains(&o)
        {
            out.push(o);
        }
    };
    add(report.object);
    for b in blocked {
        add(b.on);
    }
    for site in &report.sites {
        let flat = site.cta_rank * warps_per_cta + site.warp;
        let of_warp =
            |e: &&LogEvent| e.warp == flat && e.lanes & site.lanes != 0 && e.object.is_some();
        // The barrier event at the site's statement; for a site that is no barrier event (an
        // access of a race), the warp's last barrier event before it: what ordered it, or
        // failed to.
        let at_site = log
            .iter()
            .rev()
            .filter(of_warp)
            .find(|e| kernel.location(e.pc).stmt == site.stmt)
            .or_else(|| log.iter().rev().find(of_warp));
        add(at_site.and_then(|e| e.object));
    }
    // The last wait that let the thread breaking the rule go on: why it got there (a wait
    // whose parity named a phase long complete, a wait on the wrong object).
    if let Some(site) = report.sites.first() {
        let flat = site.cta_rank * warps_per_cta + site.warp;
        add(log
            .iter()
            .rev()
            .find(|e| e.warp == flat && e.lanes & site.lanes != 0 && e.kind == LogKind::WaitDone)
            .and_then(|e| e.object));
    }
    out
}

/// One step at op `pc`.
fn step(module: &Module, kernel: &Kernel, pc: u32, who: String, event: String) -> WitnessStep {
    let loc = kernel.location(pc);
    let stmt = loc.stmt.unwrap_or(StmtId(0));
    let span = module
        .function(loc.function)
        .and_then(|f| f.body.as_ref())
        .filter(|b| stmt.index() < b.len() && loc.stmt.is_some())
        .map(|b| b.span(stmt))
        .unwrap_or(Span::NONE);
    WitnessStep {
        number: 0,
        stmt,
        function: loc.function.to_string(),
        span,
        source: None,
        who,
        event,
    }
}

/// `thread 0 (warp 0)`, `warp 1`, `warps 1-4`, with the CTA rank in a cluster.
pub fn who(warps: &[(u32, u32)], warps_per_cta: u32, clustered: bool) -> String {
    let mut by_cta: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
    for &(w, lanes) in warps {
        let (rank, warp) = (w / warps_per_cta.max(1), w % warps_per_cta.max(1));
        match by_cta.iter_mut().find(|(r, _)| *r == rank) {
            Some((_, v)) => v.push((warp, lanes)),
            None => by_cta.push((rank, vec![(warp, lanes)])),
        }
    }
    by_cta
        .iter()
        .map(|(rank, ws)| {
            let prefix = if clustered {
                format!("CTA rank {rank} ")
            } else {
                String::new()
            };
            if ws.len() == 1 {
                return format!("{prefix}{}", lanes_of(ws[0].0, ws[0].1));
            }
            let mut idx: Vec<u32> = ws.iter().map(|w| w.0).collect();
            idx.sort_unstable();
            let full = ws.iter().all(|w| w.1 == u32::MAX);
            let lanes = if full {
                String::new()
            } else {
                format!(" (lanes {})", lane_list(ws[0].1))
            };
            format!("{prefix}warps {}{lanes}", ranges(&idx))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `thread 32 (warp 1, lane 0)`, `warp 1`, `warp 1 (lanes 0-15)`.
fn lanes_of(warp: u32, lanes: u32) -> String {
    match lanes.count_ones() {
        32 => format!("warp {warp}"),
        1 => {
            let lane = lanes.trailing_zeros();
            format!("thread {} (warp {warp}, lane {lane})", warp * 32 + lane)
        }
        _ => format!("warp {warp} (lanes {})", lane_list(lanes)),
    }
}

fn lane_list(mask: u32) -> String {
    let idx: Vec<u32> = (0..32).filter(|l| mask >> l & 1 == 1).collect();
    ranges(&idx)
}

/// `1-4, 7`.
fn ranges(sorted: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    out.join(", ")
}
