//! The lane loops of register-to-register instructions: an operation applied to every lane
//! of a group at once, sources resolved outside the loop (`alu`, `float` and `half` use them).

use crate::decode::{SINK, Src};
use crate::state::lanes;

#[inline(always)]
pub(super) fn fetch(regs: &[u64], s: Src) -> [u64; 32] {
    match s {
        Src::Reg(r) => {
            let r = r as usize * 32;
            regs[r..r + 32].try_into().expect("row")
        }
        Src::Imm(v) => [v; 32],
    }
}

#[inline(always)]
fn val(regs: &[u64], s: Src, i: usize) -> u64 {
    match s {
        Src::Reg(r) => regs[r as usize * 32 + i],
        Src::Imm(v) => v,
    }
}

/// Applies `f` to every lane of `mask`, reading sources and writing `d` in place (a
/// destination may be one of the sources: each lane reads before it writes).
#[inline(always)]
fn each(regs: &mut [u64], mask: u32, d: u32, f: impl Fn(&[u64], usize) -> u64) {
    if d == SINK {
        return;
    }
    let row = d as usize * 32;
    assert!(row + 32 <= regs.len());
    if mask == u32::MAX {
        for i in 0..32 {
            regs[row + i] = f(regs, i);
        }
    } else {
        for i in lanes(mask) {
            regs[row + i] = f(regs, i);
        }
    }
}

/// A source's 32 lanes in a whole-warp loop ([`Rows`]): a register's row, or an immediate.
trait Lanes: Copy {
    fn at(self, i: usize) -> u64;
}

impl Lanes for &[u64; 32] {
    #[inline(always)]
    fn at(self, i: usize) -> u64 {
        self[i]
    }
}

/// An immediate operand: the same value in every lane.
#[derive(Clone, Copy)]
struct Splat(u64);

impl Lanes for Splat {
    #[inline(always)]
    fn at(self, _: usize) -> u64 {
        self.0
    }
}

/// The register file split around a destination row that no source names: the row to write,
/// and the rows before and after it to read. A whole-warp loop over them reads and writes
/// arrays the compiler knows apart, with no bounds check per lane (and vector instructions
/// where the operation allows); in place, with the destination possibly a source, it could
/// only go lane by lane.
struct Rows<'a> {
    d: usize,
    lo: &'a [[u64; 32]],
    dst: &'a mut [u64; 32],
    hi: &'a [[u64; 32]],
}

impl<'a> Rows<'a> {
    /// `None` when `d` is the sink or one of `srcs` (those keep [`each`]).
    #[inline(always)]
    fn split(regs: &'a mut [u64], d: u32, srcs: &[Src]) -> Option<Rows<'a>> {
        if d == SINK || srcs.contains(&Src::Reg(d)) {
            return None;
        }
        let d = d as usize;
        let (rows, _) = regs.as_chunks_mut::<32>();
        let (lo, rest) = rows.split_at_mut(d);
        let (dst, hi) = rest.split_first_mut().expect("the destination's row");
        Some(Rows { d, lo, dst, hi })
    }

    /// Register `r`'s row (not the destination's).
    #[inline(always)]
    fn row(&self, r: u32) -> &'a [u64; 32] {
        let r = r as usize;
        let (lo, hi): (&'a [[u64; 32]], &'a [[u64; 32]]) = (self.lo, self.hi);
        if r < self.d {
            &lo[r]
        } else {
            &hi[r - self.d - 1]
        }
    }
}

#[inline(always)]
fn lanes1(dst: &mut [u64; 32], a: impl Lanes, f: impl Fn(u64) -> u64) {
    for (i, o) in dst.iter_mut().enumerate() {
        *o = f(a.at(i));
    }
}

#[inline(always)]
fn lanes2(dst: &mut [u64; 32], a: impl Lanes, b: impl Lanes, f: impl Fn(u64, u64) -> u64) {
    for (i, o) in dst.iter_mut().enumerate() {
        *o = f(a.at(i), b.at(i));
    }
}

#[inline(always)]
fn lanes3(
    dst: &mut [u64; 32],
    a: impl Lanes,
    b: impl Lanes,
    c: impl Lanes,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    for (i, o) in dst.iter_mut().enumerate() {
        *o = f(a.at(i), b.at(i), c.at(i));
    }
}

#[inline(always)]
pub(super) fn map1(regs: &mut [u64], mask: u32, d: u32, a: Src, f: impl Fn(u64) -> u64) {
    if mask == u32::MAX
        && let Some(rows) = Rows::split(regs, d, &[a])
    {
        return match a {
            Src::Reg(x) => {
                let x = rows.row(x);
                lanes1(rows.dst, x, f)
            }
            Src::Imm(v) => lanes1(rows.dst, Splat(v), f),
        };
    }
    match a {
        Src::Reg(x) => {
            let x = x as usize * 32;
            each(regs, mask, d, |r, i| f(r[x + i]))
        }
        Src::Imm(v) => each(regs, mask, d, |_, _| f(v)),
    }
}

/// Sources are resolved outside the lane loop, so each combination gets its own tight loop.
#[inline(always)]
pub(super) fn map2(
    regs: &mut [u64],
    mask: u32,
    d: u32,
    a: Src,
    b: Src,
    f: impl Fn(u64, u64) -> u64,
) {
    if mask == u32::MAX
        && let Some(rows) = Rows::split(regs, d, &[a, b])
    {
        let r = |s: Src| match s {
            Src::Reg(x) => Ok(rows.row(x)),
            Src::Imm(v) => Err(Splat(v)),
        };
        let (ra, rb) = (r(a), r(b));
        let dst = rows.dst;
        return match (ra, rb) {
            (Ok(x), Ok(y)) => lanes2(dst, x, y, f),
            (Ok(x), Err(v)) => lanes2(dst, x, v, f),
            (Err(u), Ok(y)) => lanes2(dst, u, y, f),
            (Err(u), Err(v)) => lanes2(dst, u, v, f),
        };
    }
    match (a, b) {
        (Src::Reg(x), Src::Reg(y)) => {
            let (x, y) = (x as usize * 32, y as usize * 32);
            each(regs, mask, d, |r, i| f(r[x + i], r[y + i]))
        }
        (Src::Reg(x), Src::Imm(v)) => {
            let x = x as usize * 32;
            each(regs, mask, d, |r, i| f(r[x + i], v))
        }
        (Src::Imm(u), Src::Reg(y)) => {
            let y = y as usize * 32;
            each(regs, mask, d, |r, i| f(u, r[y + i]))
        }
        (Src::Imm(u), Src::Imm(v)) => each(regs, mask, d, |_, _| f(u, v)),
    }
}

#[inline(always)]
pub(super) fn map3(
    regs: &mut [u64],
    mask: u32,
    d: u32,
    a: Src,
    b: Src,
    c: Src,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    if mask == u32::MAX
        && let Some(rows) = Rows::split(regs, d, &[a, b, c])
    {
        let r = |s: Src| match s {
            Src::Reg(x) => Ok(rows.row(x)),
            Src::Imm(v) => Err(Splat(v)),
        };
        let (ra, rb, rc) = (r(a), r(b), r(c));
        let dst = rows.dst;
        return match (ra, rb, rc) {
            (Ok(x), Ok(y), Ok(z)) => lanes3(dst, x, y, z, f),
            (Ok(x), Ok(y), Err(z)) => lanes3(dst, x, y, z, f),
            (Ok(x), Err(y), Ok(z)) => lanes3(dst, x, y, z, f),
            (Ok(x), Err(y), Err(z)) => lanes3(dst, x, y, z, f),
            (Err(x), Ok(y), Ok(z)) => lanes3(dst, x, y, z, f),
            (Err(x), Ok(y), Err(z)) => lanes3(dst, x, y, z, f),
            (Err(x), Err(y), Ok(z)) => lanes3(dst, x, y, z, f),
            (Err(x), Err(y), Err(z)) => lanes3(dst, x, y, z, f),
        };
    }
    each(regs, mask, d, |r, i| {
        f(val(r, a, i), val(r, b, i), val(r, c, i))
    })
}
