//! Register-to-register instructions, executed for all lanes of a group at once.
//!
//! Registers hold their value's bit pattern zero-extended to 64 bits; each result is masked to
//! the instruction type's width. The lane loops are generic over the operation so that each
//! (operation, type) pair gets its own tight loop.

use super::float;
use super::map::{fetch, map1, map2, map3};
use crate::decode::*;
use crate::state::lanes;

fn low_mask(n: u32) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

/// Executes a register-to-register op; `false` when `kind` is not one.
/// `carry` is the slot of the carry flag of `add.cc` and friends.
pub(super) fn exec(regs: &mut [u64], eff: u32, kind: &Kind, carry: usize) -> bool {
    match kind {
        Kind::Nop => {}
        Kind::Mov { d, a } => map1(regs, eff, *d, *a, |x| x),
        Kind::Int2 { op, ty, d, a, b } => int2(regs, eff, *op, *ty, *d, *a, *b, carry),
        Kind::Int1 { op, ty, d, a } => int1(regs, eff, *op, *ty, *d, *a),
        Kind::Int3 { op, ty, d, a, b, c } => int3(regs, eff, *op, *ty, *d, *a, *b, *c, carry),
        Kind::Setp {
            cmp,
            ty,
            d,
            dn,
            a,
            b,
            comb,
        } => float::setp(regs, eff, *cmp, *ty, *d, *dn, *a, *b, *comb),
        Kind::Selp { d, a, b, p } => map3(
            regs,
            eff,
            *d,
            *a,
            *b,
            *p,
            |x, y, p| if p != 0 { x } else { y },
        ),
        Kind::Float1 { .. } | Kind::Float2 { .. } | Kind::Fma { .. } | Kind::Cvt { .. } => {
            float::exec(regs, eff, kind)
        }
        Kind::Half(op) => super::half::exec(regs, eff, op),
        Kind::Bfi { ty, d, a, b, c, e } => {
            let bits = ty.bits as u32;
            let m = ty.mask();
            let av = fetch(regs, *a);
            let bv = fetch(regs, *b);
            let cv = fetch(regs, *c);
            let ev = fetch(regs, *e);
            if *d == SINK {
                return true;
            }
            for i in lanes(eff) {
                let pos = (cv[i] & 0xff) as u32;
                let len = (ev[i] & 0xff) as u32;
                let take = if pos >= bits { 0 } else { len.min(bits - pos) };
                let fm = if take == 0 { 0 } else { low_mask(take) << pos };
                regs[*d as usize * 32 + i] = ((bv[i] & !fm) | ((av[i] << pos.min(63)) & fm)) & m;
            }
        }
        Kind::Lop3 { d, a, b, c, lut } => {
            let lut = *lut;
            map3(regs, eff, *d, *a, *b, *c, move |x, y, z| {
                let mut r = 0u64;
                for i in 0..8 {
                    if lut >> i & 1 == 1 {
                        let ta = if i & 4 != 0 { x } else { !x };
                        let tb = if i & 2 != 0 { y } else { !y };
                        let tc = if i & 1 != 0 { z } else { !z };
                        r |= ta & tb & tc;
                    }
                }
                r & 0xffff_ffff
            })
        }
        Kind::Pack {
            d,
            parts,
            part_bits,
        } => {
            if *d == SINK {
                return true;
            }
            let pm = low_mask(*part_bits as u32);
            for i in lanes(eff) {
                let mut v = 0u64;
                for (k, p) in parts.iter().enumerate() {
                    let x = match p {
                        Src::Reg(r) => regs[*r as usize * 32 + i],
                        Src::Imm(x) => *x,
                    };
                    v |= (x & pm) << (k as u32 * *part_bits as u32);
                }
                regs[*d as usize * 32 + i] = v;
            }
        }
        Kind::Unpack { ds, a, part_bits } => {
            let pm = low_mask(*part_bits as u32);
            let av = fetch(regs, *a);
            for i in lanes(eff) {
                for (k, d) in ds.iter().enumerate() {
                    if *d != SINK {
                        regs[*d as usize * 32 + i] = (av[i] >> (k as u32 * *part_bits as u32)) & pm;
                    }
                }
            }
        }
        _ => return false,
    }
    true
}

fn int1(regs: &mut [u64], eff: u32, op: IntUn, ty: IntTy, d: u32, a: Src) {
    let m = ty.mask();
    let bits = ty.bits as u32;
    match op {
        IntUn::Not => map1(regs, eff, d, a, move |x| !x & m),
        IntUn::Cnot => map1(regs, eff, d, a, move |x| (x & m == 0) as u64),
        IntUn::Neg => map1(regs, eff, d, a, move |x| 0u64.wrapping_sub(x) & m),
        IntUn::Abs => map1(regs, eff, d, a, move |x| {
            (ty.extend(x) as i64).wrapping_abs() as u64 & m
        }),
        IntUn::Popc => map1(regs, eff, d, a, move |x| (x & m).count_ones() as u64),
        IntUn::Clz => map1(regs, eff, d, a, move |x| {
            ((x & m).leading_zeros() - (64 - bits)) as u64
        }),
        IntUn::Brev => map1(regs, eff, d, a, move |x| {
            (x & m).reverse_bits() >> (64 - bits)
        }),
    }
}

#[allow(clippy::too_many_arguments)]
fn int2(regs: &mut [u64], eff: u32, op: IntBin, ty: IntTy, d: u32, a: Src, b: Src, cs: usize) {
    let m = ty.mask();
    let bits = ty.bits as u32;
    let s = ty.signed;
    let ext = move |x: u64| ty.extend(x);
    match op {
        IntBin::Add => map2(regs, eff, d, a, b, move |x, y| x.wrapping_add(y) & m),
        IntBin::Sub => map2(regs, eff, d, a, b, move |x, y| x.wrapping_sub(y) & m),
        IntBin::MulLo => map2(regs, eff, d, a, b, move |x, y| x.wrapping_mul(y) & m),
        IntBin::MulHi => map2(regs, eff, d, a, b, move |x, y| {
            let p = if s {
                (ext(x) as i64 as i128 * ext(y) as i64 as i128) as u128
            } else {
                (x & m) as u128 * (y & m) as u128
            };
            (p >> bits) as u64 & m
        }),
        IntBin::MulWide => {
            let wm = low_mask(bits * 2);
            map2(regs, eff, d, a, b, move |x, y| {
                if s {
                    (ext(x) as i64).wrapping_mul(ext(y) as i64) as u64 & wm
                } else {
                    (x & m).wrapping_mul(y & m) & wm
                }
            })
        }
        IntBin::Mul24Lo => map2(regs, eff, d, a, b, move |x, y| {
            let f = |v: u64| {
                if s {
                    ((v << 40) as i64 >> 40) as u64
                } else {
                    v & 0xff_ffff
                }
            };
            f(x).wrapping_mul(f(y)) & 0xffff_ffff
        }),
        IntBin::Div => map2(regs, eff, d, a, b, move |x, y| {
            if y & m == 0 {
                m
            } else if s {
                (ext(x) as i64).wrapping_div(ext(y) as i64) as u64 & m
            } else {
                ((x & m) / (y & m)) & m
            }
        }),
        IntBin::Rem => map2(regs, eff, d, a, b, move |x, y| {
            if y & m == 0 {
                x & m
            } else if s {
                (ext(x) as i64).wrapping_rem(ext(y) as i64) as u64 & m
            } else {
                (x & m) % (y & m)
            }
        }),
        IntBin::Min => map2(regs, eff, d, a, b, move |x, y| {
            if s {
                (ext(x) as i64).min(ext(y) as i64) as u64 & m
            } else {
                (x & m).min(y & m)
            }
        }),
        IntBin::Max => map2(regs, eff, d, a, b, move |x, y| {
            if s {
                (ext(x) as i64).max(ext(y) as i64) as u64 & m
            } else {
                (x & m).max(y & m)
            }
        }),
        IntBin::And => map2(regs, eff, d, a, b, move |x, y| x & y & m),
        IntBin::Or => map2(regs, eff, d, a, b, move |x, y| (x | y) & m),
        IntBin::Xor => map2(regs, eff, d, a, b, move |x, y| (x ^ y) & m),
        IntBin::Shl => map2(regs, eff, d, a, b, move |x, y| {
            let y = y & 0xffff_ffff;
            if y >= bits as u64 { 0 } else { (x << y) & m }
        }),
        IntBin::Shr => map2(regs, eff, d, a, b, move |x, y| {
            let y = (y & 0xffff_ffff).min(bits as u64);
            if s {
                ((ext(x) as i64) >> y.min(63)) as u64 & m
            } else if y >= bits as u64 {
                0
            } else {
                (x & m) >> y
            }
        }),
        IntBin::AddSat => map2(regs, eff, d, a, b, move |x, y| {
            (x as u32 as i32).saturating_add(y as u32 as i32) as u32 as u64
        }),
        IntBin::SubSat => map2(regs, eff, d, a, b, move |x, y| {
            (x as u32 as i32).saturating_sub(y as u32 as i32) as u32 as u64
        }),
        IntBin::AddCarry {
            carry_in,
            carry_out,
        }
        | IntBin::SubCarry {
            carry_in,
            carry_out,
        } => {
            let sub = matches!(op, IntBin::SubCarry { .. });
            carry_op(
                regs,
                eff,
                d,
                a,
                b,
                m,
                cs,
                carry_in,
                carry_out,
                move |x, y, cin| {
                    if sub {
                        let r = (x as u128)
                            .wrapping_sub(y as u128)
                            .wrapping_sub(cin as u128);
                        (r as u64 & m, (x as u128) < (y as u128 + cin as u128))
                    } else {
                        let r = x as u128 + y as u128 + cin as u128;
                        (r as u64 & m, r > m as u128)
                    }
                },
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn carry_op(
    regs: &mut [u64],
    eff: u32,
    d: u32,
    a: Src,
    b: Src,
    m: u64,
    cs: usize,
    carry_in: bool,
    carry_out: bool,
    f: impl Fn(u64, u64, u64) -> (u64, bool),
) {
    let av = fetch(regs, a);
    let bv = fetch(regs, b);
    for i in lanes(eff) {
        let cin = if carry_in { regs[cs * 32 + i] & 1 } else { 0 };
        let (r, cout) = f(av[i] & m, bv[i] & m, cin);
        if d != SINK {
            regs[d as usize * 32 + i] = r;
        }
        if carry_out {
            regs[cs * 32 + i] = cout as u64;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn int3(
    regs: &mut [u64],
    eff: u32,
    op: IntTer,
    ty: IntTy,
    d: u32,
    a: Src,
    b: Src,
    c: Src,
    cs: usize,
) {
    let m = ty.mask();
    let bits = ty.bits as u32;
    let s = ty.signed;
    let ext = move |x: u64| ty.extend(x);
    let hi = move |x: u64, y: u64| -> u64 {
        let p = if s {
            (ext(x) as i64 as i128 * ext(y) as i64 as i128) as u128
        } else {
            (x & m) as u128 * (y & m) as u128
        };
        (p >> bits) as u64 & m
    };
    match op {
        IntTer::MadLo => map3(regs, eff, d, a, b, c, move |x, y, z| {
            x.wrapping_mul(y).wrapping_add(z) & m
        }),
        IntTer::MadHi => map3(regs, eff, d, a, b, c, move |x, y, z| {
            hi(x, y).wrapping_add(z) & m
        }),
        IntTer::MadWide => {
            let wm = low_mask(bits * 2);
            map3(regs, eff, d, a, b, c, move |x, y, z| {
                let p = if s {
                    (ext(x) as i64).wrapping_mul(ext(y) as i64) as u64
                } else {
                    (x & m).wrapping_mul(y & m)
                };
                p.wrapping_add(z) & wm
            })
        }
        IntTer::Mad24Lo => map3(regs, eff, d, a, b, c, move |x, y, z| {
            let f = |v: u64| {
                if s {
                    ((v << 40) as i64 >> 40) as u64
                } else {
                    v & 0xff_ffff
                }
            };
            f(x).wrapping_mul(f(y)).wrapping_add(z) & 0xffff_ffff
        }),
        IntTer::MadLoCarry {
            carry_in,
            carry_out,
        }
        | IntTer::MadHiCarry {
            carry_in,
            carry_out,
        } => {
            let high = matches!(op, IntTer::MadHiCarry { .. });
            let av = fetch(regs, a);
            let bv = fetch(regs, b);
            let cv = fetch(regs, c);
            for i in lanes(eff) {
                let cin = if carry_in { regs[cs * 32 + i] & 1 } else { 0 };
                let p = if high {
                    hi(av[i], bv[i])
                } else {
                    av[i].wrapping_mul(bv[i]) & m
                };
                let r = p as u128 + (cv[i] & m) as u128 + cin as u128;
                if d != SINK {
                    regs[d as usize * 32 + i] = r as u64 & m;
                }
                if carry_out {
                    regs[cs * 32 + i] = (r > m as u128) as u64;
                }
            }
        }
        IntTer::Bfe => map3(regs, eff, d, a, b, c, move |x, p, l| {
            let msb = bits - 1;
            let pos = (p & 0xff) as u32;
            let len = (l & 0xff) as u32;
            let sbit = if !s || len == 0 {
                0
            } else {
                (x >> (pos + len - 1).min(msb)) & 1
            };
            let take = if pos > msb { 0 } else { len.min(msb + 1 - pos) };
            let mut r = if take == 0 {
                0
            } else {
                (x >> pos) & low_mask(take)
            };
            if sbit == 1 {
                r |= !low_mask(take);
            }
            r & m
        }),
        IntTer::Prmt => map3(regs, eff, d, a, b, c, move |x, y, sel| {
            let t = (x & 0xffff_ffff) | ((y & 0xffff_ffff) << 32);
            let mut r = 0u64;
            for i in 0..4 {
                let n = (sel >> (4 * i)) & 0xf;
                let mut byte = (t >> (8 * (n & 7))) & 0xff;
                if n & 8 != 0 {
                    byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= byte << (8 * i);
            }
            r
        }),
        IntTer::Sad => map3(regs, eff, d, a, b, c, move |x, y, z| {
            let diff = if s {
                (ext(x) as i64).abs_diff(ext(y) as i64)
            } else {
                (x & m).abs_diff(y & m)
            };
            diff.wrapping_add(z) & m
        }),
        IntTer::PackSat { bits, signed } => {
            let bits = bits as u32;
            let (lo, hi) = if signed {
                (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
            } else {
                (0, (1i64 << bits) - 1)
            };
            let field = (1u64 << bits) - 1;
            let sat = move |x: u64| (x as u32 as i32 as i64).clamp(lo, hi) as u64 & field;
            map3(regs, eff, d, a, b, c, move |x, y, z| {
                (sat(y) | sat(x) << bits | z << (2 * bits)) & 0xffff_ffff
            })
        }
    }
}
