//! The transfer functions: the uniformity of a definition from its operands (affine `%tid.x`
//! tracking, granules, loads, votes, shuffles, `bar.red`).

use super::*;

impl Uniformity {
    pub(super) fn operand_uval(
        &self,
        stmt: StmtId,
        op: &Operand,
        yz: Level,
        vars: &Vars,
    ) -> Option<(UVal, Option<Why>)> {
        match op {
            Operand::Reg(name) => match vars.resolve(stmt, name) {
                Some(Src::Var(v)) => {
                    let val = self.use_val(stmt, v)?;
                    Some((val, Some(Why::From { var: v, stmt })))
                }
                Some(Src::Special(s)) => Some((
                    special_uval(&s, yz),
                    Some(Why::Special {
                        name: s.to_string(),
                        stmt,
                    }),
                )),
                None => None,
            },
            Operand::Address(a) => match &a.base {
                AddressBase::Reg(r) => self
                    .operand_uval(stmt, &Operand::Reg(r.clone()), yz, vars)
                    .map(|(mut v, w)| {
                        if let Affine::Tid(Some(o)) = v.affine {
                            v.affine = Affine::Tid(Some(o.wrapping_add(a.offset)));
                        }
                        (v, w)
                    }),
                _ => Some((UVal::CLUSTER, None)),
            },
            Operand::Not(inner) => self.operand_uval(stmt, inner, yz, vars),
            Operand::Vector(items) | Operand::List(items) => {
                let mut acc: Option<(UVal, Option<Why>)> = Some((UVal::CLUSTER, None));
                for it in items {
                    let x = self.operand_uval(stmt, it, yz, vars);
                    acc = match (acc, x) {
                        (Some((a, wa)), Some((b, wb))) => Some(if b.level > a.level {
                            (a.join(b), wb)
                        } else {
                            (a.join(b), wa)
                        }),
                        _ => None,
                    };
                }
                acc
            }
            _ => Some((UVal::CLUSTER, None)),
        }
    }

    /// The uniformity of definition number `di` of an instruction, from its operands.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn transfer(
        &self,
        id: StmtId,
        inst: &Instruction,
        di: usize,
        params: &[&str],
        yz: Level,
        vars: &Vars,
        consts: &Consts,
    ) -> (UVal, Why) {
        let ops = &inst.operands;
        let nd = crate::regs::dest_count(inst);
        let srcs = &ops[nd.min(ops.len())..];
        // Generic: the join of the sources.
        let generic = |this: &Uniformity| -> Option<(UVal, Why)> {
            let mut acc = UVal::CLUSTER;
            let mut why = Why::Op {
                stmt: id,
                what: "a value",
            };
            for op in srcs {
                let (v, w) = this.operand_uval(id, op, yz, vars)?;
                if v.level > acc.level
                    && let Some(w) = w
                {
                    why = w;
                }
                acc = acc.join(v);
            }
            let mut out = acc;
            out.affine = Affine::No;
            Some((out.normal(), why))
        };
        let op_is_const = |i: usize| {
            ops.get(i)
                .and_then(|o| consts.operand(id, o, vars).as_const())
        };
        let thread = |what: &'static str| (UVal::THREAD, Why::Op { stmt: id, what });
        let bottom = (
            UVal::CLUSTER,
            Why::Op {
                stmt: id,
                what: "a value",
            },
        );
        let get = |i: usize| ops.get(i).and_then(|o| self.operand_uval(id, o, yz, vars));
        match &inst.opcode {
            Opcode::Atom => thread("the result of an atomic"),
            Opcode::Call => thread("the result of a call"),
            Opcode::Mbarrier => thread("the result of an mbarrier operation"),
            Opcode::Ld => {
                let Some((addr, w)) = get(1) else {
                    return bottom;
                };
                let why = w.unwrap_or(Why::Op {
                    stmt: id,
                    what: "a load",
                });
                if inst.has("param") {
                    // A kernel parameter is uniform; a `.param` declared in the body holds what a
                    // call returned.
                    let sym = match ops.get(1) {
                        Some(Operand::Address(a)) => match &a.base {
                            AddressBase::Symbol(s) => Some(s.as_str()),
                            _ => None,
                        },
                        _ => None,
                    };
                    return match sym {
                        Some(s) if params.contains(&s) => (UVal::CLUSTER, why),
                        Some(_) => thread("a value returned by a call"),
                        None => (addr, why),
                    };
                }
                if inst.has("local") {
                    return thread("a load from local memory");
                }
                let mut v = addr;
                v.affine = Affine::No;
                if inst.modifiers.iter().any(|m| m.starts_with("shared")) {
                    v = v.join(UVal::CTA);
                }
                (v.normal(), why)
            }
            Opcode::Bar | Opcode::Barrier if inst.has("red") => {
                // `bar.red.op d, a{, b}, {!}c`: the same result in every participating thread.
                if ops.len() >= 4 {
                    (
                        UVal::WARP,
                        Why::Op {
                            stmt: id,
                            what: "a bar.red with a thread count",
                        },
                    )
                } else {
                    (
                        UVal::CTA,
                        Why::Op {
                            stmt: id,
                            what: "the result of bar.red",
                        },
                    )
                }
            }
            Opcode::Vote => {
                if inst.has("ballot") || inst.has("all") || inst.has("any") || inst.has("uni") {
                    match generic(self) {
                        Some((g, w)) if g.level <= Level::Warp => (g, w),
                        Some(_) => (
                            UVal::WARP,
                            Why::Op {
                                stmt: id,
                                what: "a warp vote",
                            },
                        ),
                        None => bottom,
                    }
                } else {
                    generic(self).unwrap_or(bottom)
                }
            }
            Opcode::Shfl => {
                // `shfl.sync.MODE.b32 d{|p}, a, b, c, membermask`: `d` is some lane's `a`.
                let value = get(nd);
                // `idx` with a warp-uniform source lane and no sub-warp segments (`c`'s segment
                // mask, bits 8..12, is 0) reads one lane for the whole warp: a broadcast, such as
                // CUTLASS's `canonical_warp_group_idx()` (`__shfl_sync(~0, x, 0)`).
                let broadcast = inst.has("idx")
                    && get(nd + 1).is_some_and(|(lane, _)| lane.level <= Level::Warp)
                    && op_is_const(nd + 2).is_some_and(|c| c & 0x1f00 == 0);
                match value {
                    // Every lane holds the same `a`, so any lane's is the same value.
                    Some((v, w)) if di == 0 && v.level <= Level::Warp => {
                        let mut out = v;
                        out.affine = Affine::No;
                        (
                            out.normal(),
                            w.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a shuffle of a uniform value",
                            }),
                        )
                    }
                    _ if broadcast => (
                        UVal::WARP,
                        Why::Op {
                            stmt: id,
                            what: "a warp broadcast",
                        },
                    ),
                    _ => thread("a warp shuffle"),
                }
            }
            Opcode::Elect => {
                if di == 0 && matches!(ops.first(), Some(Operand::Pair(..))) {
                    (
                        UVal::WARP,
                        Why::Op {
                            stmt: id,
                            what: "elect.sync",
                        },
                    )
                } else {
                    thread("the predicate of elect.sync (true in one thread)")
                }
            }
            Opcode::Other(name) if name == "activemask" || name == "redux" => (
                UVal::WARP,
                Why::Op {
                    stmt: id,
                    what: "a warp-wide operation",
                },
            ),
            Opcode::Other(name) if name == "match" => thread("a match.sync"),
            Opcode::Mov | Opcode::Cvt | Opcode::Cvta => {
                if srcs.len() == 1 {
                    match get(nd) {
                        Some((v, w)) => (
                            v,
                            w.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a copy",
                            }),
                        ),
                        None => bottom,
                    }
                } else {
                    generic(self).unwrap_or(bottom)
                }
            }
            Opcode::Add | Opcode::Sub if srcs.len() == 2 => {
                let (Some((a, wa)), Some((b, wb))) = (get(nd), get(nd + 1)) else {
                    return bottom;
                };
                let ca = op_is_const(nd);
                let cb = op_is_const(nd + 1);
                let sub = inst.opcode == Opcode::Sub;
                match (a.affine, b.affine) {
                    (Affine::Tid(off), Affine::No) if b.level <= Level::Cta => {
                        let off = match (off, cb) {
                            (Some(o), Some(c)) => Some(if sub {
                                o.wrapping_sub(c)
                            } else {
                                o.wrapping_add(c)
                            }),
                            _ => None,
                        };
                        (
                            UVal {
                                level: Level::Thread,
                                gran: 0,
                                affine: Affine::Tid(off),
                            },
                            wa.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a value",
                            }),
                        )
                    }
                    (Affine::No, Affine::Tid(off)) if a.level <= Level::Cta && !sub => {
                        let off = match (off, ca) {
                            (Some(o), Some(c)) => Some(o.wrapping_add(c)),
                            _ => None,
                        };
                        (
                            UVal {
                                level: Level::Thread,
                                gran: 0,
                                affine: Affine::Tid(off),
                            },
                            wb.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a value",
                            }),
                        )
                    }
                    _ => generic(self).unwrap_or(bottom),
                }
            }
            Opcode::Shr | Opcode::Div
                if srcs.len() == 2 && !inst.has("s32") && !inst.has("s64") =>
            {
                let Some((a, wa)) = get(nd) else {
                    return bottom;
                };
                let k = op_is_const(nd + 1).and_then(|c| {
                    if inst.opcode == Opcode::Div {
                        (c > 0 && (c as u64).is_power_of_two()).then(|| c.trailing_zeros())
                    } else {
                        u32::try_from(c).ok()
                    }
                });
                match (a.affine, k) {
                    (Affine::Tid(Some(off)), Some(k))
                        if k < 63 && off.rem_euclid(1i64 << k) == 0 =>
                    {
                        (
                            UVal::gran(k),
                            wa.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a value",
                            }),
                        )
                    }
                    _ => generic(self).unwrap_or(bottom),
                }
            }
            Opcode::And if srcs.len() == 2 => {
                let (Some((a, wa)), Some((b, wb))) = (get(nd), get(nd + 1)) else {
                    return bottom;
                };
                let (tid, mask, w) = match (a.affine, b.affine) {
                    (Affine::Tid(off), _) => (off, op_is_const(nd + 1), wa),
                    (_, Affine::Tid(off)) => (off, op_is_const(nd), wb),
                    _ => return generic(self).unwrap_or(bottom),
                };
                match (tid, mask) {
                    (Some(off), Some(m)) => {
                        let k = (m as u64).trailing_zeros().min(62);
                        if off.rem_euclid(1i64 << k) == 0 {
                            (
                                UVal::gran(k),
                                w.unwrap_or(Why::Op {
                                    stmt: id,
                                    what: "a value",
                                }),
                            )
                        } else {
                            generic(self).unwrap_or(bottom)
                        }
                    }
                    _ => generic(self).unwrap_or(bottom),
                }
            }
            Opcode::Bfe if srcs.len() == 3 && inst.has("u32") => {
                let Some((a, wa)) = get(nd) else {
                    return bottom;
                };
                match (a.affine, op_is_const(nd + 1)) {
                    (Affine::Tid(Some(off)), Some(pos))
                        if (0..32).contains(&pos) && off.rem_euclid(1i64 << pos) == 0 =>
                    {
                        (
                            UVal::gran(pos as u32),
                            wa.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a value",
                            }),
                        )
                    }
                    _ => generic(self).unwrap_or(bottom),
                }
            }
            Opcode::Setp if srcs.len() == 2 => {
                let (Some((a, wa)), Some((b, wb))) = (get(nd), get(nd + 1)) else {
                    return bottom;
                };
                let Some(cmp) = Cmp::from_modifiers(inst) else {
                    return generic(self).unwrap_or(bottom);
                };
                let unsigned = inst
                    .modifiers
                    .iter()
                    .any(|m| m.starts_with('u') || m.starts_with('b'));
                let (off, k, cmp, w) = match (a.affine, b.affine) {
                    (Affine::Tid(off), Affine::No) => (off, op_is_const(nd + 1), cmp, wa),
                    (Affine::No, Affine::Tid(off)) => (off, op_is_const(nd), cmp.swap(), wb),
                    _ => return generic(self).unwrap_or(bottom),
                };
                let (Some(off), Some(k)) = (off, k) else {
                    return generic(self).unwrap_or(bottom);
                };
                let boundary = match cmp {
                    Cmp::Lt | Cmp::Ge => k.wrapping_sub(off),
                    Cmp::Le | Cmp::Gt => k.wrapping_add(1).wrapping_sub(off),
                    Cmp::Eq | Cmp::Ne => {
                        return (
                            UVal::THREAD,
                            w.unwrap_or(Why::Op {
                                stmt: id,
                                what: "a comparison",
                            }),
                        );
                    }
                };
                let tz = |x: i64| {
                    if x == 0 {
                        62
                    } else {
                        x.trailing_zeros().min(62)
                    }
                };
                let mut g = if boundary <= 0 && !unsigned {
                    62
                } else {
                    tz(boundary)
                };
                if unsigned && off < 0 {
                    g = g.min(tz(off.wrapping_neg()));
                }
                let v = if g >= 62 {
                    UVal::gran(62)
                } else {
                    UVal::gran(g)
                };
                (
                    v,
                    w.unwrap_or(Why::Op {
                        stmt: id,
                        what: "a comparison",
                    }),
                )
            }
            _ => generic(self).unwrap_or(bottom),
        }
    }
}
