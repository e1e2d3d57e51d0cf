//! Integer, float, compare, select, convert and bit instructions.

use super::names::{FnCx, ValTy};
use super::ops::*;
use phasegate_ptx::{Instruction, Opcode, Operand, ScalarType};

/// The instruction's type modifiers in order (`cvt.rn.f32.s32` → `[f32, s32]`).
fn types(inst: &Instruction) -> Vec<ScalarType> {
    inst.modifiers
        .iter()
        .filter_map(|m| ScalarType::from_name(m))
        .collect()
}

pub(crate) fn int_ty(t: ScalarType) -> Option<IntTy> {
    use ScalarType as S;
    Some(match t {
        S::Pred => IntTy::PRED,
        S::B8 | S::U8 => IntTy {
            bits: 8,
            signed: false,
        },
        S::B16 | S::U16 => IntTy {
            bits: 16,
            signed: false,
        },
        S::B32 | S::U32 => IntTy {
            bits: 32,
            signed: false,
        },
        S::B64 | S::U64 => IntTy {
            bits: 64,
            signed: false,
        },
        S::S8 => IntTy {
            bits: 8,
            signed: true,
        },
        S::S16 => IntTy {
            bits: 16,
            signed: true,
        },
        S::S32 => IntTy {
            bits: 32,
            signed: true,
        },
        S::S64 => IntTy {
            bits: 64,
            signed: true,
        },
        _ => return None,
    })
}

fn float_ty(t: ScalarType) -> Option<FTy> {
    match t {
        ScalarType::F32 => Some(FTy::F32),
        ScalarType::F64 => Some(FTy::F64),
        _ => None,
    }
}

pub(crate) fn cvt_ty(t: ScalarType) -> Option<CvtTy> {
    match t {
        ScalarType::F16 => Some(CvtTy::F16),
        ScalarType::Bf16 => Some(CvtTy::Bf16),
        _ => float_ty(t)
            .map(CvtTy::Float)
            .or_else(|| int_ty(t).map(CvtTy::Int)),
    }
}

fn rounding(inst: &Instruction) -> Rnd {
    for m in &inst.modifiers {
        return match m.as_str() {
            "rn" => Rnd::Rn,
            "rz" => Rnd::Rz,
            "rm" => Rnd::Rm,
            "rp" => Rnd::Rp,
            "rni" => Rnd::Rni,
            "rzi" => Rnd::Rzi,
            "rmi" => Rnd::Rmi,
            "rpi" => Rnd::Rpi,
            _ => continue,
        };
    }
    Rnd::Default
}

/// Float arithmetic supports round-to-nearest only: other rounding modes would give wrong
/// results, so they are refused.
fn nearest_only(inst: &Instruction) -> Result<(), String> {
    match rounding(inst) {
        Rnd::Default | Rnd::Rn => Ok(()),
        _ => Err("directed rounding of float arithmetic is not supported".into()),
    }
}

fn operands<const N: usize>(inst: &Instruction) -> Result<&[Operand; N], String> {
    inst.operands
        .as_slice()
        .try_into()
        .map_err(|_| format!("expected {N} operands, found {}", inst.operands.len()))
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let name = inst.opcode.name().to_string();
    let tys = types(inst);
    let ty = *tys.last().ok_or_else(|| "no type modifier".to_string())?;
    let ftz = inst.has("ftz");
    let sat = inst.has("sat");
    match name.as_str() {
        "setp" => return setp(fcx, inst, ty),
        "selp" => {
            let [d, a, b, c] = operands::<4>(inst)?;
            let vt = ValTy::of_scalar(ty);
            return Ok(Kind::Selp {
                d: fcx.dst(d)?,
                a: fcx.src(a, vt)?,
                b: fcx.src(b, vt)?,
                p: fcx.src(c, ValTy::Pred)?,
            });
        }
        "cvt" if inst.has("pack") => return cvt_pack(fcx, inst, &tys),
        "cvt" => return cvt(fcx, inst, &tys),
        "lop3" => {
            let [d, a, b, c, lut] = operands::<5>(inst)?;
            let t = ValTy::Int(32);
            let lut =
                lut.as_int()
                    .ok_or("the lookup table of lop3 must be an immediate")? as u8;
            return Ok(Kind::Lop3 {
                d: fcx.dst(d)?,
                a: fcx.src(a, t)?,
                b: fcx.src(b, t)?,
                c: fcx.src(c, t)?,
                lut,
            });
        }
        "bfi" => {
            let it = int_ty(ty).ok_or("bfi needs an integer type")?;
            let [d, a, b, c, e] = operands::<5>(inst)?;
            let t = ValTy::of_int(it);
            let u = ValTy::Int(32);
            return Ok(Kind::Bfi {
                ty: it,
                d: fcx.dst(d)?,
                a: fcx.src(a, t)?,
                b: fcx.src(b, t)?,
                c: fcx.src(c, u)?,
                e: fcx.src(e, u)?,
            });
        }
        _ => {}
    }
    if let Some(ft) = float_ty(ty) {
        return float(fcx, inst, &name, ft, ftz, sat);
    }
    let it = int_ty(ty).ok_or_else(|| format!("type `.{ty}` is not supported"))?;
    let t = ValTy::of_int(it);
    let has = |m: &str| inst.has(m);
    let un = |op| -> Option<IntUn> { Some(op) };
    let unary = match name.as_str() {
        "not" => un(IntUn::Not),
        "cnot" => un(IntUn::Cnot),
        "neg" => un(IntUn::Neg),
        "abs" => un(IntUn::Abs),
        "popc" => un(IntUn::Popc),
        "clz" => un(IntUn::Clz),
        "brev" => un(IntUn::Brev),
        _ => None,
    };
    if let Some(op) = unary {
        let [d, a] = operands::<2>(inst)?;
        return Ok(Kind::Int1 {
            op,
            ty: it,
            d: fcx.dst(d)?,
            a: fcx.src(a, t)?,
        });
    }
    let cc = has("cc");
    let binary = match name.as_str() {
        "add" if cc => Some(IntBin::AddCarry {
            carry_in: false,
            carry_out: true,
        }),
        "addc" => Some(IntBin::AddCarry {
            carry_in: true,
            carry_out: cc,
        }),
        "sub" if cc => Some(IntBin::SubCarry {
            carry_in: false,
            carry_out: true,
        }),
        "subc" => Some(IntBin::SubCarry {
            carry_in: true,
            carry_out: cc,
        }),
        "add" if sat => Some(IntBin::AddSat),
        "sub" if sat => Some(IntBin::SubSat),
        "add" => Some(IntBin::Add),
        "sub" => Some(IntBin::Sub),
        "mul" if has("wide") => Some(IntBin::MulWide),
        "mul" if has("hi") => Some(IntBin::MulHi),
        "mul" => Some(IntBin::MulLo),
        "mul24" if has("lo") => Some(IntBin::Mul24Lo),
        "div" => Some(IntBin::Div),
        "rem" => Some(IntBin::Rem),
        "min" => Some(IntBin::Min),
        "max" => Some(IntBin::Max),
        "and" => Some(IntBin::And),
        "or" => Some(IntBin::Or),
        "xor" => Some(IntBin::Xor),
        "shl" => Some(IntBin::Shl),
        "shr" => Some(IntBin::Shr),
        _ => None,
    };
    if let Some(op) = binary {
        if matches!(op, IntBin::AddSat | IntBin::SubSat) && !(it.signed && it.bits == 32) {
            return Err(".sat integer arithmetic needs .s32".into());
        }
        let [d, a, b] = operands::<3>(inst)?;
        let bt = if matches!(op, IntBin::Shl | IntBin::Shr) {
            ValTy::Int(32)
        } else {
            t
        };
        let d = fcx.dst(d)?;
        let kind = Kind::Int2 {
            op,
            ty: it,
            d,
            a: fcx.src(a, t)?,
            b: fcx.src(b, bt)?,
        };
        if matches!(op, IntBin::AddCarry { .. } | IntBin::SubCarry { .. }) {
            fcx.carry();
        }
        return Ok(kind);
    }
    let ternary = match name.as_str() {
        "mad" if has("wide") => Some(IntTer::MadWide),
        "mad" if has("hi") && cc => Some(IntTer::MadHiCarry {
            carry_in: false,
            carry_out: true,
        }),
        "mad" if has("lo") && cc => Some(IntTer::MadLoCarry {
            carry_in: false,
            carry_out: true,
        }),
        "madc" if has("hi") => Some(IntTer::MadHiCarry {
            carry_in: true,
            carry_out: cc,
        }),
        "madc" => Some(IntTer::MadLoCarry {
            carry_in: true,
            carry_out: cc,
        }),
        "mad" if has("hi") => Some(IntTer::MadHi),
        "mad" if has("lo") => Some(IntTer::MadLo),
        "mad24" if has("lo") => Some(IntTer::Mad24Lo),
        "bfe" => Some(IntTer::Bfe),
        "prmt" if inst.modifiers.len() == 1 => Some(IntTer::Prmt),
        "sad" => Some(IntTer::Sad),
        _ => None,
    };
    if let Some(op) = ternary {
        let [d, a, b, c] = operands::<4>(inst)?;
        let (bt, ct) = match op {
            IntTer::Bfe => (ValTy::Int(32), ValTy::Int(32)),
            IntTer::MadWide => (t, ValTy::Int(it.bits.saturating_mul(2).min(64))),
            IntTer::Sad => (t, ValTy::Int(it.bits)),
            _ => (t, t),
        };
        let kind = Kind::Int3 {
            op,
            ty: it,
            d: fcx.dst(d)?,
            a: fcx.src(a, t)?,
            b: fcx.src(b, bt)?,
            c: fcx.src(c, ct)?,
        };
        if matches!(op, IntTer::MadLoCarry { .. } | IntTer::MadHiCarry { .. }) {
            fcx.carry();
        }
        return Ok(kind);
    }
    if inst.opcode == Opcode::Other("testp".into()) {
        return Err("testp is not supported".into());
    }
    Err(format!(
        "`{}` is not an instruction the simulator knows",
        inst.full_name()
    ))
}

fn float(
    fcx: &mut FnCx,
    inst: &Instruction,
    name: &str,
    ty: FTy,
    ftz: bool,
    sat: bool,
) -> Result<Kind, String> {
    let t = ValTy::of_float(ty);
    let unary = match name {
        "neg" => Some(FUn::Neg),
        "abs" => Some(FUn::Abs),
        "sqrt" => Some(FUn::Sqrt),
        "rsqrt" => Some(FUn::Rsqrt),
        "rcp" => Some(FUn::Rcp),
        "ex2" => Some(FUn::Ex2),
        "lg2" => Some(FUn::Lg2),
        "sin" => Some(FUn::Sin),
        "cos" => Some(FUn::Cos),
        "tanh" => Some(FUn::Tanh),
        _ => None,
    };
    if let Some(op) = unary {
        if !inst.has("approx") {
            nearest_only(inst)?;
        }
        let [d, a] = operands::<2>(inst)?;
        return Ok(Kind::Float1 {
            op,
            ty,
            d: fcx.dst(d)?,
            a: fcx.src(a, t)?,
            ftz,
            sat,
        });
    }
    let binary = match name {
        "add" => Some(FBin::Add),
        "sub" => Some(FBin::Sub),
        "mul" => Some(FBin::Mul),
        "div" => Some(FBin::Div),
        "min" => Some(FBin::Min),
        "max" => Some(FBin::Max),
        "copysign" => Some(FBin::Copysign),
        _ => None,
    };
    if let Some(mut op) = binary {
        if inst.has("xorsign") || inst.has("abs") || inst.has("relu") {
            return Err("min/max variants .xorsign, .abs, .relu are not supported".into());
        }
        if inst.has("NaN") {
            op = match op {
                FBin::Min => FBin::MinNaN,
                FBin::Max => FBin::MaxNaN,
                _ => return Err(".NaN is a qualifier of min and max".into()),
            };
        }
        if op != FBin::Div || !(inst.has("approx") || inst.has("full")) {
            nearest_only(inst)?;
        }
        let [d, a, b] = operands::<3>(inst)?;
        return Ok(Kind::Float2 {
            op,
            ty,
            d: fcx.dst(d)?,
            a: fcx.src(a, t)?,
            b: fcx.src(b, t)?,
            ftz,
            sat,
        });
    }
    if name == "fma" || name == "mad" {
        nearest_only(inst)?;
        if name == "mad" && !matches!(rounding(inst), Rnd::Rn) && ty == FTy::F64 {
            return Err("mad.f64 needs a rounding modifier".into());
        }
        let [d, a, b, c] = operands::<4>(inst)?;
        return Ok(Kind::Fma {
            ty,
            d: fcx.dst(d)?,
            a: fcx.src(a, t)?,
            b: fcx.src(b, t)?,
            c: fcx.src(c, t)?,
            ftz,
            sat,
        });
    }
    Err(format!(
        "`{}` is not a float instruction the simulator knows",
        inst.full_name()
    ))
}

fn setp(fcx: &mut FnCx, inst: &Instruction, ty: ScalarType) -> Result<Kind, String> {
    let cty = cvt_ty(ty).ok_or_else(|| format!("setp on `.{ty}` is not supported"))?;
    if matches!(cty, CvtTy::F16 | CvtTy::Bf16) {
        return Err("setp on half-precision values is not supported".into());
    }
    let is_float = matches!(cty, CvtTy::Float(_));
    let mut cmp = None;
    let mut comb = None;
    for m in &inst.modifiers {
        let c = match m.as_str() {
            "eq" => Some(Cmp::Eq),
            "ne" => Some(Cmp::Ne),
            "lt" | "lo" => Some(Cmp::Lt),
            "le" | "ls" => Some(Cmp::Le),
            "gt" | "hi" => Some(Cmp::Gt),
            "ge" | "hs" => Some(Cmp::Ge),
            "equ" if is_float => Some(Cmp::Equ),
            "neu" if is_float => Some(Cmp::Neu),
            "ltu" if is_float => Some(Cmp::Ltu),
            "leu" if is_float => Some(Cmp::Leu),
            "gtu" if is_float => Some(Cmp::Gtu),
            "geu" if is_float => Some(Cmp::Geu),
            "num" if is_float => Some(Cmp::Num),
            "nan" if is_float => Some(Cmp::Nan),
            "and" => {
                comb = Some(BoolOp::And);
                None
            }
            "or" => {
                comb = Some(BoolOp::Or);
                None
            }
            "xor" => {
                comb = Some(BoolOp::Xor);
                None
            }
            _ => None,
        };
        if c.is_some() && cmp.is_none() {
            cmp = c;
        }
    }
    let cmp = cmp.ok_or("setp without a comparison")?;
    // Unsigned comparison names (lo, hs, ...) force an unsigned view of the operands.
    let unsigned_names = inst
        .modifiers
        .iter()
        .any(|m| matches!(m.as_str(), "lo" | "ls" | "hi" | "hs"));
    let cty = match cty {
        CvtTy::Int(mut it) if unsigned_names => {
            it.signed = false;
            CvtTy::Int(it)
        }
        other => other,
    };
    let vt = ValTy::of_scalar(ty);
    let (dest, rest) = inst.operands.split_first().ok_or("setp without operands")?;
    let (d, dn) = match dest {
        Operand::Pair(p, q) => (fcx.dst(p)?, fcx.dst(q)?),
        other => (fcx.dst(other)?, SINK),
    };
    match (rest, comb) {
        ([a, b], None) => Ok(Kind::Setp {
            cmp,
            ty: cty,
            d,
            dn,
            a: fcx.src(a, vt)?,
            b: fcx.src(b, vt)?,
            comb: None,
        }),
        ([a, b, c], Some(op)) => {
            let (p, neg) = fcx.pred(c)?;
            Ok(Kind::Setp {
                cmp,
                ty: cty,
                d,
                dn,
                a: fcx.src(a, vt)?,
                b: fcx.src(b, vt)?,
                comb: Some((op, p, neg)),
            })
        }
        _ => Err("unexpected operands of setp".into()),
    }
}

/// `cvt.pack.sat.convertType.s32{.b32} d, a, b{, c}` (see [`IntTer::PackSat`]).
fn cvt_pack(fcx: &mut FnCx, inst: &Instruction, tys: &[ScalarType]) -> Result<Kind, String> {
    use phasegate_ptx::ScalarType as S;
    let (bits, signed) = match tys.first() {
        Some(S::U8) => (8, false),
        Some(S::S8) => (8, true),
        Some(S::U16) => (16, false),
        Some(S::S16) => (16, true),
        Some(other) => return Err(format!("cvt.pack to `.{other}` is not supported")),
        None => return Err("cvt.pack needs a destination type".into()),
    };
    if !inst.has("sat") || tys.get(1) != Some(&S::S32) {
        return Err("cvt.pack is .sat from .s32".into());
    }
    let i32t = ValTy::Int(32);
    let (d, a, b, c) = match inst.operands.as_slice() {
        [d, a, b] if bits == 16 => (d, a, b, None),
        [d, a, b, c] if bits == 8 => (d, a, b, Some(c)),
        _ => return Err("cvt.pack: 3 operands for .u16/.s16, 4 for .u8/.s8".into()),
    };
    Ok(Kind::Int3 {
        op: IntTer::PackSat { bits, signed },
        ty: IntTy {
            bits: 32,
            signed: false,
        },
        d: fcx.dst(d)?,
        a: fcx.src(a, i32t)?,
        b: fcx.src(b, i32t)?,
        c: match c {
            Some(c) => fcx.src(c, i32t)?,
            None => Src::Imm(0),
        },
    })
}

fn cvt(fcx: &mut FnCx, inst: &Instruction, tys: &[ScalarType]) -> Result<Kind, String> {
    let [to, from] = tys else {
        return Err("cvt needs a destination and a source type".into());
    };
    if inst.has("relu") || inst.has("satfinite") {
        return Err("cvt .relu/.satfinite are not supported".into());
    }
    let to_c = cvt_ty(*to).ok_or_else(|| format!("cvt to `.{to}` is not supported"))?;
    let from_c = cvt_ty(*from).ok_or_else(|| format!("cvt from `.{from}` is not supported"))?;
    let rnd = rounding(inst);
    let to_float = matches!(to_c, CvtTy::Float(_) | CvtTy::F16 | CvtTy::Bf16);
    let from_float = matches!(from_c, CvtTy::Float(_) | CvtTy::F16 | CvtTy::Bf16);
    // Only the rounding modes whose results the simulator computes exactly.
    let ok = match (from_float, to_float) {
        (false, false) => matches!(rnd, Rnd::Default),
        (true, false) => true,
        (false, true) => matches!(rnd, Rnd::Default | Rnd::Rn),
        (true, true) => {
            let widening = matches!(
                (from_c, to_c),
                (CvtTy::Float(FTy::F32), CvtTy::Float(FTy::F64))
                    | (CvtTy::F16 | CvtTy::Bf16, CvtTy::Float(_))
            );
            let same = from_c == to_c;
            widening
                || (same
                    && matches!(
                        rnd,
                        Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi | Rnd::Default
                    ))
                || matches!(rnd, Rnd::Default | Rnd::Rn)
        }
    };
    if !ok {
        return Err(format!(
            "this rounding of `{}` is not supported",
            inst.full_name()
        ));
    }
    let [d, a] = operands::<2>(inst)?;
    let a = fcx.src(a, ValTy::of_scalar(*from))?;
    Ok(Kind::Cvt {
        d: fcx.dst(d)?,
        a,
        from: from_c,
        to: to_c,
        rnd,
        sat: inst.has("sat"),
        ftz: inst.has("ftz"),
    })
}
