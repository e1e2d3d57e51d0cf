//! The parts ops are made of: operands (`Src`, `Addr`), the types an instruction works on
//! (`IntTy`, `FTy`, `CvtTy`, `MemTy`), and its operations and modifiers (`IntBin`, `Rnd`,
//! `Space`, `AtomOp`, `MbarOp`, ...).

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
    /// `cvt.pack.sat.{u,s}{2,4,8,16}.s32{.b32}`: `a` and `b` saturated to `bits`-bit integers
    /// (`signed` or not) and packed, `b` lowest, `a` above it, the rest of `c` above both
    /// (the 16-bit forms have no `c`: an immediate 0).
    PackSat {
        bits: u8,
        signed: bool,
    },
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
    /// `min.NaN`/`max.NaN`: the canonical NaN when either operand is NaN.
    MinNaN,
    MaxNaN,
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
