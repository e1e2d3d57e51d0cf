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

#[inline(always)]
pub(super) fn map1(regs: &mut [u64], mask: u32, d: u32, a: Src, f: impl Fn(u64) -> u64) {
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
    each(regs, mask, d, |r, i| {
        f(val(r, a, i), val(r, b, i), val(r, c, i))
    })
}
