//! The compact form the simulator executes: one [`Op`] per PTX instruction, with register
//! indices, resolved labels and symbols, and the instruction's type folded into the variant.
//!
//! Every register of every function reachable from the entry has its own slot (functions
//! do not recurse, see `decode::calls`), so a call needs no register save area.

mod half;
mod parts;
mod tensor;
mod tma;

pub(crate) use half::{Fmt, HArith, HalfOp};
pub(crate) use parts::*;
pub(crate) use tensor::{Elem, Mma, TensorOp, Wgmma, WgmmaA, frag_regs};
pub(crate) use tma::TmaOp;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    Nop,
    Mov {
        d: u32,
        a: Src,
    },
    /// `mov.b64 d, {a, b}`: `parts` from least to most significant.
    Pack {
        d: u32,
        parts: Vec<Src>,
        part_bits: u8,
    },
    /// `mov.b64 {a, b}, d`.
    Unpack {
        ds: Vec<u32>,
        a: Src,
        part_bits: u8,
    },
    Int1 {
        op: IntUn,
        ty: IntTy,
        d: u32,
        a: Src,
    },
    Int2 {
        op: IntBin,
        ty: IntTy,
        d: u32,
        a: Src,
        b: Src,
    },
    Int3 {
        op: IntTer,
        ty: IntTy,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
    },
    Bfi {
        ty: IntTy,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        e: Src,
    },
    Lop3 {
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        lut: u8,
    },
    Float1 {
        op: FUn,
        ty: FTy,
        d: u32,
        a: Src,
        ftz: bool,
        sat: bool,
    },
    Float2 {
        op: FBin,
        ty: FTy,
        d: u32,
        a: Src,
        b: Src,
        ftz: bool,
        sat: bool,
    },
    Fma {
        ty: FTy,
        d: u32,
        a: Src,
        b: Src,
        c: Src,
        ftz: bool,
        sat: bool,
    },
    Setp {
        cmp: Cmp,
        ty: CvtTy,
        d: u32,
        dn: u32,
        a: Src,
        b: Src,
        comb: Option<(BoolOp, Src, bool)>,
    },
    Selp {
        d: u32,
        a: Src,
        b: Src,
        p: Src,
    },
    Cvt {
        d: u32,
        a: Src,
        from: CvtTy,
        to: CvtTy,
        rnd: Rnd,
        sat: bool,
        ftz: bool,
    },
    /// Reads `%clock`, `%clock64` or `%globaltimer`: the simulated time.
    Clock {
        d: u32,
    },
    Ld {
        space: Space,
        ty: MemTy,
        ds: Vec<u32>,
        addr: Addr,
    },
    St {
        space: Space,
        ty: MemTy,
        vals: Vec<Src>,
        addr: Addr,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: MemTy,
        d: u32,
        addr: Addr,
        a: Src,
        b: Src,
    },
    /// `cvta.{space}` (`to_generic`) or `cvta.to.{space}`.
    Cvta {
        d: u32,
        a: Src,
        space: Space,
        to_generic: bool,
        bits: u8,
    },
    Mapa {
        d: u32,
        a: Src,
        rank: Src,
        generic: bool,
    },
    Bra {
        target: u32,
    },
    Call {
        entry: u32,
        args: Vec<ParamCopy>,
        ret: Option<ParamCopy>,
    },
    Ret,
    Exit,
    Trap,
    Nanosleep,
    Fence(FenceKind),
    Bar {
        action: BarAction,
        id: Src,
        count: Option<Src>,
        aligned: bool,
        d: u32,
        pred: Option<(Src, bool)>,
    },
    ClusterArrive {
        relaxed: bool,
        aligned: bool,
    },
    ClusterWait {
        aligned: bool,
    },
    /// `space` is `Shared`, `SharedCluster` or `Generic`.
    Mbar {
        op: MbarOp,
        space: Space,
        d: u32,
        addr: Addr,
        a: Option<Src>,
    },
    MbarPendingCount {
        d: u32,
        state: Src,
    },
    /// `cp.async.bulk.shared::cluster.{global,shared::cta}.mbarrier::complete_tx::bytes
    /// [dst], [src], size, [mbar]{, ctaMask}`: `dst` and `mbar` are `.shared::cluster`
    /// addresses; with `.multicast::cluster` (from global only), `mask` names the destination
    /// CTAs by rank.
    /// `reduce`: `cp.reduce.async.bulk` (from `.shared::cta` only), combining each element into
    /// the destination's instead of copying it.
    BulkLoad {
        dst: Addr,
        src: Addr,
        src_shared: bool,
        size: Src,
        mbar: Addr,
        mask: Option<Src>,
        reduce: Option<(AtomOp, MemTy)>,
    },
    /// `cp{.reduce}.async.bulk.global.shared::cta.bulk_group [dst], [src], size`.
    BulkStore {
        dst: Addr,
        src: Addr,
        size: Src,
        reduce: Option<(AtomOp, MemTy)>,
    },
    BulkCommit,
    BulkWait {
        n: u32,
        read: bool,
    },
    /// `cp.async.{ca,cg}.shared.global [dst], [src], cp_size{, src_size}`.
    CpAsync {
        dst: Addr,
        src: Addr,
        cp_size: u32,
        src_size: Option<Src>,
    },
    CpAsyncCommit,
    CpAsyncWait {
        n: Option<u32>,
    },
    CpAsyncMbarArrive {
        addr: Addr,
        space: Space,
        noinc: bool,
    },
    Shfl {
        mode: ShflMode,
        d: u32,
        dp: u32,
        a: Src,
        b: Src,
        c: Src,
        mask: Src,
    },
    Vote {
        mode: VoteMode,
        d: u32,
        a: Src,
        neg: bool,
        mask: Src,
    },
    Elect {
        d: u32,
        dp: u32,
        mask: Src,
    },
    Activemask {
        d: u32,
    },
    WarpSync {
        mask: Src,
    },
    Redux {
        op: AtomOp,
        ty: IntTy,
        d: u32,
        a: Src,
        mask: Src,
    },
    /// A tensor-map instruction (`decode::tma`).
    Tma(Box<TmaOp>),
    /// Tensor-core instructions: `ldmatrix`, `stmatrix`, `mma.sync`, `wgmma.*` (decode/tensor.rs).
    Tensor(Box<TensorOp>),
    /// Half-precision and fp8 conversions and packed arithmetic (decode/half.rs).
    Half(HalfOp),
    /// An instruction the simulator cannot run; executing it stops the run with this reason.
    Unsupported(Box<str>),
}

/// `@p` / `@!p`: `reg` is the predicate slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Guard {
    pub reg: u32,
    pub negated: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Op {
    pub kind: Kind,
    pub guard: Option<Guard>,
}

impl Kind {
    /// Whether this instruction requires the warp's non-exited threads to execute it together
    /// (aligned barriers and the `.sync` warp collectives).
    pub(crate) fn is_aligned_collective(&self) -> bool {
        match self {
            Kind::Bar { aligned, .. } => *aligned,
            Kind::ClusterArrive { aligned, .. } | Kind::ClusterWait { aligned } => *aligned,
            Kind::Tma(op) => op.is_aligned(),
            Kind::Tensor(_) => true,
            _ => false,
        }
    }
    pub(crate) fn warp_mask(&self) -> Option<Src> {
        match self {
            Kind::Shfl { mask, .. }
            | Kind::Vote { mask, .. }
            | Kind::Elect { mask, .. }
            | Kind::WarpSync { mask }
            | Kind::Redux { mask, .. } => Some(*mask),
            _ => None,
        }
    }
}
