//! Execution: the scheduling loop of a cluster, a warp's time slice, and control flow.
//!
//! Threads have their own program counters (independent thread scheduling). A warp runs the
//! group of its ready threads with the lowest program counter, lock-step, until that group
//! branches apart, blocks, or reaches the program counter of another group (which then joins
//! it): the reconvergence a GPU's convergence optimiser achieves for structured code.
//!
//! The instruction families are methods of `Machine`, one file each, which this file's loop
//! calls. Imports run one way: `map` (lane loops) under `half`, under `float`, under `alu`;
//! `fast` under `mem`, under `asyncs`, `sync`, `tensor` and `tma`; `sites` under `mbar`; `step`
//! (what an op did to its group) under `sync`, `tensor`, `tma` and this file.

mod alu;
mod asyncs;
mod barrier;
mod collective;
mod fast;
mod float;
pub(crate) mod half;
mod mac;
mod map;
mod mbar;
mod mem;
mod sites;
mod step;
mod sync;
pub(crate) mod tensor;
mod timeline;
mod tma;

use super::decode::{Kind, Op};
use super::error::SimError;
use super::machine::Machine;
use super::report::{FindingKind, Report};
use super::sched::{Action, Scheduler};
use super::state::{Block, Res, lanes};
use step::Step;

/// How a group's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Pick the warp's next group (divergence, exit, another group first).
    Continue,
    /// End the time slice (quantum used, or a scheduling point).
    Yield,
}

impl Machine<'_> {
    /// Runs the cluster to completion (or to a finding).
    pub(crate) fn run(&mut self, sched: &mut Scheduler) -> Res<()> {
        sched.start_cluster(self.warps.len());
        let mut ready = Vec::with_capacity(self.warps.len());
        let mut completable = Vec::new();
        loop {
            if self.gathering > 0 {
                for w in 0..self.warps.len() {
                    self.reconcile_gather(w)?;
                }
            }
            ready.clear();
            ready.extend((0..self.warps.len()).filter(|&w| self.warps[w].ready != 0));
            let looked_at = sched.asyncs_looked_at(!ready.is_empty());
            self.asyncs.completable_into(&mut completable, looked_at);
            if ready.is_empty() && completable.is_empty() && self.asyncs.any_held() {
                // Copies of unknown size complete when nothing else can happen (see
                // `AsyncOp::ready`).
                self.asyncs.release_all();
                self.asyncs.completable_into(&mut completable, looked_at);
            }
            if ready.is_empty() && completable.is_empty() {
                if self.cluster_live() == 0 {
                    return Ok(());
                }
                return Err(self.deadlock_report().into());
            }
            match sched.next(&ready, &completable).expect("something to do") {
                Action::Warp(w, quantum) => {
                    self.run_slice(w, quantum)?;
                    self.reconcile_gather(w)?;
                }
                Action::Async(i) => {
                    let id = completable[i];
                    sched.retire_async(id);
                    self.complete_async(id)?;
                }
            }
            self.stats.decisions += 1;
            if self.steps_before + self.stats.thread_instructions > self.max_steps {
                return Err(self.step_limit_report().into());
            }
        }
    }

    fn run_slice(&mut self, w: usize, quantum: u32) -> Res<()> {
        let warp = &self.warps[w];
        let _span = tracing::trace_span!("warp", cta = ?self.ctas[warp.cta as usize].ctaid, warp = warp.index).entered();
        let mut budget = quantum.max(1);
        let start = self.warps[w].clock;
        let mut end = End::Continue;
        while budget > 0 && self.warps[w].ready != 0 && end == End::Continue {
            let (pc, mask, next) = pick_group(&self.warps[w]);
            end = self.run_group(w, pc, mask, next, &mut budget)?;
        }
        self.trace_slice(w, start);
        Ok(())
    }

    /// Runs the group `mask` of warp `w` from `pc`; `next` is the lowest program counter of
    /// the warp's other ready threads.
    fn run_group(
        &mut self,
        w: usize,
        mut pc: u32,
        mut mask: u32,
        mut next: u32,
        budget: &mut u32,
    ) -> Res<End> {
        let prog = self.prog;
        loop {
            if pc >= next {
                if pc > next {
                    self.writeback(w, mask, pc);
                    return Ok(End::Continue);
                }
                let warp = &self.warps[w];
                let joining = lanes(warp.ready & !mask)
                    .filter(|&l| warp.pc[l] == pc)
                    .fold(0u32, |m, l| m | 1 << l);
                mask |= joining;
                next = lanes(warp.ready & !mask)
                    .map(|l| warp.pc[l])
                    .min()
                    .unwrap_or(u32::MAX);
            }
            let op: &Op = &prog.ops[pc as usize];
            let eff = match op.guard {
                None => mask,
                Some(g) => {
                    let regs = &self.warps[w].regs;
                    let row = &regs[g.reg as usize * 32..g.reg as usize * 32 + 32];
                    lanes(mask)
                        .filter(|&l| (row[l] != 0) != g.negated)
                        .fold(0u32, |m, l| m | 1 << l)
                }
            };
            if self.tensor.active && eff != 0 {
                self.wgmma_access(w, eff, pc)?;
            }
            let warp = &mut self.warps[w];
            warp.clock += 1;
            warp.ran[pc as usize / 64] |= 1 << (pc % 64);
            self.stats.warp_instructions += 1;
            self.stats.thread_instructions += mask.count_ones() as u64;
            *budget = budget.saturating_sub(1);
            // Register arithmetic, or an op no lane executes (predicated off).
            let done = if eff != 0 {
                alu::exec(&mut warp.regs, eff, &op.kind, prog.carry as usize)
            } else {
                !matches!(op.kind, Kind::Bra { .. })
            };
            if done {
                pc += 1;
            } else {
                match &op.kind {
                    Kind::Bra { target } => {
                        if eff == mask {
                            pc = *target;
                        } else if eff != 0 {
                            self.writeback(w, eff, *target);
                            self.writeback(w, mask & !eff, pc + 1);
                            return Ok(End::Continue);
                        } else {
                            pc += 1;
                        }
                    }
                    Kind::Exit => {
                        self.writeback(w, eff, pc);
                        self.exit_lanes(w, eff)?;
                        mask &= !eff;
                        if mask == 0 {
                            return Ok(End::Continue);
                        }
                        pc += 1;
                    }
                    Kind::Ret => {
                        self.writeback(w, mask & !eff, pc + 1);
                        self.ret(w, eff, pc)?;
                        return Ok(End::Continue);
                    }
                    Kind::Call {
                        entry,
                        args,
                        ret: _,
                    } => {
                        let warp = &mut self.warps[w];
                        let fb = prog.frame_bytes as usize;
                        for lane in lanes(eff) {
                            warp.calls[lane].push(pc);
                            let frame = &mut warp.frames[lane * fb..(lane + 1) * fb];
                            for c in args {
                                frame.copy_within(
                                    c.from as usize..(c.from + c.bytes) as usize,
                                    c.to as usize,
                                );
                            }
                        }
                        if eff == mask {
                            pc = *entry;
                        } else {
                            self.writeback(w, eff, *entry);
                            self.writeback(w, mask & !eff, pc + 1);
                            return Ok(End::Continue);
                        }
                    }
                    Kind::Trap => {
                        return Err(Report::new(
                            FindingKind::Trap,
                            "§9.7.19.1",
                            "the kernel executed trap",
                        )
                        .site(self.site(w, eff, pc, "traps"))
                        .into());
                    }
                    Kind::Unsupported(why) => {
                        let site = &prog.sites[pc as usize];
                        return Err(SimError::Unsupported {
                            function: prog.funcs[site.func as usize].name.clone(),
                            line: site.line,
                            instruction: site.text.to_string(),
                            reason: why.to_string(),
                        }
                        .into());
                    }
                    kind => {
                        if let Some(required) = self.gather_required(w, kind, mask) {
                            if required & !mask != 0 {
                                self.writeback(w, mask, pc);
                                self.warps[w].block(mask, Block::Gather, pc, pc);
                                self.gathering += mask.count_ones();
                                return Ok(End::Yield);
                            }
                            if eff != mask && kind.is_aligned_collective() {
                                return Err(self.divergence_report(
                                    w,
                                    eff,
                                    pc,
                                    mask & !eff,
                                    Some("skip it (guard false)"),
                                ));
                            }
                        }
                        match self.exec_other(w, eff, pc, kind)? {
                            Step::Next => pc += 1,
                            Step::Yield(blocked) => {
                                self.writeback(w, mask & !blocked, pc + 1);
                                return Ok(End::Yield);
                            }
                        }
                    }
                }
            }
            if *budget == 0 {
                self.writeback(w, mask, pc);
                return Ok(End::Yield);
            }
        }
    }

    fn writeback(&mut self, w: usize, mask: u32, pc: u32) {
        let warp = &mut self.warps[w];
        for lane in lanes(mask) {
            warp.pc[lane] = pc;
        }
    }

    /// `ret`: back to the caller (copying the return parameter), or exit from the entry.
    fn ret(&mut self, w: usize, eff: u32, pc: u32) -> Res<()> {
        let prog = self.prog;
        let fb = prog.frame_bytes as usize;
        let mut exiting = 0u32;
        for lane in lanes(eff) {
            let warp = &mut self.warps[w];
            match warp.calls[lane].pop() {
                None => {
                    exiting |= 1 << lane;
                    warp.pc[lane] = pc;
                }
                Some(call_pc) => {
                    if let Kind::Call { ret: Some(c), .. } = &prog.ops[call_pc as usize].kind {
                        let frame = &mut warp.frames[lane * fb..(lane + 1) * fb];
                        frame.copy_within(
                            c.from as usize..(c.from + c.bytes) as usize,
                            c.to as usize,
                        );
                    }
                    warp.pc[lane] = call_pc + 1;
                }
            }
        }
        if exiting != 0 {
            self.exit_lanes(w, exiting)?;
        }
        Ok(())
    }

    /// Threads exit: barriers that wait for all non-exited threads may complete now.
    pub(crate) fn exit_lanes(&mut self, w: usize, mask: u32) -> Res<()> {
        let mask = mask & !self.warps[w].exited;
        if mask != 0 {
            let pc = self.warps[w].pc[mask.trailing_zeros() as usize];
            self.log_event(
                w,
                mask,
                pc,
                None,
                crate::event_log::LogKind::Exit,
                None,
                || "exit".into(),
            );
        }
        let warp = &mut self.warps[w];
        for lane in lanes(mask) {
            warp.exit_seen[lane] = warp.aligned_seen[lane];
            warp.exit_pc[lane] = warp.pc[lane];
        }
        warp.exited |= mask;
        warp.ready &= !mask;
        warp.effects += 1;
        let arrived_now = mask & warp.cluster_arrived;
        let cluster_phase = self.cluster.phase;
        let counted = lanes(arrived_now)
            .filter(|&l| warp.cluster_phase[l] == cluster_phase)
            .count() as u32;
        warp.cluster_arrived &= !mask;
        self.cluster.arrived -= counted;
        let cta = warp.cta as usize;
        self.ctas[cta].live -= mask.count_ones();
        for id in 0..16 {
            self.check_named_completion(cta, id)?;
        }
        self.check_cluster_completion();
        Ok(())
    }

    /// `eff`, part of warp `w` and all at one count of aligned barriers, executes the aligned
    /// barrier at `pc`: lanes of the warp that exited at that count left without it. That is
    /// allowed (exited threads take no part) but almost always a bug, and on a GPU the lanes
    /// that go on can reach the barrier before the others exit, a divergent warp at an aligned
    /// barrier (compute-sanitizer's synccheck reports it): a warning, once per barrier, as
    /// `phasegate lint`'s `divergent_exit_before_barrier`.
    pub(crate) fn note_aligned(&mut self, w: usize, eff: u32, pc: u32) {
        let warp = &self.warps[w];
        let Some(first) = lanes(eff).next() else {
            return;
        };
        let seen = warp.aligned_seen[first];
        let skipped = lanes(warp.exited & warp.lanes & !eff)
            .filter(|&l| warp.exit_seen[l] == seen)
            .fold(0u32, |m, l| m | 1 << l);
        // The site (its text built) only for a warning.
        let here = (skipped != 0).then(|| self.site(w, eff, pc, "execute it"));
        let same = |r: &Report, here: &crate::report::Site| {
            r.sites.first().is_some_and(|s| {
                (s.line, &s.function, &s.instruction)
                    == (here.line, &here.function, &here.instruction)
            })
        };
        if let Some(here) = here
            && !self.stats.warnings.iter().any(|r| same(r, &here))
        {
            let (spec, name) = match &self.prog.ops[pc as usize].kind {
                Kind::Bar { .. } => ("§9.7.13.1", "an aligned barrier"),
                _ => ("§9.7.13.3", "an aligned cluster barrier"),
            };
            let mut r = Report::new(
                FindingKind::DivergentExitBeforeBarrier,
                spec,
                format!("threads exit without {name} that the rest of their warp executes"),
            )
            .site(here);
            let mut groups: Vec<(u32, u32)> = Vec::new();
            for l in lanes(skipped) {
                let at = warp.exit_pc[l];
                match groups.iter_mut().find(|g| g.0 == at) {
                    Some(g) => g.1 |= 1 << l,
                    None => groups.push((at, 1 << l)),
                }
            }
            for (at, m) in groups {
                r = r.site(self.site(w, m, at, "exited without it"));
            }
            r = r.note("exited threads take no part in a barrier, but the warp diverged before it: on a GPU the lanes that go on may reach it while the others have not exited yet, and the warp executes an aligned barrier divergently");
            r.thread_instructions = self.stats.thread_instructions;
            self.stats.warnings.push(r);
        }
        for lane in lanes(eff) {
            self.warps[w].aligned_seen[lane] += 1;
        }
    }

    /// The lanes that must execute `kind` together, if it is an aligned or collective op.
    fn gather_required(&self, w: usize, kind: &Kind, mask: u32) -> Option<u32> {
        let warp = &self.warps[w];
        if kind.is_aligned_collective() {
            return Some(warp.live());
        }
        let m = kind.warp_mask()?;
        let lane = mask.trailing_zeros() as usize;
        let members = self.src_value(w, lane, m) as u32;
        Some(members & warp.lanes)
    }

    /// Releases lanes of warp `w` that wait at an aligned instruction once their warp is there,
    /// and reports lanes that wait at different aligned instructions.
    pub(crate) fn reconcile_gather(&mut self, w: usize) -> Res<()> {
        let warp = &self.warps[w];
        let waiting = lanes(warp.blocked)
            .filter(|&l| warp.why[l] == Block::Gather)
            .fold(0u32, |m, l| m | 1 << l);
        if waiting == 0 {
            return Ok(());
        }
        let mut pcs: Vec<u32> = lanes(waiting).map(|l| warp.wait_pc[l]).collect();
        pcs.sort_unstable();
        pcs.dedup();
        for &pc in &pcs {
            let warp = &self.warps[w];
            let here = lanes(waiting)
                .filter(|&l| warp.wait_pc[l] == pc)
                .fold(0u32, |m, l| m | 1 << l);
            let required = self
                .gather_required(w, &self.prog.ops[pc as usize].kind, here)
                .unwrap_or(here);
            if required & !here == 0 {
                let at = self.warps[w].clock;
                self.wake_lanes(w, here, at);
                self.gathering -= here.count_ones();
                return Ok(());
            }
            if required & self.warps[w].exited != 0
                && !self.prog.ops[pc as usize].kind.is_aligned_collective()
            {
                let exited = required & self.warps[w].exited;
                return Err(Report::new(
                    FindingKind::WarpCollective,
                    "§9.7.13",
                    "a warp collective's member mask names threads that have exited",
                )
                .site(self.site(
                    w,
                    here,
                    pc,
                    &format!("wait for lanes {}", super::report::lane_ranges(exited)),
                ))
                .into());
            }
        }
        // Lanes gathered at an aligned instruction while others of their warp, still running,
        // can no longer reach it and have more to do than exit: on a GPU the gathered lanes
        // execute it without them (the warp is divergent there; compute-sanitizer's synccheck
        // reports it). Lanes on the way out (nothing but exit ahead) are the exit warning's.
        for &pc in &pcs {
            let warp = &self.warps[w];
            let here = lanes(waiting)
                .filter(|&l| warp.wait_pc[l] == pc)
                .fold(0u32, |m, l| m | 1 << l);
            let elsewhere = lanes(warp.live() & !here & !(warp.blocked & !waiting))
                .filter(|&l| {
                    let at = if waiting >> l & 1 == 1 {
                        warp.wait_pc[l]
                    } else {
                        warp.pc[l]
                    };
                    let stack = &warp.calls[l];
                    at != pc
                        && !self.prog.reaches(stack, at, pc)
                        && self.prog.acts_before_exit(stack, at)
                })
                .fold(0u32, |m, l| m | 1 << l);
            if elsewhere != 0 {
                return Err(self.divergence_report(
                    w,
                    here,
                    pc,
                    elsewhere,
                    Some("go on without it (they cannot reach it any more)"),
                ));
            }
        }
        if self.warps[w].ready == 0 && pcs.len() > 1 {
            let first = lanes(waiting)
                .filter(|&l| self.warps[w].wait_pc[l] == pcs[0])
                .fold(0u32, |m, l| m | 1 << l);
            return Err(self.divergence_report(
                w,
                first,
                pcs[0],
                waiting & !first,
                Some("wait at another aligned instruction"),
            ));
        }
        Ok(())
    }

    pub(crate) fn divergence_report(
        &self,
        w: usize,
        here: u32,
        pc: u32,
        others: u32,
        what: Option<&str>,
    ) -> super::report::Stop {
        let kind = &self.prog.ops[pc as usize].kind;
        let (spec, name) = match kind {
            Kind::Bar { .. } => ("§9.7.13.1", "an aligned barrier"),
            Kind::ClusterArrive { .. } | Kind::ClusterWait { .. } => {
                ("§9.7.13.3", "an aligned cluster barrier")
            }
            _ => ("§9.7.13", "a warp collective"),
        };
        let mut r = Report::new(FindingKind::DivergentAlignedBarrier, spec, format!("{name} is reached by a divergent warp"))
            .site(self.site(w, here, pc, "reach it"))
            .note(if matches!(kind, Kind::Bar { count: None, .. }) {
                "an aligned barrier without a thread count needs CTA-uniform control flow; with a count, each participating warp must execute it convergently"
            } else {
                "\"all threads in the warp must execute the same aligned instruction\": the condition that leads here must be warp-uniform"
            });
        let warp = &self.warps[w];
        let mut groups: Vec<(u32, u32)> = Vec::new();
        for l in lanes(others) {
            let at = if warp.blocked >> l & 1 == 1 {
                warp.wait_pc[l]
            } else {
                warp.pc[l]
            };
            match groups.iter_mut().find(|g| g.0 == at) {
                Some(g) => g.1 |= 1 << l,
                None => groups.push((at, 1 << l)),
            }
        }
        for (at, m) in groups {
            let lane = m.trailing_zeros() as usize;
            let desc = match what {
                Some(w) => w.to_string(),
                None if warp.blocked >> lane & 1 == 1 => self.describe_block(w, warp.why[lane]),
                None => "are still running".to_string(),
            };
            r = r.site(self.site(w, m, at, &desc));
        }
        r.into()
    }
}

/// The lowest-pc group of a warp's ready threads, and the next higher program counter.
fn pick_group(warp: &super::machine::Warp) -> (u32, u32, u32) {
    let mut pc = u32::MAX;
    let mut mask = 0u32;
    for lane in lanes(warp.ready) {
        let p = warp.pc[lane];
        if p < pc {
            pc = p;
            mask = 1 << lane;
        } else if p == pc {
            mask |= 1 << lane;
        }
    }
    let next = lanes(warp.ready & !mask)
        .map(|l| warp.pc[l])
        .min()
        .unwrap_or(u32::MAX);
    (pc, mask, next)
}
