//! The functions and methods of the kernel language, by name.

use crate::types::Prim;
use phasegate_ptx::{Dim, SpecialReg};

/// A kernel-language function.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Builtin {
    /// Reads a special register (`thread_idx_x()` is `%tid.x`).
    Special(SpecialReg),
    /// The linear thread index divided by 32.
    WarpId,
    /// `bar.sync 0`.
    SyncThreads,
    /// A free-function form of a method: `min(a, b)` is `a.min(b)`.
    Method(MethodKind),
    /// `f32::from_bits(u)` / `f64::from_bits(u)`.
    FromBits(Prim),
    /// `shared_array::<T, N>()`.
    SharedArray,
}

/// Methods on kernel-language scalars (their Rust meanings, PTX's wrapping integers).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum MethodKind {
    Min,
    Max,
    Abs,
    Sqrt,
    MulAdd,
    WrappingAdd,
    WrappingSub,
    WrappingMul,
    CountOnes,
    LeadingZeros,
    ReverseBits,
    ToBits,
}

impl MethodKind {
    /// Operands including the receiver.
    pub fn arity(self) -> usize {
        match self {
            MethodKind::Abs | MethodKind::Sqrt | MethodKind::CountOnes | MethodKind::LeadingZeros => 1,
            MethodKind::ReverseBits | MethodKind::ToBits => 1,
            MethodKind::MulAdd => 3,
            _ => 2,
        }
    }
}

impl Builtin {
    pub fn arity(self) -> usize {
        match self {
            Builtin::Method(kind) => kind.arity(),
            Builtin::FromBits(_) => 1,
            _ => 0,
        }
    }
    pub fn name(self) -> String {
        match self {
            Builtin::Special(r) => FUNCTIONS.iter().find(|(_, b)| *b == Builtin::Special(r)).map(|(n, _)| n.to_string()).unwrap_or_default(),
            Builtin::WarpId => "warp_id".into(),
            Builtin::SyncThreads => "sync_threads".into(),
            Builtin::Method(k) => format!("{k:?}").to_lowercase(),
            Builtin::FromBits(p) => format!("{p}::from_bits"),
            Builtin::SharedArray => "shared_array".into(),
        }
    }
}

pub const METHOD_NAMES: &str = "min, max, abs, sqrt, mul_add, wrapping_add, wrapping_sub, wrapping_mul, count_ones, leading_zeros, reverse_bits, to_bits";

pub fn lookup_method(name: &str) -> Option<MethodKind> {
    Some(match name {
        "min" => MethodKind::Min,
        "max" => MethodKind::Max,
        "abs" => MethodKind::Abs,
        "sqrt" => MethodKind::Sqrt,
        "mul_add" => MethodKind::MulAdd,
        "wrapping_add" => MethodKind::WrappingAdd,
        "wrapping_sub" => MethodKind::WrappingSub,
        "wrapping_mul" => MethodKind::WrappingMul,
        "count_ones" => MethodKind::CountOnes,
        "leading_zeros" => MethodKind::LeadingZeros,
        "reverse_bits" => MethodKind::ReverseBits,
        "to_bits" => MethodKind::ToBits,
        _ => return None,
    })
}

const FUNCTIONS: &[(&str, Builtin)] = &[
    ("thread_idx_x", Builtin::Special(SpecialReg::Tid(Dim::X))),
    ("thread_idx_y", Builtin::Special(SpecialReg::Tid(Dim::Y))),
    ("thread_idx_z", Builtin::Special(SpecialReg::Tid(Dim::Z))),
    ("block_dim_x", Builtin::Special(SpecialReg::Ntid(Dim::X))),
    ("block_dim_y", Builtin::Special(SpecialReg::Ntid(Dim::Y))),
    ("block_dim_z", Builtin::Special(SpecialReg::Ntid(Dim::Z))),
    ("block_idx_x", Builtin::Special(SpecialReg::Ctaid(Dim::X))),
    ("block_idx_y", Builtin::Special(SpecialReg::Ctaid(Dim::Y))),
    ("block_idx_z", Builtin::Special(SpecialReg::Ctaid(Dim::Z))),
    ("grid_dim_x", Builtin::Special(SpecialReg::Nctaid(Dim::X))),
    ("grid_dim_y", Builtin::Special(SpecialReg::Nctaid(Dim::Y))),
    ("grid_dim_z", Builtin::Special(SpecialReg::Nctaid(Dim::Z))),
    ("cluster_idx_x", Builtin::Special(SpecialReg::ClusterId(Dim::X))),
    ("cluster_idx_y", Builtin::Special(SpecialReg::ClusterId(Dim::Y))),
    ("cluster_idx_z", Builtin::Special(SpecialReg::ClusterId(Dim::Z))),
    ("cluster_dim_x", Builtin::Special(SpecialReg::ClusterNctaid(Dim::X))),
    ("cluster_dim_y", Builtin::Special(SpecialReg::ClusterNctaid(Dim::Y))),
    ("cluster_dim_z", Builtin::Special(SpecialReg::ClusterNctaid(Dim::Z))),
    ("cluster_block_idx_x", Builtin::Special(SpecialReg::ClusterCtaid(Dim::X))),
    ("cluster_block_idx_y", Builtin::Special(SpecialReg::ClusterCtaid(Dim::Y))),
    ("cluster_block_idx_z", Builtin::Special(SpecialReg::ClusterCtaid(Dim::Z))),
    ("cluster_cta_rank", Builtin::Special(SpecialReg::ClusterCtaRank)),
    ("lane_id", Builtin::Special(SpecialReg::LaneId)),
    ("warp_id", Builtin::WarpId),
    ("sync_threads", Builtin::SyncThreads),
    ("min", Builtin::Method(MethodKind::Min)),
    ("max", Builtin::Method(MethodKind::Max)),
    ("fma", Builtin::Method(MethodKind::MulAdd)),
    ("abs", Builtin::Method(MethodKind::Abs)),
    ("sqrt", Builtin::Method(MethodKind::Sqrt)),
    ("shared_array", Builtin::SharedArray),
];

/// Resolves the function of a call: a kernel-language function by its name, or
/// `f32::from_bits` / `f64::from_bits`.
pub fn lookup_call(path: &syn::Path) -> Result<Builtin, String> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if let [ty, f] = names.as_slice() {
        if f == "from_bits" && (ty == "f32" || ty == "f64") {
            return Ok(Builtin::FromBits(if ty == "f32" { Prim::F32 } else { Prim::F64 }));
        }
    }
    let generic_ok = |b: Builtin| b == Builtin::SharedArray;
    match names.as_slice() {
        [name] => match FUNCTIONS.iter().find(|(n, _)| n == name) {
            Some((_, b)) => {
                let has_generics = path.segments.iter().any(|s| !s.arguments.is_empty());
                if has_generics && !generic_ok(*b) {
                    Err(format!("`{name}` takes no generic arguments"))
                } else {
                    Ok(*b)
                }
            }
            None => Err(format!("`{name}` is not a kernel-language function; {CALLABLE}")),
        },
        _ => Err(format!("`{}` is not a kernel-language function; {CALLABLE}", names.join("::"))),
    }
}

/// What a kernel may call, for error messages.
const CALLABLE: &str = "a kernel calls only the kernel language's functions (by their plain name): \
    the index and dimension functions (`thread_idx_x()`, `block_dim_y()`, `cluster_cta_rank()`, ...), \
    `lane_id()`, `warp_id()`, `sync_threads()`, `min`, `max`, `fma`, `abs`, `sqrt`, \
    `shared_array::<T, N>()`, `f32::from_bits` and `f64::from_bits`";
