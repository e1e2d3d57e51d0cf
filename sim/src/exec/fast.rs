//! The fast path of loads and stores: a whole group in the executing CTA's shared memory or in
//! one global buffer, in bounds and aligned, checked once per group.

use crate::decode::{Addr, Space, Src};
use crate::machine::Machine;
use crate::memory::{LOCAL_GENERIC, SHARED_BASE, SHARED_GENERIC, WINDOW};
use crate::state::lanes;

/// Where a whole group's accesses land (see [`Machine::fast_targets`]).
#[derive(Clone, Copy, Debug)]
pub(super) enum FastTarget {
    Shared(u32),
    /// Buffer index and base address.
    Global(usize, u64),
}

impl Machine<'_> {
    /// Where a group's accesses land when they need none of the checks of [`Machine::resolve`]
    /// to fail: all lanes in the executing CTA's shared memory (with no mbarrier there), or all
    /// in one global buffer, in bounds and aligned. `None` sends the group to the full path,
    /// which reports any fault with its context.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fast_targets(
        &self,
        w: usize,
        eff: u32,
        space: Space,
        addr: Addr,
        len: u32,
        write: bool,
        addrs: &mut [u64; 32],
    ) -> Option<FastTarget> {
        let warp = &self.warps[w];
        let whole = eff == u32::MAX;
        match addr.base {
            Src::Reg(r) => {
                let row: &[u64; 32] = warp.regs[r as usize * 32..r as usize * 32 + 32]
                    .try_into()
                    .expect("a register's row");
                if whole {
                    for (a, &x) in addrs.iter_mut().zip(row) {
                        *a = x.wrapping_add(addr.offset as u64);
                    }
                } else {
                    for lane in lanes(eff) {
                        addrs[lane] = row[lane].wrapping_add(addr.offset as u64);
                    }
                }
            }
            Src::Imm(v) => addrs.fill(v.wrapping_add(addr.offset as u64)),
        }
        let len64 = len as u64;
        let first = addrs[eff.trailing_zeros() as usize];
        // A power of two: a mask, not a division per lane.
        let align = len64.min(16).next_power_of_two();
        let aligned = |a: u64| a & (align - 1) == 0;
        let shared = match space {
            Space::Shared => true,
            Space::Global => false,
            Space::Generic if (SHARED_GENERIC..SHARED_GENERIC + WINDOW).contains(&first) => {
                return None;
            }
            Space::Generic if (LOCAL_GENERIC..LOCAL_GENERIC + WINDOW).contains(&first) => {
                return None;
            }
            Space::Generic => false,
            _ => return None,
        };
        if shared {
            let cta = &self.ctas[warp.cta as usize];
            let (lo, hi) = (
                SHARED_BASE as u64,
                SHARED_BASE as u64 + self.shape.shared_bytes as u64,
            );
            if !every(eff, addrs, |a| {
                (a >= lo) & (a.saturating_add(len64) <= hi) & aligned(a)
            }) {
                return None;
            }
            if cta.mbar_slots.iter().any(|s| *s != 0)
                && lanes(eff).any(|l| cta.holds_mbarrier(addrs[l] as u32, len).is_some())
            {
                return None;
            }
            return Some(FastTarget::Shared(warp.cta));
        }
        let buffers = self.mem.global.buffers();
        let index = buffers
            .partition_point(|b| b.base <= first)
            .checked_sub(1)?;
        let b = &buffers[index];
        let end = b.base + b.bytes.len() as u64;
        if (write && b.read_only)
            || !every(eff, addrs, |a| {
                (a >= b.base) & (a.saturating_add(len64) <= end) & aligned(a)
            })
        {
            return None;
        }
        Some(FastTarget::Global(index, b.base))
    }
}

/// Whether `ok` holds for the address of every lane of `eff`: a whole warp's in one pass
/// without early exits (which the compiler can vectorise), a partial group's lane by lane.
#[inline(always)]
fn every(eff: u32, addrs: &[u64; 32], ok: impl Fn(u64) -> bool) -> bool {
    if eff == u32::MAX {
        addrs.iter().fold(true, |all, &a| all & ok(a))
    } else {
        lanes(eff).all(|l| ok(addrs[l]))
    }
}
