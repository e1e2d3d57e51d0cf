//! The op of a tensor-map instruction ([`TmaOp`]), which `decode::tma` decodes and
//! `exec::tma` executes.

use super::parts::{Addr, AtomOp, Space, Src};
use crate::tensormap::Field;

/// One tensor-map instruction (boxed in [`Kind::Tma`](super::Kind::Tma)).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TmaOp {
    /// `cp.async.bulk.tensor.Nd.{shared::cluster,shared::cta}.global{.tile}
    /// .mbarrier::complete_tx::bytes{.multicast::cluster}{.L2::cache_hint} [dst], [map,
    /// {coords}], [mbar]{, ctaMask}{, policy}`: `dst` and `mbar` are `.shared::cluster`
    /// addresses (`.shared::cta` ones with `cta_only`).
    Load {
        rank: u8,
        dst: Addr,
        map: Addr,
        coords: Vec<Src>,
        mbar: Addr,
        mask: Option<Src>,
        cta_only: bool,
    },
    /// `cp{.reduce}.async.bulk.tensor.Nd.global.shared::cta{.op}{.tile}.bulk_group [map,
    /// {coords}], [src]{, policy}`.
    Store {
        rank: u8,
        map: Addr,
        coords: Vec<Src>,
        src: Addr,
        reduce: Option<AtomOp>,
    },
    /// `tensormap.replace.tile.FIELD{.space}.b1024.bN [addr], {ord,} value`; `space` is
    /// `Global`, `Shared` or `Generic`.
    Replace {
        field: Field,
        space: Space,
        addr: Addr,
        value: Src,
    },
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.SCOPE
    /// .sync.aligned [dst], [src], 128`.
    CopyFenceProxy { dst: Addr, src: Addr },
    /// `fence.proxy.tensormap::generic.{release,acquire}.SCOPE {[addr], 128}`.
    Fence { addr: Option<Addr> },
    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 N`.
    SetMaxNReg { inc: bool, regs: u32 },
}

impl TmaOp {
    /// `.sync.aligned` instructions: the warp executes them convergently.
    pub(crate) fn is_aligned(&self) -> bool {
        matches!(
            self,
            TmaOp::CopyFenceProxy { .. } | TmaOp::SetMaxNReg { .. }
        )
    }
}
