//! The machine's side of named and cluster barriers: reading a barrier instruction's
//! operands, then blocking and waking the warps the barrier state machine names
//! (`barrier`), with stats and trace events.

use crate::barrier::named::{self, Arrival, SPEC};
use crate::barrier::{At, cluster};
use crate::decode::{BarAction, SINK, Src};
use crate::machine::Machine;
use crate::report::{FindingKind, Report};
use crate::state::{Block, Res, lanes};

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
        let at = At {
            warp: w as u32,
            lanes: eff,
            pc,
        };
        named::check_operands(at, id_v, count_v, self.shape.threads_per_cta)
            .map_err(|v| self.violation(v))?;
        let (mut popc, mut all, mut any) = (0u32, true, false);
        if let Some((p, neg)) = pred {
            for lane in lanes(eff) {
                let v = match p {
                    Src::Reg(r) => warp.reg(r, lane) != 0,
                    Src::Imm(v) => v != 0,
                } ^ neg;
                popc += v as u32;
                all &= v;
                any |= v;
            }
        }
        let arrival = Arrival {
            at,
            index: warp.index,
            action,
            count: count_v,
            pred: (popc, all, any),
            red_dest: (action.is_red() && d != SINK).then_some(d),
        };
        let live = self.ctas[cta].live;
        let object = crate::report::Object::Named {
            cta: cta as u32,
            id: id_v,
        };
        let blocks = self.ctas[cta].named[id_v as usize]
            .arrive(id_v, &arrival, live, &mut self.race)
            .map_err(|v| self.violation_on(v, object))?;
        if blocks {
            self.warps[w].block(eff, Block::Named { id: id_v as u8 }, pc, pc + 1);
        }
        let cta_id = self.warps[w].cta;
        self.trace_barrier(w, cta_id, || format!("bar.{} {id_v}", action.name()), false);
        if self.made.is_some() {
            let state = self.ctas[cta].named[id_v as usize].describe(id_v, live);
            let phase = self.ctas[cta].named[id_v as usize].phase as i64;
            let count = count_v.map_or("all threads".to_string(), |c| format!("{c} threads"));
            self.log_event(
                w,
                eff,
                pc,
                Some(crate::report::Object::Named {
                    cta: cta_id,
                    id: id_v,
                }),
                crate::event_log::LogKind::Arrive,
                Some(phase),
                || format!("bar.{} {id_v} (count {count}): {state}", action.name()),
            );
        }
        self.check_named_completion(cta, id_v as usize)?;
        Ok(blocks)
    }

    /// Completes the phase of barrier `id` of CTA `cta` if enough threads arrived.
    pub(crate) fn check_named_completion(&mut self, cta: usize, id: usize) -> Res<()> {
        let live = self.ctas[cta].live;
        let Some(done) = self.ctas[cta].named[id].complete(live, &mut self.race) else {
            return Ok(());
        };
        self.stats.barrier_phases += 1;
        let done_at = done
            .waiters
            .iter()
            .map(|&(w, _)| self.warps[w as usize].clock)
            .max()
            .unwrap_or(0);
        for &(w, mask) in &done.waiters {
            self.wake_lanes(w as usize, mask, done_at);
        }
        for &(w, mask, d) in &done.reds {
            for lane in lanes(mask) {
                self.warps[w as usize].set_reg(d, lane, done.value);
            }
        }
        self.trace_phase(cta as u32, &format!("bar {id}"), done_at);
        if let Some(&(w, mask)) = done.waiters.first() {
            self.log_event(
                w as usize,
                mask,
                self.warps[w as usize].wait_pc[mask.trailing_zeros() as usize],
                Some(crate::report::Object::Named {
                    cta: cta as u32,
                    id: id as u32,
                }),
                crate::event_log::LogKind::Phase,
                None,
                || format!("barrier {id} completes a phase: its waiting threads go on"),
            );
        }
        Ok(())
    }

    pub(crate) fn cluster_live(&self) -> u32 {
        self.ctas.iter().map(|c| c.live).sum()
    }

    pub(crate) fn cluster_arrive(&mut self, w: usize, eff: u32, pc: u32, relaxed: bool) -> Res<()> {
        self.warps[w].effects += 1;
        let live = self.cluster_live();
        let at = At {
            warp: w as u32,
            lanes: eff,
            pc,
        };
        let warp = &mut self.warps[w];
        let own = cluster::Lanes {
            arrived: &mut warp.cluster_arrived,
            phase: &mut warp.cluster_phase,
        };
        self.cluster
            .arrive(at, own, relaxed, live, &mut self.race)
            .map_err(|v| self.violation_on(v, crate::report::Object::Cluster))?;
        self.trace_barrier(
            w,
            self.warps[w].cta,
            || "barrier.cluster.arrive".into(),
            false,
        );
        let sem = if relaxed { ".relaxed" } else { "" };
        self.log_event(
            w,
            eff,
            pc,
            Some(crate::report::Object::Cluster),
            crate::event_log::LogKind::Arrive,
            None,
            || format!("barrier.cluster.arrive{sem}"),
        );
        self.check_cluster_completion();
        Ok(())
    }

    /// Returns the lanes that blocked.
    pub(crate) fn cluster_wait(&mut self, w: usize, eff: u32, pc: u32) -> Res<u32> {
        let live = self.cluster_live();
        let at = At {
            warp: w as u32,
            lanes: eff,
            pc,
        };
        let warp = &mut self.warps[w];
        let own = cluster::Lanes {
            arrived: &mut warp.cluster_arrived,
            phase: &mut warp.cluster_phase,
        };
        let blocked = self
            .cluster
            .wait(at, own, live, &mut self.race)
            .map_err(|v| self.violation_on(v, crate::report::Object::Cluster))?;
        self.trace_barrier(
            w,
            self.warps[w].cta,
            || "barrier.cluster.wait".into(),
            false,
        );
        let (kind, what) = if blocked != 0 {
            (
                crate::event_log::LogKind::WaitPending,
                "waits at barrier.cluster.wait",
            )
        } else {
            (
                crate::event_log::LogKind::WaitDone,
                "passes barrier.cluster.wait",
            )
        };
        self.log_event(
            w,
            eff,
            pc,
            Some(crate::report::Object::Cluster),
            kind,
            None,
            || what.to_string(),
        );
        if blocked != 0 {
            self.warps[w].block(blocked, Block::Cluster, pc, pc + 1);
        }
        Ok(blocked)
    }

    pub(crate) fn check_cluster_completion(&mut self) {
        let live = self.cluster_live();
        let Some(waiters) = self.cluster.complete(live, &mut self.race) else {
            return;
        };
        self.stats.cluster_phases += 1;
        let at = waiters
            .iter()
            .map(|&(w, _)| self.warps[w as usize].clock)
            .max()
            .unwrap_or(0);
        for (w, mask) in waiters {
            self.warps[w as usize].cluster_arrived &= !mask;
            self.wake_lanes(w as usize, mask, at);
        }
        self.trace_phase(u32::MAX, "barrier.cluster", at);
    }
}
