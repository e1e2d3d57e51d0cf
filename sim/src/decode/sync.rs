//! Barriers, mbarriers, asynchronous copies, fences and warp collectives.

use super::mem::space_of;
use super::names::{FnCx, ValTy};
use super::ops::*;
use phasegate_ptx::{Instruction, Opcode, Operand, ScalarType};

fn addr(fcx: &mut FnCx, op: &Operand) -> Result<Addr, String> {
    let (a, sym) = fcx.address(op)?;
    match sym {
        None | Some(Space::Shared) => Ok(a),
        Some(Space::Global) => Ok(a),
        Some(other) => Err(format!(
            "an address in {other:?} space is not supported here"
        )),
    }
}

/// Like [`addr`], but a shared symbol used with generic addressing gets its generic address.
fn addr_in(fcx: &mut FnCx, op: &Operand, space: Space) -> Result<Addr, String> {
    let (mut a, sym) = fcx.address(op)?;
    if space == Space::Generic
        && sym == Some(Space::Shared)
        && let Src::Imm(base) = &mut a.base
    {
        *base += crate::memory::SHARED_GENERIC;
    }
    Ok(a)
}

fn u32_src(fcx: &mut FnCx, op: &Operand) -> Result<Src, String> {
    fcx.src(op, ValTy::Int(32))
}

pub(crate) fn decode(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    let ops = inst.operands.as_slice();
    match &inst.opcode {
        Opcode::Bar | Opcode::Barrier if m("warp") => {
            let [mask] = ops else {
                return Err("bar.warp.sync takes a member mask".into());
            };
            Ok(Kind::WarpSync {
                mask: u32_src(fcx, mask)?,
            })
        }
        Opcode::Barrier if m("cluster") => {
            if m("arrive") {
                Ok(Kind::ClusterArrive {
                    relaxed: m("relaxed"),
                    aligned: m("aligned"),
                })
            } else if m("wait") {
                Ok(Kind::ClusterWait {
                    aligned: m("aligned"),
                })
            } else {
                Err("barrier.cluster needs .arrive or .wait".into())
            }
        }
        Opcode::Bar | Opcode::Barrier => named_barrier(fcx, inst),
        Opcode::Mbarrier => mbarrier(fcx, inst),
        Opcode::Cp => copy(fcx, inst),
        Opcode::Fence if m("tensormap::generic") => super::tma::decode(fcx, inst),
        Opcode::Fence => {
            let kind = if m("proxy") && m("async") {
                FenceKind::ProxyAsync
            } else if m("mbarrier_init") {
                FenceKind::MbarrierInit
            } else if m("sc") || m("acq_rel") || m("acquire") || m("release") {
                FenceKind::Ordering
            } else {
                FenceKind::Other
            };
            Ok(Kind::Fence(kind))
        }
        Opcode::Membar => Ok(Kind::Fence(FenceKind::Ordering)),
        Opcode::Nanosleep => Ok(Kind::Nanosleep),
        Opcode::Shfl => {
            if !m("sync") {
                return Err("shfl without .sync is not supported".into());
            }
            let mode = if m("up") {
                ShflMode::Up
            } else if m("down") {
                ShflMode::Down
            } else if m("bfly") {
                ShflMode::Bfly
            } else if m("idx") {
                ShflMode::Idx
            } else {
                return Err("shfl.sync needs a mode".into());
            };
            let [d, a, b, c, mask] = ops else {
                return Err("shfl.sync takes five operands".into());
            };
            let (d, dp) = match d {
                Operand::Pair(x, y) => (fcx.dst(x)?, fcx.dst(y)?),
                other => (fcx.dst(other)?, SINK),
            };
            Ok(Kind::Shfl {
                mode,
                d,
                dp,
                a: u32_src(fcx, a)?,
                b: u32_src(fcx, b)?,
                c: u32_src(fcx, c)?,
                mask: u32_src(fcx, mask)?,
            })
        }
        Opcode::Vote => {
            if !m("sync") {
                return Err("vote without .sync is not supported".into());
            }
            let mode = if m("all") {
                VoteMode::All
            } else if m("any") {
                VoteMode::Any
            } else if m("uni") {
                VoteMode::Uni
            } else if m("ballot") {
                VoteMode::Ballot
            } else {
                return Err("vote.sync needs a mode".into());
            };
            let [d, a, mask] = ops else {
                return Err("vote.sync takes three operands".into());
            };
            let (a, neg) = fcx.pred(a)?;
            Ok(Kind::Vote {
                mode,
                d: fcx.dst(d)?,
                a,
                neg,
                mask: u32_src(fcx, mask)?,
            })
        }
        Opcode::Elect => {
            let [d, mask] = ops else {
                return Err("elect.sync takes two operands".into());
            };
            let (d, dp) = match d {
                Operand::Pair(x, y) => (fcx.dst(x)?, fcx.dst(y)?),
                other => (fcx.dst(other)?, SINK),
            };
            Ok(Kind::Elect {
                d,
                dp,
                mask: u32_src(fcx, mask)?,
            })
        }
        Opcode::Other(name) if name == "activemask" => {
            let [d] = ops else {
                return Err("activemask takes one operand".into());
            };
            Ok(Kind::Activemask { d: fcx.dst(d)? })
        }
        Opcode::Other(name) if name == "redux" => {
            let op = inst
                .modifiers
                .iter()
                .find_map(|x| match x.as_str() {
                    "add" => Some(AtomOp::Add),
                    "min" => Some(AtomOp::Min),
                    "max" => Some(AtomOp::Max),
                    "and" => Some(AtomOp::And),
                    "or" => Some(AtomOp::Or),
                    "xor" => Some(AtomOp::Xor),
                    _ => None,
                })
                .ok_or("redux.sync needs an operation")?;
            let ty = IntTy {
                bits: 32,
                signed: m("s32"),
            };
            if m("f32") {
                return Err("redux.sync on f32 is not supported".into());
            }
            let [d, a, mask] = ops else {
                return Err("redux.sync takes three operands".into());
            };
            Ok(Kind::Redux {
                op,
                ty,
                d: fcx.dst(d)?,
                a: u32_src(fcx, a)?,
                mask: u32_src(fcx, mask)?,
            })
        }
        Opcode::Other(name) if name.starts_with("prefetch") || name == "pmevent" => Ok(Kind::Nop),
        _ => Err("not a synchronisation instruction".into()),
    }
}

fn named_barrier(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    // `bar` is always aligned; `barrier` only with `.aligned`.
    let aligned = inst.opcode == Opcode::Bar || m("aligned");
    let action = if m("sync") {
        BarAction::Sync
    } else if m("arrive") {
        BarAction::Arrive
    } else if m("red") {
        if m("popc") {
            BarAction::RedPopc
        } else if m("and") {
            BarAction::RedAnd
        } else if m("or") {
            BarAction::RedOr
        } else {
            return Err("bar.red needs .popc, .and or .or".into());
        }
    } else {
        return Err("bar needs .sync, .arrive or .red".into());
    };
    let ops = inst.operands.as_slice();
    if action.is_red() {
        let (d, rest) = ops.split_first().ok_or("bar.red without operands")?;
        let d = fcx.dst(d)?;
        let (id, count, c) = match rest {
            [a, c] => (a, None, c),
            [a, b, c] => (a, Some(b), c),
            _ => {
                return Err(
                    "bar.red takes a destination, a barrier, an optional count and a predicate"
                        .into(),
                );
            }
        };
        let id = u32_src(fcx, id)?;
        let count = count.map(|b| u32_src(fcx, b)).transpose()?;
        let pred = Some(fcx.pred(c)?);
        return Ok(Kind::Bar {
            action,
            id,
            count,
            aligned,
            d,
            pred,
        });
    }
    let (id, count) = match ops {
        [a] => (a, None),
        [a, b] => (a, Some(b)),
        _ => return Err("bar takes a barrier and an optional thread count".into()),
    };
    if action == BarAction::Arrive && count.is_none() {
        return Err("bar.arrive requires a thread count (§9.7.13.1)".into());
    }
    let id = u32_src(fcx, id)?;
    let count = count.map(|b| u32_src(fcx, b)).transpose()?;
    Ok(Kind::Bar {
        action,
        id,
        count,
        aligned,
        d: SINK,
        pred: None,
    })
}

fn mbarrier(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    let space = match space_of(inst) {
        None => Space::Generic,
        Some(Space::Shared) => Space::Shared,
        Some(Space::SharedCluster) => Space::SharedCluster,
        Some(other) => return Err(format!("mbarrier in {other:?} space")),
    };
    let ops = inst.operands.as_slice();
    if m("pending_count") {
        let [d, state] = ops else {
            return Err("mbarrier.pending_count takes two operands".into());
        };
        return Ok(Kind::MbarPendingCount {
            d: fcx.dst(d)?,
            state: fcx.src(state, ValTy::Int(64))?,
        });
    }
    let op = if m("init") {
        MbarOp::Init
    } else if m("inval") {
        MbarOp::Inval
    } else if m("arrive") || m("arrive_drop") {
        MbarOp::Arrive {
            drop: m("arrive_drop"),
            expect_tx: m("expect_tx"),
            no_complete: m("noComplete"),
        }
    } else if m("expect_tx") {
        MbarOp::ExpectTx
    } else if m("complete_tx") {
        MbarOp::CompleteTx
    } else if m("test_wait") {
        MbarOp::TestWait {
            parity: m("parity"),
            relaxed: m("relaxed"),
        }
    } else if m("try_wait") {
        MbarOp::TryWait {
            parity: m("parity"),
            relaxed: m("relaxed"),
        }
    } else {
        return Err("unknown mbarrier operation".into());
    };
    let (d, rest) = match op {
        MbarOp::Init | MbarOp::Inval | MbarOp::ExpectTx | MbarOp::CompleteTx => (SINK, ops),
        _ => {
            let (d, rest) = ops.split_first().ok_or("mbarrier without operands")?;
            (fcx.dst(d)?, rest)
        }
    };
    let (a, extra) = rest.split_first().ok_or("mbarrier without an address")?;
    let addr = addr_in(fcx, a, space)?;
    let a = match (op, extra) {
        (MbarOp::Inval, []) => None,
        (
            MbarOp::Arrive {
                expect_tx: false,
                no_complete: false,
                ..
            },
            [],
        ) => None,
        (
            MbarOp::Arrive {
                no_complete: true, ..
            },
            [],
        ) => return Err(".noComplete needs a count".into()),
        (MbarOp::Init | MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Arrive { .. }, [x]) => {
            Some(u32_src(fcx, x)?)
        }
        (MbarOp::TestWait { parity, .. } | MbarOp::TryWait { parity, .. }, [x, hint @ ..])
            if hint.len() <= 1 =>
        {
            Some(if parity {
                u32_src(fcx, x)?
            } else {
                fcx.src(x, ValTy::Int(64))?
            })
        }
        _ => return Err("unexpected operands of the mbarrier instruction".into()),
    };
    if matches!(
        op,
        MbarOp::TestWait { .. } | MbarOp::TryWait { .. } | MbarOp::Init | MbarOp::Inval
    ) && space == Space::SharedCluster
    {
        return Err(format!(
            "mbarrier {op:?} on .shared::cluster is not supported by PTX (§9.7.13.15.8)"
        ));
    }
    Ok(Kind::Mbar {
        op,
        space,
        d,
        addr,
        a,
    })
}

/// The operation and element type of `cp.reduce.async.bulk`: `.and/.or/.xor` on `.b32/.b64`,
/// `.add/.inc/.dec/.min/.max` on the integer types, `.add/.min/.max` on `.f32/.f64`.
fn bulk_reduction(inst: &Instruction) -> Result<(AtomOp, MemTy), String> {
    let op = super::mem::atom_op(inst)
        .filter(|op| !matches!(op, AtomOp::Exch | AtomOp::Cas))
        .ok_or(
            "cp.reduce.async.bulk without a reduction (.and .or .xor .add .inc .dec .min .max)",
        )?;
    let ty = inst
        .scalar_type()
        .ok_or("cp.reduce.async.bulk without an element type")?;
    if matches!(ty, ScalarType::F16 | ScalarType::Bf16) || inst.has("noftz") {
        return Err("cp.reduce.async.bulk on .f16/.bf16 is not supported".into());
    }
    let t = super::mem::mem_ty(ty)?;
    let float = matches!(t, MemTy::F32 | MemTy::F64);
    if (float && !matches!(op, AtomOp::Add | AtomOp::Min | AtomOp::Max))
        || !matches!(ty.size(), 4 | 8)
    {
        return Err(format!(
            "cp.reduce.async.bulk has no form with this operation on .{ty}"
        ));
    }
    Ok((op, t))
}

fn copy(fcx: &mut FnCx, inst: &Instruction) -> Result<Kind, String> {
    let m = |s: &str| inst.has(s);
    let ops = inst.operands.as_slice();
    if !m("async") {
        return Err("cp without .async is not supported".into());
    }
    if m("prefetch") {
        // `cp.async.bulk.prefetch{.tensor}.L2`: a hint to bring global memory into L2, with no
        // effect on what any thread reads or writes; like `prefetch`, nothing to simulate.
        return Ok(Kind::Nop);
    }
    if m("tensor") {
        return super::tma::decode(fcx, inst);
    }
    let reduce = if m("reduce") {
        Some(bulk_reduction(inst)?)
    } else {
        None
    };
    if m("bulk") {
        if m("commit_group") {
            return Ok(Kind::BulkCommit);
        }
        if m("wait_group") {
            let [n] = ops else {
                return Err("wait_group takes a count".into());
            };
            let n = n
                .as_int()
                .ok_or("the count of wait_group must be an immediate")? as u32;
            return Ok(Kind::BulkWait { n, read: m("read") });
        }
        if m("mbarrier::complete_tx::bytes") {
            let src_shared = m("shared::cta") && !inst.modifiers.iter().any(|x| x == "global");
            let multicast = m("multicast::cluster");
            if multicast && src_shared {
                return Err(".multicast::cluster copies from global memory only".into());
            }
            let (dst, src, size, mbar, mask) = match (ops, multicast) {
                ([dst, src, size, mbar], false) => (dst, src, size, mbar, None),
                ([dst, src, size, mbar, mask], true) if !m("L2::cache_hint") => (dst, src, size, mbar, Some(u32_src(fcx, mask)?)),
                (_, true) => return Err(".multicast::cluster takes [dst], [src], size, [mbar], ctaMask (cache hints are not supported)".into()),
                (_, false) => return Err("bulk copy with cache hints or masks is not supported".into()),
            };
            if reduce.is_some() && !src_shared {
                return Err("cp.reduce.async.bulk into shared memory reads .shared::cta".into());
            }
            return Ok(Kind::BulkLoad {
                dst: addr(fcx, dst)?,
                src: addr(fcx, src)?,
                src_shared,
                size: u32_src(fcx, size)?,
                mbar: addr(fcx, mbar)?,
                mask,
                reduce,
            });
        }
        if m("bulk_group") && m("global") {
            let [dst, src, size] = ops else {
                return Err("bulk copy with cache hints or masks is not supported".into());
            };
            return Ok(Kind::BulkStore {
                dst: addr(fcx, dst)?,
                src: addr(fcx, src)?,
                size: u32_src(fcx, size)?,
                reduce,
            });
        }
        return Err("this form of cp.async.bulk is not supported".into());
    }
    if m("mbarrier") && m("arrive") {
        let [a] = ops else {
            return Err("cp.async.mbarrier.arrive takes an address".into());
        };
        let space = if space_of(inst).is_some() {
            Space::Shared
        } else {
            Space::Generic
        };
        return Ok(Kind::CpAsyncMbarArrive {
            addr: addr_in(fcx, a, space)?,
            space,
            noinc: m("noinc"),
        });
    }
    if m("commit_group") {
        return Ok(Kind::CpAsyncCommit);
    }
    if m("wait_group") {
        let [n] = ops else {
            return Err("wait_group takes a count".into());
        };
        return Ok(Kind::CpAsyncWait {
            n: Some(
                n.as_int()
                    .ok_or("the count of wait_group must be an immediate")? as u32,
            ),
        });
    }
    if m("wait_all") {
        return Ok(Kind::CpAsyncWait { n: None });
    }
    if m("ca") || m("cg") {
        let (dst, src, size, rest) = match ops {
            [d, s, n, rest @ ..] => (d, s, n, rest),
            _ => return Err("cp.async takes a destination, a source and a size".into()),
        };
        let cp_size = size.as_int().ok_or("cp-size must be an immediate")? as u32;
        if !matches!(cp_size, 4 | 8 | 16) || (m("cg") && cp_size != 16) {
            return Err(format!("cp-size {cp_size} is not 4, 8 or 16 (16 for .cg)"));
        }
        let src_size = match rest {
            [] => None,
            [s] if !m("L2::cache_hint") => Some(u32_src(fcx, s)?),
            _ => {
                return Err(
                    "cp.async with an ignore-src predicate or cache policy is not supported".into(),
                );
            }
        };
        return Ok(Kind::CpAsync {
            dst: addr(fcx, dst)?,
            src: addr(fcx, src)?,
            cp_size,
            src_size,
        });
    }
    Err("this form of cp.async is not supported".into())
}
