//! The ops of tensor-core instructions ([`TensorOp`]: `ldmatrix`, `stmatrix`, `mma.sync`,
//! `wgmma.*`), which `decode::tensor` decodes and `exec::tensor` executes.

use super::parts::{Addr, Space, Src};

/// An element type of a matrix operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Elem {
    F16,
    Bf16,
    /// `.tf32` in a `.b32`: an f32 whose 13 low mantissa bits the tensor cores ignore.
    Tf32,
    E4m3,
    E5m2,
    S8,
    U8,
    F32,
    S32,
}

impl Elem {
    /// Bits of one element in a register (a `.b32` holds 32 / bits of them).
    pub(crate) fn bits(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 16,
            Elem::E4m3 | Elem::E5m2 | Elem::S8 | Elem::U8 => 8,
            Elem::Tf32 | Elem::F32 | Elem::S32 => 32,
        }
    }
    pub(crate) fn is_int(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8 | Elem::S32)
    }
}

/// `mma.sync.aligned.m16n8kK.row.col{.satfinite}.dtype.atype.btype.ctype d, a, b, c`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Mma {
    pub k: u32,
    pub a_ty: Elem,
    pub b_ty: Elem,
    pub c_ty: Elem,
    pub d_ty: Elem,
    pub satfinite: bool,
    pub d: Vec<u32>,
    pub a: Vec<Src>,
    pub b: Vec<Src>,
    pub c: Vec<Src>,
}

/// The A operand of `wgmma.mma_async`: a shared-memory matrix descriptor or registers.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum WgmmaA {
    Desc(Src),
    Regs(Vec<Src>),
}

/// `wgmma.mma_async.sync.aligned.m64nNkK.dtype.atype.btype d, a, b-desc, scale-d{, imm-scale-a,
/// imm-scale-b{, imm-trans-a}{, imm-trans-b}}`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Wgmma {
    pub n: u32,
    pub k: u32,
    pub a_ty: Elem,
    pub b_ty: Elem,
    pub d_ty: Elem,
    pub satfinite: bool,
    pub d: Vec<u32>,
    pub a: WgmmaA,
    pub b_desc: Src,
    /// The predicate `scale-d` (false: D = A*B), possibly negated.
    pub scale_d: (Src, bool),
    pub neg_a: bool,
    pub neg_b: bool,
    /// `imm-trans-a` / `imm-trans-b`: MN-major instead of K-major in shared memory.
    pub trans_a: bool,
    pub trans_b: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TensorOp {
    /// `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`: one destination per
    /// 8x8 matrix; `space` is `Shared` or `Generic`.
    LdMatrix {
        ds: Vec<u32>,
        addr: Addr,
        space: Space,
        trans: bool,
    },
    /// `stmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16`.
    StMatrix {
        vals: Vec<Src>,
        addr: Addr,
        space: Space,
        trans: bool,
    },
    Mma(Box<Mma>),
    WgmmaFence,
    WgmmaCommit,
    WgmmaWait(u32),
    Wgmma(Box<Wgmma>),
}

impl TensorOp {
    /// The name for reports.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            TensorOp::LdMatrix { .. } => "ldmatrix",
            TensorOp::StMatrix { .. } => "stmatrix",
            TensorOp::Mma(_) => "mma.sync",
            TensorOp::WgmmaFence => "wgmma.fence",
            TensorOp::WgmmaCommit => "wgmma.commit_group",
            TensorOp::WgmmaWait(_) => "wgmma.wait_group",
            TensorOp::Wgmma(_) => "wgmma.mma_async",
        }
    }
    pub(crate) fn is_wgmma(&self) -> bool {
        matches!(
            self,
            TensorOp::WgmmaFence
                | TensorOp::WgmmaCommit
                | TensorOp::WgmmaWait(_)
                | TensorOp::Wgmma(_)
        )
    }
}

/// Registers per thread of the A and B fragments of `mma.m16n8kK` (and of `wgmma`'s A).
pub(crate) fn frag_regs(k: u32, ab: Elem) -> (usize, usize) {
    let per_reg = (32 / ab.bits()) as usize;
    let a_elems = (16 * k / 32) as usize;
    let b_elems = (k * 8 / 32) as usize;
    (a_elems / per_reg, b_elems / per_reg)
}
