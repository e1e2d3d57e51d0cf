//! Dispatch of everything that is not register arithmetic or control flow: memory, barriers,
//! mbarriers, fences and the issue of asynchronous copies.

use super::step::Step;
use crate::async_copy::{AsyncKind, From};
use crate::decode::*;
use crate::machine::Machine;
use crate::memory::{
    SHARED_BASE, SHARED_GENERIC, WINDOW, cluster_address, cluster_rank, cta_offset,
};
use crate::report::{FindingKind, Report};
use crate::state::{Block, Res, lanes};

const BULK_SPEC: &str = "cp.async.bulk (PTX ISA data movement instructions)";

impl Machine<'_> {
    pub(super) fn exec_other(&mut self, w: usize, eff: u32, pc: u32, kind: &Kind) -> Res<Step> {
        if self.exec_memory(w, eff, pc, kind)? {
            return Ok(Step::Next);
        }
        match kind {
            Kind::Clock { d } => {
                let c = self.warps[w].clock;
                for lane in lanes(eff) {
                    self.warps[w].set_reg(*d, lane, c);
                }
            }
            Kind::Nanosleep => return Ok(Step::Yield(0)),
            Kind::Fence(f) => {
                for lane in lanes(eff) {
                    let t = w as u32 * 32 + lane as u32;
                    match f {
                        FenceKind::ProxyAsync => self.race.fence_proxy_async(t),
                        FenceKind::Ordering | FenceKind::MbarrierInit => {
                            self.race.fenced[t as usize] = true
                        }
                        FenceKind::Other => {}
                    }
                }
            }
            Kind::Bar {
                action,
                id,
                count,
                aligned,
                d,
                pred,
            } => {
                self.warps[w].effects += 1;
                if *aligned {
                    self.note_aligned(w, eff, pc);
                }
                let blocked = self.named_barrier(w, eff, pc, *action, *id, *count, *d, *pred)?;
                return Ok(Step::Yield(if blocked { eff } else { 0 }));
            }
            Kind::ClusterArrive { relaxed, .. } => {
                self.cluster_arrive(w, eff, pc, *relaxed)?;
                return Ok(Step::Yield(0));
            }
            Kind::ClusterWait { .. } => {
                let blocked = self.cluster_wait(w, eff, pc)?;
                return Ok(Step::Yield(blocked));
            }
            Kind::Mbar {
                op,
                space,
                d,
                addr,
                a,
            } => {
                let parked = self.mbarrier(w, eff, pc, *op, *space, *d, *addr, *a)?;
                let waits = matches!(op, MbarOp::TestWait { .. } | MbarOp::TryWait { .. });
                let all_done = waits
                    && lanes(eff & !parked).all(|l| self.warps[w].reg(*d, l) != 0)
                    && *d != SINK;
                if parked != 0 || !all_done {
                    return Ok(Step::Yield(parked));
                }
            }
            Kind::MbarPendingCount { d, state } => self.mbar_pending_count(w, eff, *d, *state),
            Kind::BulkLoad {
                dst,
                src,
                src_shared,
                size,
                mbar,
                mask,
                reduce,
            } => {
                for lane in lanes(eff) {
                    let mask = mask.map(|m| self.src_value(w, lane, m) as u32);
                    self.issue_bulk_load(
                        w,
                        lane,
                        pc,
                        *dst,
                        *src,
                        *src_shared,
                        *size,
                        *mbar,
                        mask,
                        *reduce,
                    )?;
                }
            }
            Kind::BulkStore {
                dst,
                src,
                size,
                reduce,
            } => {
                for lane in lanes(eff) {
                    let bytes = self.src_value(w, lane, *size) as u32;
                    let (to, from) = (
                        self.addr_value(w, lane, *dst),
                        self.addr_value(w, lane, *src),
                    );
                    self.bulk_shape(w, lane, pc, &[to, from], bytes)?;
                    let to = match self.resolve(w, lane, pc, Space::Global, to, bytes.max(1))? {
                        super::mem::Target::Global(loc) => loc,
                        _ => unreachable!("global target"),
                    };
                    let (_, off) = self.shared_of(w, lane, pc, Space::Shared, from, bytes)?;
                    self.issue_async(
                        w,
                        lane,
                        pc,
                        AsyncKind::BulkStore {
                            off: off + SHARED_BASE,
                            to,
                            bytes,
                            reduce: *reduce,
                        },
                        Some(true),
                    );
                }
            }
            Kind::BulkCommit => self.commit_groups(w, eff, true),
            Kind::CpAsyncCommit => self.commit_groups(w, eff, false),
            Kind::BulkWait { n, .. } | Kind::CpAsyncWait { n: Some(n) } => {
                return self.async_wait(w, eff, pc, *n, matches!(kind, Kind::BulkWait { .. }));
            }
            Kind::CpAsyncWait { n: None } => {
                self.commit_groups(w, eff, false);
                return self.async_wait(w, eff, pc, 0, false);
            }
            Kind::CpAsync {
                dst,
                src,
                cp_size,
                src_size,
            } => {
                // Every lane is checked before the warp's copies are issued, as one operation.
                let mut issued = [(0u32, None, 0u32, 0u32); 32];
                let mut n = 0;
                if let Some(fast) =
                    self.cp_async_fast(w, eff, *dst, *src, *cp_size, *src_size, &mut issued)
                {
                    self.issue_cp_async(w, pc, *cp_size, &issued[..fast]);
                    return Ok(Step::Next);
                }
                for lane in lanes(eff) {
                    let src_bytes = src_size.map_or(*cp_size, |s| {
                        (self.src_value(w, lane, s) as u32).min(*cp_size)
                    });
                    let (to, from) = (
                        self.addr_value(w, lane, *dst),
                        self.addr_value(w, lane, *src),
                    );
                    let (_, off) = self.shared_of(w, lane, pc, Space::Shared, to, *cp_size)?;
                    // A source size of 0 reads nothing (the destination is zero-filled): the
                    // source address need not be valid, as in Triton's masked loads.
                    let from = if src_bytes == 0 {
                        None
                    } else {
                        match self.resolve(w, lane, pc, Space::Global, from, src_bytes)? {
                            super::mem::Target::Global(loc) => Some(loc),
                            _ => unreachable!("global target"),
                        }
                    };
                    if !to.is_multiple_of(*cp_size as u64) {
                        return Err(self.misaligned(w, lane, pc, "cp.async destination", *cp_size));
                    }
                    issued[n] = (lane as u32, from, off + SHARED_BASE, src_bytes);
                    n += 1;
                }
                self.issue_cp_async(w, pc, *cp_size, &issued[..n]);
            }
            Kind::CpAsyncMbarArrive { addr, space, noinc } => {
                for lane in lanes(eff) {
                    let a = self.addr_value(w, lane, *addr);
                    let (cta, off) = self.mbar_locate(w, lane, pc, *space, a, "§9.7.13.15.15")?;
                    let actor = crate::barrier::mbarrier::Actor {
                        warp: w as u32,
                        lane: lane as u32,
                        pc,
                        async_op: false,
                        time: self.warps[w].clock,
                    };
                    let valid = self.ctas[cta as usize]
                        .mbars
                        .get(&off)
                        .is_some_and(|m| m.valid);
                    if !valid {
                        return Err(Report::new(
                            FindingKind::MbarrierUninitialized,
                            "§9.7.13.15",
                            format!(
                                "cp.async.mbarrier.arrive on an invalid mbarrier ({})",
                                self.mbar_name(cta, off)
                            ),
                        )
                        .site(self.actor_site(actor, "arrives"))
                        .into());
                    }
                    if !*noinc {
                        let m = self.ctas[cta as usize].mbars.get_mut(&off).expect("valid");
                        if m.pending + 1 > crate::barrier::mbarrier::MAX_COUNT {
                            let state = m.describe();
                            return Err(Report::new(
                                FindingKind::MbarrierCountRange,
                                "§9.7.13.15.15",
                                "cp.async.mbarrier.arrive increments the pending count past 2^20-1",
                            )
                            .site(self.actor_site(actor, "arrives"))
                            .state(state)
                            .into());
                        }
                        m.pending += 1;
                        m.version += 1;
                    }
                    let after = self.asyncs.cp_pending[w * 32 + lane].clone();
                    self.issue_async(
                        w,
                        lane,
                        pc,
                        AsyncKind::MbarArrive {
                            mbar: (cta, off),
                            after,
                        },
                        None,
                    );
                }
            }
            Kind::Shfl { .. }
            | Kind::Vote { .. }
            | Kind::Elect { .. }
            | Kind::Activemask { .. }
            | Kind::WarpSync { .. }
            | Kind::Redux { .. } => self.collective(w, eff, pc, kind)?,
            Kind::Tma(op) => return self.exec_tma(w, eff, pc, op),
            Kind::Tensor(op) => return self.tensor(w, eff, pc, op),
            other => unreachable!("op {other:?} reached dispatch"),
        }
        Ok(Step::Next)
    }

    /// The (destination, mbarrier) addresses of a copy: the operands themselves, or with a
    /// `.multicast::cluster` ctaMask the same offsets in every CTA whose bit is set
    /// (§9.7.9.25.4.1, §9.7.9.25.5.2). A mask that names no CTA, or a CTA the cluster does not
    /// have, is a finding; an address outside the cluster window stays as it is, for the caller's
    /// shared-memory check to report.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn multicast_targets(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        to: u64,
        m: u64,
        mask: Option<u32>,
        spec: &str,
    ) -> Res<Vec<(u64, u64)>> {
        let Some(mask) = mask.map(|m| m & 0xffff) else {
            return Ok(vec![(to, m)]);
        };
        let ctas = self.shape.ctas_per_cluster;
        if mask == 0 || mask >> ctas.min(16) != 0 {
            return Err(Report::new(
                FindingKind::OutOfBounds,
                spec,
                format!(
                    "multicast ctaMask 0x{mask:04x} names no CTA or a CTA the cluster of {ctas} does not have"
                ),
            )
            .site(self.site(w, 1 << lane, pc, "issues the copy"))
            .into());
        }
        let in_rank = |a: u64, r: u32| {
            if a < WINDOW {
                cluster_address(r, cta_offset(a as u32)) as u64
            } else {
                a
            }
        };
        Ok((0..ctas)
            .filter(|r| mask & (1 << r) != 0)
            .map(|r| (in_rank(to, r), in_rank(m, r)))
            .collect())
    }

    fn misaligned(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        what: &str,
        align: u32,
    ) -> crate::report::Stop {
        Report::new(
            FindingKind::Misaligned,
            BULK_SPEC,
            format!("{what} is not aligned to {align} bytes"),
        )
        .site(self.site(w, 1 << lane, pc, "issues the copy"))
        .into()
    }

    /// Bulk copies move multiples of 16 bytes between 16-byte aligned addresses.
    fn bulk_shape(&self, w: usize, lane: usize, pc: u32, addrs: &[u64], bytes: u32) -> Res<()> {
        if !bytes.is_multiple_of(16) || bytes == 0 {
            return Err(Report::new(
                FindingKind::Misaligned,
                BULK_SPEC,
                format!("bulk copy of {bytes} bytes: the size must be a non-zero multiple of 16"),
            )
            .site(self.site(w, 1 << lane, pc, "issues the copy"))
            .into());
        }
        if let Some(a) = addrs.iter().find(|a| !a.is_multiple_of(16)) {
            return Err(self.misaligned(w, lane, pc, &format!("bulk copy address 0x{a:x}"), 16));
        }
        Ok(())
    }

    /// The `cp.async` of lanes `eff` when every lane's destination is in the executing CTA's
    /// shared memory and every lane that reads reads all `cp_size` bytes from one global buffer,
    /// in bounds and aligned (checked once for the group, as loads and stores do): their
    /// (lane, source, shared address, source bytes) into `issued`, and how many. `None` sends
    /// the group to the lane-by-lane path, which reports any fault with its lane.
    #[allow(clippy::too_many_arguments)]
    fn cp_async_fast(
        &self,
        w: usize,
        eff: u32,
        dst: Addr,
        src: Addr,
        cp_size: u32,
        src_size: Option<Src>,
        issued: &mut [(u32, Option<crate::memory::GlobalLoc>, u32, u32); 32],
    ) -> Option<usize> {
        use super::fast::FastTarget;
        let mut src_bytes = [cp_size; 32];
        let mut reading = eff;
        if let Some(s) = src_size {
            for lane in lanes(eff) {
                let b = (self.src_value(w, lane, s) as u32).min(cp_size);
                src_bytes[lane] = b;
                if b == 0 {
                    reading &= !(1 << lane);
                } else if b != cp_size {
                    return None;
                }
            }
        }
        let mut tos = [0u64; 32];
        let Some(FastTarget::Shared(_)) =
            self.fast_targets(w, eff, Space::Shared, dst, cp_size, true, &mut tos)
        else {
            return None;
        };
        let mut froms = [0u64; 32];
        let global = if reading == 0 {
            None
        } else {
            match self.fast_targets(w, reading, Space::Global, src, cp_size, false, &mut froms)? {
                FastTarget::Global(buffer, base) => Some((buffer, base)),
                FastTarget::Shared(_) => return None,
            }
        };
        let mut n = 0;
        for lane in lanes(eff) {
            let from = match global {
                Some((buffer, base)) if reading >> lane & 1 == 1 => {
                    Some(crate::memory::GlobalLoc {
                        buffer,
                        offset: (froms[lane] - base) as usize,
                    })
                }
                _ => None,
            };
            issued[n] = (lane as u32, from, tos[lane] as u32, src_bytes[lane]);
            n += 1;
        }
        Some(n)
    }

    /// A shared address (`space` Shared, SharedCluster or Generic) to (cta, offset from base).
    fn shared_of(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        space: Space,
        a: u64,
        bytes: u32,
    ) -> Res<(u32, u32)> {
        match self.resolve(w, lane, pc, space, a, bytes.max(1))? {
            super::mem::Target::Shared { cta, off } => Ok((cta, off)),
            _ => Err(Report::new(
                FindingKind::OutOfBounds,
                super::mem::OOB_SPEC,
                format!("address 0x{a:x} is not in shared memory"),
            )
            .site(self.site(w, 1 << lane, pc, "uses it as a shared address"))
            .into()),
        }
    }

    /// Issues a bulk load; with a multicast `mask`, one copy per destination CTA, each to the
    /// CTA-relative offsets of `dst` and `mbar` in that CTA (PTX ISA, `cp.async.bulk`
    /// `.multicast::cluster`: bit i of the 16-bit ctaMask is the CTA of rank i).
    #[allow(clippy::too_many_arguments)]
    fn issue_bulk_load(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        dst: Addr,
        src: Addr,
        src_shared: bool,
        size: Src,
        mbar: Addr,
        mask: Option<u32>,
        reduce: Option<(AtomOp, MemTy)>,
    ) -> Res<()> {
        let bytes = self.src_value(w, lane, size) as u32;
        let (to, from, m) = (
            self.addr_value(w, lane, dst),
            self.addr_value(w, lane, src),
            self.addr_value(w, lane, mbar),
        );
        self.bulk_shape(w, lane, pc, &[to, from], bytes)?;
        let from = if src_shared {
            let (sc, so) = self.shared_of(w, lane, pc, Space::Shared, from, bytes)?;
            From::Shared {
                cta: sc,
                off: so + SHARED_BASE,
            }
        } else {
            match self.resolve(w, lane, pc, Space::Global, from, bytes)? {
                super::mem::Target::Global(loc) => From::Global(loc),
                _ => unreachable!("global target"),
            }
        };
        let targets = self.multicast_targets(w, lane, pc, to, m, mask, BULK_SPEC)?;
        for (to, m) in targets {
            let (cta, off) = self.shared_of(w, lane, pc, Space::SharedCluster, to, bytes)?;
            let (mc, mo) = self.mbar_locate(w, lane, pc, Space::SharedCluster, m, BULK_SPEC)?;
            if mc != cta {
                return Err(Report::new(
                    FindingKind::MbarrierAddress,
                    BULK_SPEC,
                    "the mbarrier of a bulk copy is not in the CTA of its destination",
                )
                .site(self.site(w, 1 << lane, pc, "issues the copy"))
                .into());
            }
            let actor = crate::barrier::mbarrier::Actor {
                warp: w as u32,
                lane: lane as u32,
                pc,
                async_op: false,
                time: self.warps[w].clock,
            };
            if !self.ctas[mc as usize]
                .mbars
                .get(&mo)
                .is_some_and(|m| m.valid)
            {
                return Err(Report::new(
                    FindingKind::MbarrierUninitialized,
                    "§9.7.13.15",
                    format!(
                        "bulk copy signalling an invalid mbarrier ({})",
                        self.mbar_name(mc, mo)
                    ),
                )
                .site(self.actor_site(actor, "issues the copy"))
                .into());
            }
            if self.unknown_bytes(pc) {
                // Its size comes from made-up inputs: a copy of unknown size (no data).
                self.issue_on_mbarrier(
                    w,
                    lane,
                    pc,
                    (mc, mo),
                    AsyncKind::Unknown {
                        mbar: Some((mc, mo)),
                    },
                    || "a bulk copy of unknown size".into(),
                );
                continue;
            }
            self.issue_on_mbarrier(
                w,
                lane,
                pc,
                (mc, mo),
                AsyncKind::BulkLoad {
                    from,
                    cta,
                    off: off + SHARED_BASE,
                    bytes,
                    mbar: (mc, mo),
                    reduce,
                },
                || format!("a bulk copy of {bytes} bytes"),
            );
        }
        Ok(())
    }

    /// `wait_group n` for the lanes `eff`.
    fn async_wait(&mut self, w: usize, eff: u32, pc: u32, n: u32, bulk: bool) -> Res<Step> {
        let mut blocked = 0;
        for lane in lanes(eff) {
            let t = w * 32 + lane;
            if self.async_wait_satisfied(t, n, bulk, pc) {
                self.acquire_groups(t as u32, bulk);
            } else {
                blocked |= 1 << lane;
            }
        }
        if blocked != 0 {
            self.warps[w].block(blocked, Block::AsyncWait, pc, pc + 1);
            return Ok(Step::Yield(blocked));
        }
        Ok(Step::Next)
    }

    /// The CTA and absolute offset of an mbarrier address, checked for alignment and bounds.
    pub(crate) fn mbar_locate(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        space: Space,
        a: u64,
        spec: &str,
    ) -> Res<(u32, u32)> {
        let bad = |why: String| -> crate::report::Stop {
            Report::new(
                FindingKind::MbarrierAddress,
                spec,
                format!("mbarrier address 0x{a:x} {why}"),
            )
            .site(self.site(w, 1 << lane, pc, "uses it"))
            .note("an mbarrier object is 8 bytes, 8-byte aligned, in shared memory (§9.7.13.15.1)")
            .into()
        };
        let own = self.warps[w].cta;
        let cluster_addr = match space {
            Space::Generic if (SHARED_GENERIC..SHARED_GENERIC + WINDOW).contains(&a) => {
                a - SHARED_GENERIC
            }
            Space::Generic => return Err(bad("is not in the shared window".into())),
            _ if a >= WINDOW => return Err(bad("is outside the shared window".into())),
            _ => a,
        };
        let rank = cluster_rank(cluster_addr as u32).unwrap_or(own);
        if space == Space::Shared && rank != own {
            return Err(bad(format!(
                "names cta rank {rank} in a .shared::cta operation"
            )));
        }
        if rank >= self.shape.ctas_per_cluster {
            return Err(bad(format!(
                "names cta rank {rank}, but the cluster has {} ctas",
                self.shape.ctas_per_cluster
            )));
        }
        let off = cta_offset(cluster_addr as u32);
        if !off.is_multiple_of(8) {
            return Err(bad("is not 8-byte aligned".into()));
        }
        if off < SHARED_BASE || off + 8 > SHARED_BASE + self.shape.shared_bytes {
            return Err(bad(format!(
                "is outside the {} bytes of shared memory",
                self.shape.shared_bytes
            )));
        }
        Ok((rank, off))
    }
}
