//! Memory instructions (`ld`, `st`, `atom`, `red`, `cvta`, `mapa`) and address resolution:
//! bounds, alignment, the shared memory of peer CTAs, mbarrier objects, and the race check.

use super::fast::FastTarget;
use crate::decode::*;
use crate::machine::Machine;
use crate::memory::{
    GlobalLoc, LOCAL_GENERIC, PARAM_GENERIC, SHARED_BASE, SHARED_GENERIC, WINDOW, cluster_address,
    cluster_rank, cta_offset, load_le, store_le,
};
use crate::overlay::GlobalMem;
use crate::report::{FindingKind, Report, Stop};
use crate::state::{Res, lanes};

pub(crate) const OOB_SPEC: &str = "§5.1 (state spaces)";

/// Reads of one unchanged global value after which a speculative run gives up (see
/// [`Machine::poll_global`]): far more than a loop over data makes, so that only a wait
/// for another cluster (or, rarely, a long wait within the cluster) ends it.
const SPIN_POLLS: u32 = 1 << 16;

/// Where an access lands.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Target {
    Global(GlobalLoc),
    /// `off` counts from the start of the CTA's shared memory ([`SHARED_BASE`] is 0 here).
    Shared {
        cta: u32,
        off: u32,
    },
    Local(usize),
    KernelParam(usize),
    Frame(usize),
}

impl Machine<'_> {
    #[inline]
    pub(crate) fn src_value(&self, w: usize, lane: usize, s: Src) -> u64 {
        match s {
            Src::Reg(r) => self.warps[w].reg(r, lane),
            Src::Imm(v) => v,
        }
    }

    #[inline]
    pub(crate) fn addr_value(&self, w: usize, lane: usize, a: Addr) -> u64 {
        self.src_value(w, lane, a.base)
            .wrapping_add(a.offset as u64)
    }

    fn oob(&self, w: usize, lane: usize, pc: u32, what: String) -> Stop {
        Report::new(
            FindingKind::OutOfBounds,
            OOB_SPEC,
            format!("out-of-bounds access: {what}"),
        )
        .site(self.site(w, 1 << lane, pc, "accesses memory"))
        .into()
    }

    /// The CTA and offset (from [`SHARED_BASE`]) of a shared access.
    fn shared_target(
        &self,
        w: usize,
        lane: usize,
        pc: u32,
        cluster_addr: u64,
        len: u32,
        own_only: bool,
    ) -> Res<(u32, u32)> {
        let own = self.warps[w].cta;
        if cluster_addr >= WINDOW {
            return Err(self.oob(
                w,
                lane,
                pc,
                format!("shared address 0x{cluster_addr:x} is outside the shared window"),
            ));
        }
        let a = cluster_addr as u32;
        let rank = cluster_rank(a).unwrap_or(own);
        if own_only && rank != own {
            return Err(self.oob(
                w,
                lane,
                pc,
                format!("a .shared::cta access to the shared memory of cta rank {rank}"),
            ));
        }
        if rank >= self.shape.ctas_per_cluster {
            return Err(self.oob(
                w,
                lane,
                pc,
                format!(
                    "shared address of cta rank {rank}, but the cluster has {} ctas",
                    self.shape.ctas_per_cluster
                ),
            ));
        }
        let off = cta_offset(a);
        let size = self.shape.shared_bytes;
        if off < SHARED_BASE || off as u64 + len as u64 > SHARED_BASE as u64 + size as u64 {
            return Err(self.oob(
                w,
                lane,
                pc,
                format!("{len} bytes at shared offset {off}, outside the {size} bytes of shared memory at offsets {SHARED_BASE}..{} ({} static, {} dynamic)", SHARED_BASE + size, self.prog.shared_static_end - SHARED_BASE, self.shape.dynamic_shared_bytes),
            ));
        }
        if rank != own && self.ctas[rank as usize].live == 0 {
            return Err(Report::new(FindingKind::ExitedCtaAccess, "§9.7.13.3", format!("access to the shared memory of cta {:?}, which has exited", self.ctas[rank as usize].ctaid))
                .site(self.site(w, 1 << lane, pc, "accesses distributed shared memory"))
                .note("a CTA's shared memory lives only while the CTA runs: keep it alive with barrier.cluster arrive/wait before it exits")
                .into());
        }
        if let Some(m) = self.ctas[rank as usize].holds_mbarrier(off, len) {
            return Err(Report::new(FindingKind::MbarrierMemoryAccess, "§9.7.13.15", format!("memory access to the valid {}", self.mbar_name(rank, m)))
                .site(self.site(w, 1 << lane, pc, "accesses it as plain memory"))
                .note("\"performing any non-mbarrier ... operations on an initialized mbarrier object results in undefined behavior\": invalidate it with mbarrier.inval first")
                .into());
        }
        Ok((rank, off - SHARED_BASE))
    }

    /// Resolves the address `a` of an access of `len` bytes in `space` for one lane.
    pub(crate) fn resolve(
        &mut self,
        w: usize,
        lane: usize,
        pc: u32,
        space: Space,
        a: u64,
        len: u32,
    ) -> Res<Target> {
        let check_align = |t: &Target| !matches!(t, Target::KernelParam(_) | Target::Frame(_));
        let target = match space {
            Space::Global | Space::Const => self.global_target(w, lane, pc, a, len)?,
            Space::Shared => {
                let (cta, off) = self.shared_target(w, lane, pc, a, len, true)?;
                Target::Shared { cta, off }
            }
            Space::SharedCluster => {
                let (cta, off) = self.shared_target(w, lane, pc, a, len, false)?;
                Target::Shared { cta, off }
            }
            Space::Local => self.local_target(w, lane, pc, a, len)?,
            Space::KernelParam => {
                if a.saturating_add(len as u64) > self.prog.kernel_param_bytes as u64 {
                    return Err(self.oob(
                        w,
                        lane,
                        pc,
                        format!(
                            "{len} bytes at offset {a} of the {} bytes of kernel parameters",
                            self.prog.kernel_param_bytes
                        ),
                    ));
                }
                Target::KernelParam(a as usize)
            }
            Space::FrameParam => {
                if a.saturating_add(len as u64) > self.prog.frame_bytes as u64 {
                    return Err(self.oob(
                        w,
                        lane,
                        pc,
                        format!("{len} bytes at offset {a} of a parameter frame"),
                    ));
                }
                Target::Frame(lane * self.prog.frame_bytes as usize + a as usize)
            }
            Space::Generic => {
                if (SHARED_GENERIC..SHARED_GENERIC + WINDOW).contains(&a) {
                    let (cta, off) =
                        self.shared_target(w, lane, pc, a - SHARED_GENERIC, len, false)?;
                    Target::Shared { cta, off }
                } else if (LOCAL_GENERIC..LOCAL_GENERIC + WINDOW).contains(&a) {
                    self.local_target(w, lane, pc, a - LOCAL_GENERIC, len)?
                } else if (PARAM_GENERIC..PARAM_GENERIC + WINDOW).contains(&a) {
                    return self.resolve(w, lane, pc, Space::KernelParam, a - PARAM_GENERIC, len);
                } else {
                    self.global_target(w, lane, pc, a, len)?
                }
            }
        };
        if check_align(&target) && !a.is_multiple_of(len.min(16).next_power_of_two() as u64) {
            return Err(Report::new(
                FindingKind::Misaligned,
                "§6.4.1 (addresses as operands: alignment)",
                format!("misaligned access: {len} bytes at address 0x{a:x}"),
            )
            .site(self.site(w, 1 << lane, pc, "accesses memory"))
            .note("memory accesses must be aligned to their size")
            .into());
        }
        Ok(target)
    }

    fn global_target(&mut self, w: usize, lane: usize, pc: u32, a: u64, len: u32) -> Res<Target> {
        match self.mem.global.locate(a, len) {
            Ok(loc) => Ok(Target::Global(loc)),
            Err(fault) => Err(self.oob(w, lane, pc, format!("global memory: {}", fault.what))),
        }
    }

    fn local_target(&self, w: usize, lane: usize, pc: u32, off: u64, len: u32) -> Res<Target> {
        let lb = self.prog.local_bytes as u64;
        if off.saturating_add(len as u64) > lb {
            return Err(self.oob(
                w,
                lane,
                pc,
                format!("{len} bytes at local offset {off} of the {lb} bytes of local memory"),
            ));
        }
        Ok(Target::Local(lane * lb as usize + off as usize))
    }

    pub(crate) fn read_bytes(&mut self, w: usize, t: Target, len: usize, out: &mut [u8; 32]) {
        let src = match t {
            Target::Global(loc) => {
                self.mem.global.read(loc, &mut out[..len]);
                return;
            }
            Target::Shared { cta, off } => {
                &self.ctas[cta as usize].shared[off as usize..off as usize + len]
            }
            Target::Local(i) => &self.warps[w].locals[i..i + len],
            Target::KernelParam(i) => &self.mem.kernel_params[i..i + len],
            Target::Frame(i) => &self.warps[w].frames[i..i + len],
        };
        out[..len].copy_from_slice(src);
    }

    fn write_bytes(&mut self, w: usize, lane: usize, pc: u32, t: Target, bytes: &[u8]) -> Res<()> {
        let len = bytes.len();
        let dst = match t {
            Target::Global(loc) => {
                if let Some(name) = self.mem.global.read_only(loc) {
                    let name = name.to_string();
                    return Err(self.oob(w, lane, pc, format!("a store to read-only {name}")));
                }
                self.mem.global.write(loc, bytes);
                return Ok(());
            }
            Target::Shared { cta, off } => {
                &mut self.ctas[cta as usize].shared[off as usize..off as usize + len]
            }
            Target::Local(i) => &mut self.warps[w].locals[i..i + len],
            Target::KernelParam(_) => {
                return Err(self.oob(w, lane, pc, "a store to a kernel parameter".into()));
            }
            Target::Frame(i) => &mut self.warps[w].frames[i..i + len],
        };
        dst.copy_from_slice(bytes);
        Ok(())
    }

    /// `ld`, `st`, `atom`/`red`, `cvta`, `mapa`; `false` when `kind` is none of them.
    pub(super) fn exec_memory(&mut self, w: usize, eff: u32, pc: u32, kind: &Kind) -> Res<bool> {
        match kind {
            Kind::Ld {
                space,
                ty,
                ds,
                addr,
            } => self.load(w, eff, pc, *space, *ty, ds, *addr)?,
            Kind::St {
                space,
                ty,
                vals,
                addr,
            } => self.store(w, eff, pc, *space, *ty, vals, *addr)?,
            Kind::Atom {
                space,
                op,
                ty,
                d,
                addr,
                a,
                b,
            } => self.atomic(w, eff, pc, *space, *op, *ty, *d, *addr, *a, *b)?,
            Kind::Cvta {
                d,
                a,
                space,
                to_generic,
                bits,
            } => {
                for lane in lanes(eff) {
                    let v = self.src_value(w, lane, *a);
                    let base = match space {
                        Space::Shared | Space::SharedCluster => SHARED_GENERIC,
                        Space::Local => LOCAL_GENERIC,
                        Space::KernelParam => PARAM_GENERIC,
                        _ => 0,
                    };
                    let r = if *to_generic {
                        v.wrapping_add(base)
                    } else {
                        v.wrapping_sub(base)
                    };
                    let r = if *bits == 32 { r & 0xffff_ffff } else { r };
                    self.warps[w].set_reg(*d, lane, r);
                }
            }
            Kind::Mapa {
                d,
                a,
                rank,
                generic,
            } => {
                for lane in lanes(eff) {
                    let v = self.src_value(w, lane, *a);
                    let r = (self.src_value(w, lane, *rank) as u32).min(254);
                    let out = if *generic {
                        if (SHARED_GENERIC..SHARED_GENERIC + WINDOW).contains(&v) {
                            SHARED_GENERIC
                                + cluster_address(r, cta_offset((v - SHARED_GENERIC) as u32)) as u64
                        } else {
                            v
                        }
                    } else {
                        cluster_address(r, cta_offset(v as u32)) as u64
                    };
                    self.warps[w].set_reg(*d, lane, out);
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    #[allow(clippy::too_many_arguments)]
    fn load(
        &mut self,
        w: usize,
        eff: u32,
        pc: u32,
        space: Space,
        ty: MemTy,
        ds: &[u32],
        addr: Addr,
    ) -> Res<()> {
        let es = ty.bytes() as usize;
        let signed_widening = matches!(ty, MemTy::Int(it) if it.signed && ds.iter().any(|&d| d != SINK && self.prog.reg_bits[d as usize] > it.bits));
        let mut addrs = [0u64; 32];
        let total = (es * ds.len()) as u32;
        if !signed_widening
            && let Some(target) = self.fast_targets(w, eff, space, addr, total, false, &mut addrs)
        {
            let (bytes, base) = match target {
                FastTarget::Shared(cta) => {
                    if self.race.checking() {
                        for lane in lanes(eff) {
                            let t = w as u32 * 32 + lane as u32;
                            let off = addrs[lane] as u32 - SHARED_BASE;
                            self.race
                                .read(t, cta, off, total, pc)
                                .map_err(|c| self.race_report(c, cta, t, pc, false, true))?;
                        }
                    }
                    (&self.ctas[cta as usize].shared, SHARED_BASE as u64)
                }
                FastTarget::Global(index, base) => match &mut self.mem.global {
                    GlobalMem::Direct(g) => (&g.buffers[index].bytes, base),
                    GlobalMem::Open(_) => unreachable!("open memory has no buffers to find"),
                    GlobalMem::Overlay(o) => {
                        let mut buf = [0u8; 32];
                        let regs = &mut self.warps[w].regs;
                        for lane in lanes(eff) {
                            let offset = (addrs[lane] - base) as usize;
                            o.read(
                                GlobalLoc {
                                    buffer: index,
                                    offset,
                                },
                                &mut buf[..total as usize],
                            );
                            for (k, &d) in ds.iter().enumerate() {
                                if d != SINK {
                                    regs[d as usize * 32 + lane] =
                                        load_le(&buf[k * es..(k + 1) * es]);
                                }
                            }
                        }
                        // `buf` holds the last lane's bytes.
                        let lane = 31 - eff.leading_zeros() as usize;
                        return self.poll_global(w, pc, addrs[lane], &buf[..total as usize], 0);
                    }
                },
            };
            let regs = &mut self.warps[w].regs;
            for lane in lanes(eff) {
                let off = (addrs[lane] - base) as usize;
                for (k, &d) in ds.iter().enumerate() {
                    if d != SINK {
                        regs[d as usize * 32 + lane] =
                            load_le(&bytes[off + k * es..off + (k + 1) * es]);
                    }
                }
            }
            return Ok(());
        }
        let len = es * ds.len();
        let checking = self.race.checking();
        let mut buf = [0u8; 32];
        if space == Space::KernelParam
            && let Src::Imm(_) = addr.base
        {
            // `ld.param` at a fixed offset: the same bytes for every lane, resolved (with the
            // first lane's report if out of bounds, as lane by lane) and read once.
            let first = eff.trailing_zeros() as usize;
            let a = self.addr_value(w, first, addr);
            let t = self.resolve(w, first, pc, space, a, len as u32)?;
            self.read_bytes(w, t, len, &mut buf);
            for (k, &d) in ds.iter().enumerate() {
                if d == SINK {
                    continue;
                }
                let v = self.loaded(ty, d, load_le(&buf[k * es..(k + 1) * es]));
                for lane in lanes(eff) {
                    self.warps[w].set_reg(d, lane, v);
                }
            }
            return Ok(());
        }
        let mut polled = None;
        for lane in lanes(eff) {
            let a = self.addr_value(w, lane, addr);
            let t = self.resolve(w, lane, pc, space, a, len as u32)?;
            if polled.is_none() {
                polled = Some((a, matches!(t, Target::Global(_))));
            }
            if let Target::Shared { cta, off } = t
                && checking
            {
                let tid = w as u32 * 32 + lane as u32;
                self.race
                    .read(tid, cta, off, len as u32, pc)
                    .map_err(|c| self.race_report(c, cta, tid, pc, false, true))?;
            }
            self.read_bytes(w, t, len, &mut buf);
            for (k, &d) in ds.iter().enumerate() {
                if d == SINK {
                    continue;
                }
                let v = self.loaded(ty, d, load_le(&buf[k * es..(k + 1) * es]));
                self.warps[w].set_reg(d, lane, v);
            }
            if let Some((a, true)) = polled.take()
                && self.mem.global.speculative()
            {
                self.poll_global(w, pc, a, &buf[..len], 0)?;
            }
        }
        Ok(())
    }

    /// The value register `d` receives from `raw`, the bytes a load of `ty` read: a signed
    /// integer is sign-extended to the register's width.
    fn loaded(&self, ty: MemTy, d: u32, raw: u64) -> u64 {
        match ty {
            MemTy::Int(it) if it.signed => {
                let rb = self.prog.reg_bits[d as usize];
                let m = if rb >= 64 { u64::MAX } else { (1u64 << rb) - 1 };
                it.extend(raw) & m
            }
            _ => raw,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        w: usize,
        eff: u32,
        pc: u32,
        space: Space,
        ty: MemTy,
        vals: &[Src],
        addr: Addr,
    ) -> Res<()> {
        let es = ty.bytes() as usize;
        let len = es * vals.len();
        let checking = self.race.checking();
        if checking {
            self.race.next_store();
        }
        self.warps[w].effects += 1;
        let mut addrs = [0u64; 32];
        if let Some(target) = self.fast_targets(w, eff, space, addr, len as u32, true, &mut addrs) {
            let (bytes, base) = match target {
                FastTarget::Shared(cta) => {
                    if checking {
                        let mut buf = [0u8; 32];
                        for lane in lanes(eff) {
                            let t = w as u32 * 32 + lane as u32;
                            let off = addrs[lane] as u32 - SHARED_BASE;
                            self.lane_bytes(w, lane, vals, es, &mut buf);
                            if self.leaves_shared_unchanged(cta, off, &buf[..len]) {
                                continue;
                            }
                            self.race
                                .write(t, cta, off, len as u32, pc)
                                .map_err(|c| self.race_report(c, cta, t, pc, false, false))?;
                        }
                    }
                    (&mut self.ctas[cta as usize].shared, SHARED_BASE as u64)
                }
                FastTarget::Global(index, base) => match &mut self.mem.global {
                    GlobalMem::Direct(g) => (&mut g.buffers[index].bytes, base),
                    GlobalMem::Open(_) => unreachable!("open memory has no buffers to find"),
                    GlobalMem::Overlay(o) => {
                        let mut buf = [0u8; 32];
                        let regs = &self.warps[w].regs;
                        for lane in lanes(eff) {
                            let offset = (addrs[lane] - base) as usize;
                            for (k, v) in vals.iter().enumerate() {
                                let x = match *v {
                                    Src::Reg(r) => regs[r as usize * 32 + lane],
                                    Src::Imm(x) => x,
                                };
                                store_le(&mut buf[k * es..(k + 1) * es], x);
                            }
                            o.write(
                                GlobalLoc {
                                    buffer: index,
                                    offset,
                                },
                                &buf[..len],
                            );
                        }
                        return Ok(());
                    }
                },
            };
            let regs = &self.warps[w].regs;
            for lane in lanes(eff) {
                let off = (addrs[lane] - base) as usize;
                for (k, v) in vals.iter().enumerate() {
                    let x = match *v {
                        Src::Reg(r) => regs[r as usize * 32 + lane],
                        Src::Imm(x) => x,
                    };
                    store_le(&mut bytes[off + k * es..off + (k + 1) * es], x);
                }
            }
            return Ok(());
        }
        let mut buf = [0u8; 32];
        for lane in lanes(eff) {
            let a = self.addr_value(w, lane, addr);
            let t = self.resolve(w, lane, pc, space, a, len as u32)?;
            self.lane_bytes(w, lane, vals, es, &mut buf);
            if let Target::Shared { cta, off } = t
                && checking
                && !self.leaves_shared_unchanged(cta, off, &buf[..len])
            {
                let tid = w as u32 * 32 + lane as u32;
                self.race
                    .write(tid, cta, off, len as u32, pc)
                    .map_err(|c| self.race_report(c, cta, tid, pc, false, false))?;
            }
            self.write_bytes(w, lane, pc, t, &buf[..len])?;
        }
        Ok(())
    }

    /// The bytes lane `lane` of warp `w` stores: `vals`, `es` bytes each, little-endian.
    fn lane_bytes(&self, w: usize, lane: usize, vals: &[Src], es: usize, buf: &mut [u8; 32]) {
        for (k, v) in vals.iter().enumerate() {
            store_le(&mut buf[k * es..(k + 1) * es], self.src_value(w, lane, *v));
        }
    }

    /// Whether storing `bytes` at `off` (from the start of CTA `cta`'s shared memory, as the race
    /// detector counts) leaves it as an earlier store left it (shared memory starts undefined:
    /// a first store always changes it). Such a
    /// store is not given to the race detector: whether another thread's access comes before or
    /// after it, that thread sees the same bytes, so no order between them can be observed. Triton
    /// relies on this: every thread of a replicated layout stores the same value to one address
    /// (every warp of a layer-norm reduction writing back what it read, every thread of a
    /// warp-specialised kernel initialising one flag word). A store that changes memory is
    /// checked as before, and one that happens to store what is there under one schedule is
    /// checked under another.
    fn leaves_shared_unchanged(&mut self, cta: u32, off: u32, bytes: &[u8]) -> bool {
        let start = off as usize;
        self.ctas[cta as usize]
            .shared
            .get(start..start + bytes.len())
            .is_some_and(|now| now == bytes)
            && self.race.written(cta, off, bytes.len() as u32)
    }

    #[allow(clippy::too_many_arguments)]
    fn atomic(
        &mut self,
        w: usize,
        eff: u32,
        pc: u32,
        space: Space,
        op: AtomOp,
        ty: MemTy,
        d: u32,
        addr: Addr,
        a: Src,
        b: Src,
    ) -> Res<()> {
        let len = ty.bytes() as usize;
        self.warps[w].effects += 1;
        let mut buf = [0u8; 32];
        let mut polled = None;
        for lane in lanes(eff) {
            let at = self.addr_value(w, lane, addr);
            let t = self.resolve(w, lane, pc, space, at, len as u32)?;
            if matches!(
                t,
                Target::Local(_) | Target::KernelParam(_) | Target::Frame(_)
            ) {
                return Err(self.oob(
                    w,
                    lane,
                    pc,
                    "an atomic outside global and shared memory".into(),
                ));
            }
            self.read_bytes(w, t, len, &mut buf);
            let old = load_le(&buf[..len]);
            let x = self.src_value(w, lane, a);
            let y = self.src_value(w, lane, b);
            let new = atomic_value(op, ty, old, x, y);
            store_le(&mut buf[..len], new);
            self.write_bytes(w, lane, pc, t, &buf[..len])?;
            self.warps[w].set_reg(d, lane, old);
            if polled.is_none() {
                polled = Some((at, matches!(t, Target::Global(_)) && new == old, old));
            }
        }
        if let Some((at, true, old)) = polled
            && self.mem.global.speculative()
        {
            self.poll_global(w, pc, at, &old.to_le_bytes()[..len], 1)?;
        }
        Ok(())
    }

    /// A global load (or an atomic that left memory as it was) by warp `w` at `pc` of the
    /// address `a`, which read `value`, in a speculative run. A warp that keeps reading the
    /// same value at the same address and pc with no side effect in between polls: for a
    /// flag another cluster sets, maybe one that runs after this one in order. The
    /// speculative run gives up after [`SPIN_POLLS`] such reads and the cluster runs again in
    /// order, where the poll sees what its predecessors wrote (a flag of a successor spins there
    /// as in any sequential run, to the step limit). `own_effects`: the effects the operation
    /// itself counted.
    fn poll_global(
        &mut self,
        w: usize,
        pc: u32,
        a: u64,
        value: &[u8],
        own_effects: u64,
    ) -> Res<()> {
        if !self.mem.global.speculative() {
            return Ok(());
        }
        let warp = &mut self.warps[w];
        let v = load_le(&value[..value.len().min(8)]);
        let (sig, count) = &mut warp.spin;
        if *sig == (pc, a, v, warp.effects - own_effects) {
            *count += 1;
            if *count >= SPIN_POLLS {
                return Err(Stop::Abandon);
            }
        } else {
            *count = 0;
        }
        *sig = (pc, a, v, warp.effects);
        Ok(())
    }
}

/// The value an atomic operation leaves: `old` combined with `x` (and `y` for `cas`).
pub(crate) fn atomic_value(op: AtomOp, ty: MemTy, old: u64, x: u64, y: u64) -> u64 {
    match ty {
        MemTy::F32 => {
            let (o, v) = (f32::from_bits(old as u32), f32::from_bits(x as u32));
            match op {
                AtomOp::Add => (o + v).to_bits() as u64,
                AtomOp::Min => o.min(v).to_bits() as u64,
                AtomOp::Max => o.max(v).to_bits() as u64,
                AtomOp::Exch => x,
                AtomOp::Cas => {
                    if old as u32 == x as u32 {
                        y
                    } else {
                        old
                    }
                }
                _ => old,
            }
        }
        MemTy::F64 => {
            let (o, v) = (f64::from_bits(old), f64::from_bits(x));
            match op {
                AtomOp::Add => (o + v).to_bits(),
                AtomOp::Min => o.min(v).to_bits(),
                AtomOp::Max => o.max(v).to_bits(),
                AtomOp::Exch => x,
                AtomOp::Cas => {
                    if old == x {
                        y
                    } else {
                        old
                    }
                }
                _ => old,
            }
        }
        MemTy::Int(it) => {
            let m = it.mask();
            let (o, v) = (old & m, x & m);
            let lt = |p: u64, q: u64| {
                if it.signed {
                    (it.extend(p) as i64) < (it.extend(q) as i64)
                } else {
                    p < q
                }
            };
            match op {
                AtomOp::Add => o.wrapping_add(v) & m,
                AtomOp::Min => {
                    if lt(v, o) {
                        v
                    } else {
                        o
                    }
                }
                AtomOp::Max => {
                    if lt(o, v) {
                        v
                    } else {
                        o
                    }
                }
                AtomOp::Inc => {
                    if o >= v {
                        0
                    } else {
                        o + 1
                    }
                }
                AtomOp::Dec => {
                    if o == 0 || o > v {
                        v
                    } else {
                        o - 1
                    }
                }
                AtomOp::And => o & v,
                AtomOp::Or => o | v,
                AtomOp::Xor => o ^ v,
                AtomOp::Exch => v,
                AtomOp::Cas => {
                    if o == v {
                        y & m
                    } else {
                        o
                    }
                }
            }
        }
    }
}
