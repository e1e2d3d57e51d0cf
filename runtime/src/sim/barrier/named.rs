//! Named barriers of a CTA: `bar{.cta}` / `barrier{.cta}` `.sync`, `.arrive`, `.red`
//! (PTX ISA §9.7.13.1).
//!
//! Each CTA has sixteen barriers. A phase completes when its thread count (or, without a
//! count, every non-exited thread of the CTA) has arrived; the waiting threads restart and the
//! barrier is reinitialised at once. `.red` delivers the reduction of the arrivals' predicates
//! to every waiting thread. Checked here: ids 0..15, counts that are positive multiples of 32
//! and agree within a phase, no count below the arrivals, `.red` not mixed with `.sync` /
//! `.arrive` (nor `.red` of another operation), an aligned count-less barrier executed at one
//! instruction by the whole CTA, and no thread arriving twice in a phase.

use crate::sim::decode::{BarAction, Src};
use crate::sim::machine::{Block, Machine, Res, lanes};
use crate::sim::race::Clock;
use crate::sim::report::{FindingKind, Report};

pub(crate) const SPEC: &str = "§9.7.13.1";

/// The state of one named barrier in its current phase.
#[derive(Clone, Debug, Default)]
pub(crate) struct NamedBarrier {
    pub phase: u64,
    pub arrived: u32,
    /// The thread count of this phase; `None` = all non-exited threads.
    pub count: Option<Option<u32>>,
    /// The first arrival's action and instruction.
    pub first: Option<(BarAction, u32, u32, u32)>,
    /// Warp index (in the cluster) and lanes blocked in this phase.
    pub waiters: Vec<(u32, u32)>,
    pub popc: u32,
    pub all: bool,
    pub any: bool,
    pub vc: Clock,
    /// Threads (by warp-relative id within the CTA) that arrived in this phase.
    pub arrivals: Vec<u64>,
    /// `.red` waiters: warp, lanes, destination register.
    pub reds: Vec<(u32, u32, u32)>,
    pub completed: u64,
}

impl NamedBarrier {
    pub(crate) fn describe(&self, id: u32, expected: u32) -> String {
        let count = match self.count {
            Some(Some(c)) => format!("{c}"),
            _ => format!("{expected} (all non-exited threads)"),
        };
        let kind = self
            .first
            .map(|(a, ..)| format!(", {}", a.name()))
            .unwrap_or_default();
        format!(
            "named barrier {id}: phase {}, {} of {count} threads arrived{kind}",
            self.phase, self.arrived
        )
    }
}

impl Machine<'_> {
    /// Executes a `bar`/`barrier` instruction for `eff` lanes of warp `w` at `pc`; returns
    /// whether the lanes blocked.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn named_barrier(
        &mut self,
        w: usize,
        eff: u32,
        pc: u32,
        action: BarAction,
        id: Src,
        count: Option<Src>,
        aligned: bool,
        d: u32,
        pred: Option<(Src, bool)>,
    ) -> Res<bool> {
        let first = eff.trailing_zeros() as usize;
        let warp = &self.warps[w];
        let cta = warp.cta as usize;
        let read = |s: Src, lane: usize| match s {
            Src::Reg(r) => warp.reg(r, lane) as u32,
            Src::Imm(v) => v as u32,
        };
        let id_v = read(id, first);
        let count_v = count.map(|c| read(c, first));
        if lanes(eff).any(|l| read(id, l) != id_v)
            || count.is_some_and(|c| lanes(eff).any(|l| Some(read(c, l)) != count_v))
        {
            return Err(Report::new(
                FindingKind::BarrierId,
                SPEC,
                "threads of one warp name different barriers or counts at one barrier instruction",
            )
            .site(self.site(w, eff, pc, "executes the barrier"))
            .into());
        }
        if id_v > 15 {
            return Err(Report::new(
                FindingKind::BarrierId,
                SPEC,
                format!("barrier id {id_v} is outside 0..15"),
            )
            .site(self.site(w, eff, pc, "names the barrier"))
            .note("each CTA has sixteen barriers numbered 0..15")
            .into());
        }
        let threads = self.shape.threads_per_cta;
        if let Some(c) = count_v
            && (c == 0 || c % 32 != 0 || c > threads.div_ceil(32) * 32)
        {
            let why = if c == 0 || c % 32 != 0 {
                "is not a positive multiple of the warp size (32)".to_string()
            } else {
                format!("exceeds the {threads} threads of the CTA")
            };
            return Err(Report::new(
                FindingKind::BarrierThreadCount,
                SPEC,
                format!("thread count {c} of barrier {id_v} {why}"),
            )
            .site(self.site(w, eff, pc, "arrives with this count"))
            .into());
        }
        let live = self.ctas[cta].live;
        let bar = &self.ctas[cta].named[id_v as usize];
        let state = bar.describe(id_v, live);
        if let Some((first_action, first_pc, fw, fl)) = bar.first {
            if bar.count.is_some_and(|c| c != count_v) {
                let r = Report::new(
                    FindingKind::BarrierThreadCount,
                    SPEC,
                    format!("barrier {id_v} is used with different thread counts in one phase"),
                )
                .site(self.site(
                    w,
                    eff,
                    pc,
                    &format!(
                        "arrives with count {}",
                        count_v.map_or("all".to_string(), |c| c.to_string())
                    ),
                ))
                .site(self.site(
                    fw as usize,
                    1 << fl,
                    first_pc,
                    "arrived first in this phase",
                ))
                .state(state);
                return Err(r.into());
            }
            if first_action.is_red() != action.is_red()
                || (action.is_red() && first_action != action)
            {
                let r = Report::new(FindingKind::BarrierRedMixed, SPEC, format!("bar.{} mixed with bar.{} on active barrier {id_v}", action.name(), first_action.name()))
                    .site(self.site(w, eff, pc, &format!("executes bar.{}", action.name())))
                    .site(self.site(fw as usize, 1 << fl, first_pc, &format!("executed bar.{} in the same phase", first_action.name())))
                    .state(state)
                    .note("\"barrier.red should not be intermixed with barrier.sync or barrier.arrive using the same active barrier\"");
                return Err(r.into());
            }
            if aligned && count_v.is_none() && first_pc != pc {
                let r = Report::new(FindingKind::PartialCtaAlignedBarrier, SPEC, format!("aligned barrier {id_v} without a thread count is reached at different instructions by threads of the CTA"))
                    .site(self.site(w, eff, pc, "arrives here"))
                    .site(self.site(fw as usize, 1 << fl, first_pc, "arrived at a different instruction in the same phase"))
                    .state(state)
                    .note("an aligned barrier without a thread count must be executed by every non-exited thread of the CTA at the same instruction");
                return Err(r.into());
            }
        }
        // Per-thread double arrival.
        let base = (self.warps[w].index * 32) as usize;
        let bar = &self.ctas[cta].named[id_v as usize];
        if let Some(lane) = lanes(eff).find(|&l| {
            bar.arrivals
                .get((base + l) / 64)
                .is_some_and(|b| b >> ((base + l) % 64) & 1 == 1)
        }) {
            let r = Report::new(FindingKind::BarrierArriveTwice, SPEC, format!("a thread arrives twice at barrier {id_v} before the barrier completes"))
                .site(self.site(w, 1 << lane, pc, "arrives again"))
                .state(state)
                .note("\"care must be taken to keep a warp from executing more barrier instructions than intended (barrier.arrive followed by any other barrier instruction to the same barrier) prior to the reset of the barrier\"");
            return Err(r.into());
        }
        let n = eff.count_ones();
        let expected = count_v.unwrap_or(live);
        if bar.arrived + n > expected && count_v.is_some() {
            let r = Report::new(FindingKind::BarrierThreadCount, SPEC, format!("{} threads arrive at barrier {id_v} whose count is {expected}", bar.arrived + n))
                .site(self.site(w, eff, pc, "arrives beyond the count"))
                .state(state)
                .note("more threads participate than the thread count: the barrier completes before all of them arrive");
            return Err(r.into());
        }
        // Arrive: release each thread's clock into the barrier, fold the reduction operands.
        let (wi, cta_id) = (w as u32, self.warps[w].cta);
        let mut vc = std::mem::take(&mut self.ctas[cta].named[id_v as usize].vc);
        let (mut popc, mut all, mut any) = (0u32, true, false);
        for lane in lanes(eff) {
            let t = wi * 32 + lane as u32;
            self.race.release(t, &mut vc);
            if let Some((p, neg)) = pred {
                let v = match p {
                    Src::Reg(r) => self.warps[w].reg(r, lane) != 0,
                    Src::Imm(v) => v != 0,
                } ^ neg;
                popc += v as u32;
                all &= v;
                any |= v;
            }
        }
        let bar = &mut self.ctas[cta].named[id_v as usize];
        bar.vc = vc;
        if bar.arrived == 0 {
            bar.first = Some((action, pc, wi, first as u32));
            bar.count = Some(count_v);
            bar.popc = 0;
            bar.all = true;
            bar.any = false;
        }
        bar.arrived += n;
        bar.popc += popc;
        bar.all &= all;
        bar.any |= any;
        for lane in lanes(eff) {
            let i = base + lane;
            if bar.arrivals.len() <= i / 64 {
                bar.arrivals.resize(i / 64 + 1, 0);
            }
            bar.arrivals[i / 64] |= 1 << (i % 64);
        }
        let blocks = action != BarAction::Arrive;
        if blocks {
            bar.waiters.push((wi, eff));
            self.warps[w].block(eff, Block::Named { id: id_v as u8 }, pc, pc + 1);
            if action.is_red() && d != crate::sim::decode::SINK {
                self.ctas[cta].named[id_v as usize].reds.push((wi, eff, d));
            }
        }
        self.trace_barrier(w, cta_id, &format!("bar.{} {id_v}", action.name()), false);
        self.check_named_completion(cta, id_v as usize)?;
        Ok(blocks)
    }

    /// Completes the phase of barrier `id` of CTA `cta` if enough threads arrived.
    pub(crate) fn check_named_completion(&mut self, cta: usize, id: usize) -> Res<()> {
        let live = self.ctas[cta].live;
        let bar = &self.ctas[cta].named[id];
        if bar.arrived == 0 {
            return Ok(());
        }
        let expected = match bar.count {
            Some(Some(c)) => c,
            _ => live,
        };
        if bar.arrived < expected {
            return Ok(());
        }
        let bar = &mut self.ctas[cta].named[id];
        let waiters = std::mem::take(&mut bar.waiters);
        let vc = std::mem::take(&mut bar.vc);
        let (popc, all, any) = (bar.popc, bar.all, bar.any);
        let action = bar.first.map(|f| f.0);
        let reds = std::mem::take(&mut bar.reds);
        bar.phase += 1;
        bar.completed += 1;
        bar.arrived = 0;
        bar.first = None;
        bar.count = None;
        bar.arrivals.iter_mut().for_each(|b| *b = 0);
        self.stats.barrier_phases += 1;
        let done_at = waiters
            .iter()
            .map(|&(w, _)| self.warps[w as usize].clock)
            .max()
            .unwrap_or(0);
        for (w, mask) in waiters {
            self.wake_lanes(w as usize, mask, done_at);
            for lane in lanes(mask) {
                self.race.acquire(w * 32 + lane as u32, &vc);
            }
        }
        // Reductions reach every waiting thread.
        let value = match action {
            Some(BarAction::RedPopc) => popc as u64,
            Some(BarAction::RedAnd) => all as u64,
            _ => any as u64,
        };
        for (w, mask, d) in reds {
            for lane in lanes(mask) {
                self.warps[w as usize].set_reg(d, lane, value);
            }
        }
        let cta_id = cta as u32;
        self.trace_phase(cta_id, &format!("bar {id}"), done_at);
        Ok(())
    }
}
