//! The compact form the simulator executes: one [`Op`] per PTX instruction, with register
//! indices, resolved labels and symbols, and the instruction's type folded into the variant.
//!
//! Every register of every function reachable from the entry has its own slot (functions
//! do not recurse, see `decode::calls`), so a call needs no register save area.

/// Destination slot that discards its value (`_`).
pub(crate) const SINK: u32 = u32::MAX;

/// A source operand: a register slot or an immediate (already in the bit pattern of the
/// instruction's type; symbol addresses are immediates too).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    Reg(u32),
    Imm(u64),
}

/// The integer view of an instruction type: width in bits (1 for `.pred`) and signedness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntTy {
    pub bits: u8,
    pub signed: bool,
}

impl IntTy {
    pub(crate) const PRED: IntTy = IntTy {
        bits: 1,
        signed: false,
    };
    pub(crate) const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
    };

    pub(crate) fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }
    /// The value as a sign- or zero-extended 64-bit pattern.
    pub(crate) fn extend(self, v: u64) -> u64 {
        if self.bits >= 64 {
            v
        } else if self.signed {
            let shift = 64 - self.bits as u32;
            (((v << shift) as i64) >> shift) as u64
        } else {
            v & self.mask()
        }
    }
}

/// Floating-point widths the simulator computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FTy {
    F32,
    F64,
}

/// A type as a conversion sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CvtTy {
    Int(IntTy),
    Float(FTy),
    F16,
    Bf16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntUn {
    Not,
    Cnot,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntBin {
    Add,
    Sub,
    MulLo,
    MulHi,
    /// `mul.wide`: the operands have the instruction type, the result twice its width.
    MulWide,
    Mul24Lo,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// `add.cc`/`sub.cc`/`addc`/`subc`: `carry_in` reads the carry slot, `carry_out` writes it.
    AddCarry {
        carry_in: bool,
        carry_out: bool,
    },
    SubCarry {
        carry_in: bool,
        carry_out: bool,
    },
    AddSat,
    SubSat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntTer {
    MadLo,
    MadHi,
    MadWide,
    Mad24Lo,
    /// `mad.lo.cc`/`madc.lo{.cc}`.
    MadLoCarry {
        carry_in: bool,
        carry_out: bool,
    },
    MadHiCarry {
        carry_in: bool,
        carry_out: bool,
    },
    Bfe,
    Prmt,
    Sad,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FUn {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FBin {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    Copysign,
}

/// Comparison of `setp`; the unsigned integer forms (`lo`, `hs`, ...) map to `Lt`, `Ge`, ...
/// with an unsigned type; `*u` float forms are true when either operand is NaN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolOp {
    And,
    Or,
    Xor,
}

/// Rounding of a conversion or float operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rnd {
    /// No rounding modifier: the default for the conversion.
    Default,
    Rn,
    Rz,
    Rm,
    Rp,
    /// `.rni`, `.rzi`, `.rmi`, `.rpi`: round to an integral value.
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// Where an address points before generic resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    Generic,
    Global,
    /// `.shared` / `.shared::cta`: an offset in the executing CTA's shared window.
    Shared,
    /// `.shared::cluster`: an address of the cluster's shared window (see `memory`).
    SharedCluster,
    Local,
    /// `.const`: module constants live in read-only global buffers.
    Const,
    /// The entry's parameters (read-only, one copy per launch).
    KernelParam,
    /// A `.func`'s parameters and the `.param` variables of call sequences (per thread).
    FrameParam,
}

/// `[base+offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Addr {
    pub base: Src,
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
}

/// The value type of a memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemTy {
    Int(IntTy),
    F32,
    F64,
}

impl MemTy {
    pub(crate) fn bytes(self) -> u32 {
        match self {
            MemTy::Int(t) => (t.bits as u32).div_ceil(8),
            MemTy::F32 => 4,
            MemTy::F64 => 8,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarAction {
    Sync,
    Arrive,
    RedPopc,
    RedAnd,
    RedOr,
}

impl BarAction {
    pub(crate) fn is_red(self) -> bool {
        matches!(
            self,
            BarAction::RedPopc | BarAction::RedAnd | BarAction::RedOr
        )
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            BarAction::Sync => "sync",
            BarAction::Arrive => "arrive",
            BarAction::RedPopc => "red.popc",
            BarAction::RedAnd => "red.and",
            BarAction::RedOr => "red.or",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MbarOp {
    Init,
    Inval,
    ExpectTx,
    CompleteTx,
    /// `arrive{.expect_tx}{.noComplete}` and `arrive_drop{...}`.
    Arrive {
        drop: bool,
        expect_tx: bool,
        no_complete: bool,
    },
    /// `relaxed`: `.relaxed` waits acquire nothing.
    TestWait {
        parity: bool,
        relaxed: bool,
    },
    TryWait {
        parity: bool,
        relaxed: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FenceKind {
    /// `fence.proxy.async{.space}`: orders the thread's generic-proxy accesses before its
    /// later async-proxy operations.
    ProxyAsync,
    /// `fence.{sc,acq_rel}`, `membar`: makes the thread's next relaxed release a release.
    Ordering,
    /// `fence.mbarrier_init`: releases mbarrier initialisation to the cluster.
    MbarrierInit,
    /// Fences the simulator's sequentially consistent memory needs nothing for.
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

/// A copy of bytes between two places of the thread's parameter frame (call sequences).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ParamCopy {
    pub from: u32,
    pub to: u32,
    pub bytes: u32,
}

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
    Tma(Box<super::tma::TmaOp>),
    /// Tensor-core instructions: `ldmatrix`, `stmatrix`, `mma.sync`, `wgmma.*` (decode/tensor.rs).
    Tensor(Box<super::tensor::TensorOp>),
    /// Half-precision and fp8 conversions and packed arithmetic (decode/half.rs).
    Half(super::half::HalfOp),
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
