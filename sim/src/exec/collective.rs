//! Warp collectives: `shfl.sync`, `vote.sync`, `elect.sync`, `activemask`, `bar.warp.sync`,
//! `redux.sync`. The executing loop has already gathered every lane of the member mask, so
//! `eff` is the set of participating lanes.

use crate::decode::*;
use crate::machine::Machine;
use crate::report::{FindingKind, Report};
use crate::state::{Res, lanes};

impl Machine<'_> {
    pub(super) fn collective(&mut self, w: usize, eff: u32, pc: u32, kind: &Kind) -> Res<()> {
        match kind {
            Kind::Activemask { d } => {
                for lane in lanes(eff) {
                    self.warps[w].set_reg(*d, lane, eff as u64);
                }
            }
            Kind::WarpSync { .. } => {
                // PTX ISA §9.7.13.2: bar.warp.sync also guarantees memory ordering among the
                // threads participating in it (stores before it are visible to their reads
                // after it): every lane's accesses before happen before every lane's after.
                let mut joined = crate::race::Clock::new();
                for lane in lanes(eff) {
                    self.race.release(w as u32 * 32 + lane as u32, &mut joined);
                }
                for lane in lanes(eff) {
                    self.race.acquire(w as u32 * 32 + lane as u32, &joined);
                }
            }
            Kind::Elect { d, dp, mask } => {
                let members = self.src_value(w, eff.trailing_zeros() as usize, *mask) as u32 & eff;
                let leader = members.trailing_zeros();
                for lane in lanes(eff) {
                    self.warps[w].set_reg(*d, lane, leader as u64);
                    self.warps[w].set_reg(*dp, lane, (lane as u32 == leader) as u64);
                }
            }
            Kind::Vote {
                mode, d, a, neg, ..
            } => {
                let mut ballot = 0u32;
                for lane in lanes(eff) {
                    if (self.src_value(w, lane, *a) != 0) ^ neg {
                        ballot |= 1 << lane;
                    }
                }
                let v = match mode {
                    VoteMode::All => (ballot == eff) as u64,
                    VoteMode::Any => (ballot != 0) as u64,
                    VoteMode::Uni => (ballot == 0 || ballot == eff) as u64,
                    VoteMode::Ballot => ballot as u64,
                };
                for lane in lanes(eff) {
                    self.warps[w].set_reg(*d, lane, v);
                }
            }
            Kind::Redux { op, ty, d, a, .. } => {
                let mut vals = [0u64; 32];
                let mut n = 0;
                for l in lanes(eff) {
                    vals[n] = self.src_value(w, l, *a) & 0xffff_ffff;
                    n += 1;
                }
                let vals = &vals[..n];
                let signed = |v: u64| v as u32 as i32 as i64;
                let r = match op {
                    AtomOp::Add => vals.iter().fold(0u64, |s, v| s.wrapping_add(*v)) & 0xffff_ffff,
                    AtomOp::And => vals.iter().fold(0xffff_ffff, |s, v| s & v),
                    AtomOp::Or => vals.iter().fold(0, |s, v| s | v),
                    AtomOp::Xor => vals.iter().fold(0, |s, v| s ^ v),
                    AtomOp::Min if ty.signed => {
                        vals.iter().map(|v| signed(*v)).min().unwrap_or(0) as u64 & 0xffff_ffff
                    }
                    AtomOp::Max if ty.signed => {
                        vals.iter().map(|v| signed(*v)).max().unwrap_or(0) as u64 & 0xffff_ffff
                    }
                    AtomOp::Min => vals.iter().copied().min().unwrap_or(0),
                    _ => vals.iter().copied().max().unwrap_or(0),
                };
                for lane in lanes(eff) {
                    self.warps[w].set_reg(*d, lane, r);
                }
            }
            Kind::Shfl {
                mode,
                d,
                dp,
                a,
                b,
                c,
                ..
            } => {
                // Every source is read before any destination is written (`d` may be `a`): the
                // operands' rows, read once.
                let regs = &self.warps[w].regs;
                let (src, bs, cs) = (
                    super::map::fetch(regs, *a),
                    super::map::fetch(regs, *b),
                    super::map::fetch(regs, *c),
                );
                if eff == u32::MAX
                    && let (Src::Imm(bv), Src::Imm(cv)) = (*b, *c)
                {
                    // The whole warp with constant lane operands (a butterfly reduction's
                    // shuffles): every source lane takes part, so no lane can read an absent
                    // one, and the rows are written without a test per lane.
                    let warp = &mut self.warps[w];
                    for lane in 0..32 {
                        let (j, ok) = shfl_source(*mode, lane as u32, bv as u32 & 0x1f, cv as u32);
                        let j = if ok { j as usize } else { lane };
                        warp.set_reg(*d, lane, src[j]);
                        warp.set_reg(*dp, lane, ok as u64);
                    }
                    return Ok(());
                }
                let value_of = |j: usize| (eff >> j & 1 == 1).then(|| src[j]);
                let mut out = [(0u64, false); 32];
                for lane in lanes(eff) {
                    let (j, ok) =
                        shfl_source(*mode, lane as u32, bs[lane] as u32 & 0x1f, cs[lane] as u32);
                    let j = if ok { j as usize } else { lane };
                    let Some(v) = value_of(j) else {
                        return Err(Report::new(FindingKind::WarpCollective, "§9.7.9 (shfl.sync)", format!("shfl.sync reads lane {j}, which does not take part in it"))
                            .site(self.site(w, 1 << lane, pc, "reads from an absent lane"))
                            .note("the source lane must be in the member mask and execute the same shfl.sync")
                            .into());
                    };
                    out[lane] = (v, ok);
                }
                let warp = &mut self.warps[w];
                for lane in lanes(eff) {
                    let (v, ok) = out[lane];
                    warp.set_reg(*d, lane, v);
                    warp.set_reg(*dp, lane, ok as u64);
                }
            }
            _ => unreachable!("not a collective"),
        }
        Ok(())
    }
}

/// The lane `l` of a `shfl.sync` reads (PTX ISA §9.7.9.6: `bval` the lane operand's low five
/// bits, `cv` the clamp and segment mask operand), and whether that lane is in range (else `l`
/// keeps its own value and its predicate is false).
#[inline(always)]
fn shfl_source(mode: ShflMode, l: u32, bval: u32, cv: u32) -> (u32, bool) {
    let (clamp, seg) = (cv & 0x1f, (cv >> 8) & 0x1f);
    let (max_lane, min_lane) = ((l & seg) | (clamp & !seg), l & seg);
    match mode {
        ShflMode::Up => (
            l.wrapping_sub(bval),
            l as i64 - bval as i64 >= max_lane as i64,
        ),
        ShflMode::Down => (l + bval, l + bval <= max_lane),
        ShflMode::Bfly => (l ^ bval, (l ^ bval) <= max_lane),
        ShflMode::Idx => (
            min_lane | (bval & !seg),
            (min_lane | (bval & !seg)) <= max_lane,
        ),
    }
}
