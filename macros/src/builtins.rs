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
    /// `%clock64`: the SM's cycle counter.
    Clock64,
    /// `bar.sync 0`.
    SyncThreads,
    /// A free-function form of a method: `min(a, b)` is `a.min(b)`.
    Method(MethodKind),
    /// `f32::from_bits(u)` / `f64::from_bits(u)`.
    FromBits(Prim),
    /// `shared_array::<T, N>()`.
    SharedArray,
    /// A function of the barrier vocabulary.
    Sync(SyncFn),
}

/// The free functions of the barrier vocabulary.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SyncFn {
    /// `named_barrier::<ID, THREADS>()` and its spellings and kinds.
    Named {
        counted: bool,
        cta_spelling: bool,
        reduction: bool,
    },
    NamedDyn,
    MBarrier,
    Publish,
    PublishCta,
    Pipeline,
    PipelineCluster,
    /// `accumulator::<f32, 64, N>()`: a zeroed wgmma accumulator.
    Accumulator,
    /// `online_softmax(scale_log2)`.
    OnlineSoftmax,
    /// `ping_pong::<ID>(group)`.
    PingPong,
    ClusterBarrier,
    PeerShared,
    DynamicShared,
    BulkLoad,
    BulkLoadMulticast,
    BulkStore,
    TmaStore,
    Registers,
    BulkCommit,
    BulkWait,
    BulkWaitRead,
    CpAsync,
    FenceProxyAsync,
    FenceMbarrierInit,
    FenceAcqRel,
    FenceSc,
    Membar(&'static str),
    ElectOne,
    Nanosleep,
}

impl SyncFn {
    /// How many arguments the function takes.
    pub fn arity(self) -> usize {
        match self {
            SyncFn::Named { .. }
            | SyncFn::MBarrier
            | SyncFn::ClusterBarrier
            | SyncFn::DynamicShared
            | SyncFn::Registers
            | SyncFn::Accumulator => 0,
            SyncFn::BulkCommit
            | SyncFn::FenceProxyAsync
            | SyncFn::FenceMbarrierInit
            | SyncFn::Membar(_) => 0,
            SyncFn::ElectOne => 0,
            SyncFn::Publish | SyncFn::PublishCta | SyncFn::BulkWait | SyncFn::BulkWaitRead => 1,
            SyncFn::OnlineSoftmax | SyncFn::PingPong => 1,
            SyncFn::FenceAcqRel | SyncFn::FenceSc | SyncFn::Nanosleep => 1,
            SyncFn::NamedDyn | SyncFn::PeerShared => 2,
            SyncFn::Pipeline | SyncFn::PipelineCluster => 3,
            SyncFn::CpAsync | SyncFn::TmaStore => 4,
            SyncFn::BulkStore => 5,
            SyncFn::BulkLoad => 6,
            SyncFn::BulkLoadMulticast => 7,
        }
    }
    /// Whether the function takes generic arguments (`named_barrier::<1, 64>()`).
    pub fn generic(self) -> bool {
        matches!(
            self,
            SyncFn::Named { .. }
                | SyncFn::Pipeline
                | SyncFn::PipelineCluster
                | SyncFn::DynamicShared
                | SyncFn::Registers
                | SyncFn::Accumulator
                | SyncFn::PingPong
                | SyncFn::OnlineSoftmax
        )
    }
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
            MethodKind::Abs
            | MethodKind::Sqrt
            | MethodKind::CountOnes
            | MethodKind::LeadingZeros => 1,
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
            Builtin::Sync(f) => f.arity(),
            _ => 0,
        }
    }
    pub fn name(self) -> String {
        match self {
            Builtin::Special(r) => FUNCTIONS
                .iter()
                .find(|(_, b)| *b == Builtin::Special(r))
                .map(|(n, _)| n.to_string())
                .unwrap_or_default(),
            Builtin::WarpId => "warp_id".into(),
            Builtin::Clock64 => "clock64".into(),
            Builtin::SyncThreads => "sync_threads".into(),
            Builtin::Method(k) => format!("{k:?}").to_lowercase(),
            Builtin::FromBits(p) => format!("{p}::from_bits"),
            Builtin::SharedArray => "shared_array".into(),
            Builtin::Sync(f) => FUNCTIONS
                .iter()
                .find(|(_, b)| *b == Builtin::Sync(f))
                .map(|(n, _)| n.to_string())
                .unwrap_or_default(),
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
    (
        "cluster_idx_x",
        Builtin::Special(SpecialReg::ClusterId(Dim::X)),
    ),
    (
        "cluster_idx_y",
        Builtin::Special(SpecialReg::ClusterId(Dim::Y)),
    ),
    (
        "cluster_idx_z",
        Builtin::Special(SpecialReg::ClusterId(Dim::Z)),
    ),
    (
        "cluster_dim_x",
        Builtin::Special(SpecialReg::ClusterNctaid(Dim::X)),
    ),
    (
        "cluster_dim_y",
        Builtin::Special(SpecialReg::ClusterNctaid(Dim::Y)),
    ),
    (
        "cluster_dim_z",
        Builtin::Special(SpecialReg::ClusterNctaid(Dim::Z)),
    ),
    (
        "cluster_block_idx_x",
        Builtin::Special(SpecialReg::ClusterCtaid(Dim::X)),
    ),
    (
        "cluster_block_idx_y",
        Builtin::Special(SpecialReg::ClusterCtaid(Dim::Y)),
    ),
    (
        "cluster_block_idx_z",
        Builtin::Special(SpecialReg::ClusterCtaid(Dim::Z)),
    ),
    (
        "cluster_cta_rank",
        Builtin::Special(SpecialReg::ClusterCtaRank),
    ),
    ("lane_id", Builtin::Special(SpecialReg::LaneId)),
    ("warp_id", Builtin::WarpId),
    ("clock64", Builtin::Clock64),
    ("sync_threads", Builtin::SyncThreads),
    ("min", Builtin::Method(MethodKind::Min)),
    ("max", Builtin::Method(MethodKind::Max)),
    ("fma", Builtin::Method(MethodKind::MulAdd)),
    ("abs", Builtin::Method(MethodKind::Abs)),
    ("sqrt", Builtin::Method(MethodKind::Sqrt)),
    ("shared_array", Builtin::SharedArray),
    (
        "named_barrier",
        Builtin::Sync(SyncFn::Named {
            counted: true,
            cta_spelling: false,
            reduction: false,
        }),
    ),
    (
        "named_barrier_cta",
        Builtin::Sync(SyncFn::Named {
            counted: true,
            cta_spelling: true,
            reduction: false,
        }),
    ),
    (
        "cta_barrier",
        Builtin::Sync(SyncFn::Named {
            counted: false,
            cta_spelling: false,
            reduction: false,
        }),
    ),
    (
        "cta_barrier_cta",
        Builtin::Sync(SyncFn::Named {
            counted: false,
            cta_spelling: true,
            reduction: false,
        }),
    ),
    (
        "reduction_barrier",
        Builtin::Sync(SyncFn::Named {
            counted: true,
            cta_spelling: false,
            reduction: true,
        }),
    ),
    (
        "reduction_barrier_cta",
        Builtin::Sync(SyncFn::Named {
            counted: true,
            cta_spelling: true,
            reduction: true,
        }),
    ),
    (
        "cta_reduction_barrier",
        Builtin::Sync(SyncFn::Named {
            counted: false,
            cta_spelling: false,
            reduction: true,
        }),
    ),
    ("named_barrier_dyn", Builtin::Sync(SyncFn::NamedDyn)),
    ("mbarrier", Builtin::Sync(SyncFn::MBarrier)),
    ("publish", Builtin::Sync(SyncFn::Publish)),
    ("publish_cta", Builtin::Sync(SyncFn::PublishCta)),
    ("pipeline", Builtin::Sync(SyncFn::Pipeline)),
    ("pipeline_cluster", Builtin::Sync(SyncFn::PipelineCluster)),
    ("accumulator", Builtin::Sync(SyncFn::Accumulator)),
    ("online_softmax", Builtin::Sync(SyncFn::OnlineSoftmax)),
    ("ping_pong", Builtin::Sync(SyncFn::PingPong)),
    ("cluster_barrier", Builtin::Sync(SyncFn::ClusterBarrier)),
    ("peer_shared", Builtin::Sync(SyncFn::PeerShared)),
    ("dynamic_shared", Builtin::Sync(SyncFn::DynamicShared)),
    ("bulk_load", Builtin::Sync(SyncFn::BulkLoad)),
    (
        "bulk_load_multicast",
        Builtin::Sync(SyncFn::BulkLoadMulticast),
    ),
    ("bulk_store", Builtin::Sync(SyncFn::BulkStore)),
    ("tma_store", Builtin::Sync(SyncFn::TmaStore)),
    ("warpgroup_registers", Builtin::Sync(SyncFn::Registers)),
    ("bulk_commit", Builtin::Sync(SyncFn::BulkCommit)),
    ("bulk_wait", Builtin::Sync(SyncFn::BulkWait)),
    ("bulk_wait_read", Builtin::Sync(SyncFn::BulkWaitRead)),
    ("cp_async", Builtin::Sync(SyncFn::CpAsync)),
    ("fence_proxy_async", Builtin::Sync(SyncFn::FenceProxyAsync)),
    (
        "fence_mbarrier_init",
        Builtin::Sync(SyncFn::FenceMbarrierInit),
    ),
    ("fence_acq_rel", Builtin::Sync(SyncFn::FenceAcqRel)),
    ("fence_sc", Builtin::Sync(SyncFn::FenceSc)),
    ("membar_cta", Builtin::Sync(SyncFn::Membar("cta"))),
    ("membar_gl", Builtin::Sync(SyncFn::Membar("gl"))),
    ("membar_sys", Builtin::Sync(SyncFn::Membar("sys"))),
    ("elect_one", Builtin::Sync(SyncFn::ElectOne)),
    ("nanosleep", Builtin::Sync(SyncFn::Nanosleep)),
];

/// Resolves the function of a call: a kernel-language function by its name, or
/// `f32::from_bits` / `f64::from_bits`.
/// The kernel-language function that reads a special register, by the register's PTX name:
/// `%tid.x` is `thread_idx_x`.
pub fn special_function(register: &str) -> Option<&'static str> {
    FUNCTIONS.iter().find_map(|(name, b)| match b {
        Builtin::Special(r) if r.name() == register => Some(*name),
        _ => None,
    })
}

/// Whether `path` names a kernel-language function (whatever its generic arguments): every
/// other call in a kernel is a call of a `#[device]` function.
pub fn is_function(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match names.as_slice() {
        [ty, f] => f == "from_bits" && (ty == "f32" || ty == "f64"),
        [name] => path.leading_colon.is_none() && FUNCTIONS.iter().any(|(n, _)| n == name),
        _ => false,
    }
}

pub fn lookup_call(path: &syn::Path) -> Result<Builtin, String> {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if let [ty, f] = names.as_slice()
        && f == "from_bits"
        && (ty == "f32" || ty == "f64")
    {
        return Ok(Builtin::FromBits(if ty == "f32" {
            Prim::F32
        } else {
            Prim::F64
        }));
    }
    let generic_ok =
        |b: Builtin| b == Builtin::SharedArray || matches!(b, Builtin::Sync(f) if f.generic());
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
            None => Err(format!(
                "`{name}` is not a kernel-language function; {CALLABLE}"
            )),
        },
        _ => Err(format!(
            "`{}` is not a kernel-language function; {CALLABLE}",
            names.join("::")
        )),
    }
}

/// What a kernel may call, for error messages.
const CALLABLE: &str = "a kernel calls only the kernel language's functions (by their plain name): \
    the index and dimension functions (`thread_idx_x()`, `block_dim_y()`, `cluster_cta_rank()`, ...), \
    `lane_id()`, `warp_id()`, `clock64()`, `sync_threads()`, `min`, `max`, `fma`, `abs`, `sqrt`, \
    `shared_array::<T, N>()`, `f32::from_bits`, `f64::from_bits`, and the barrier vocabulary \
    (`named_barrier`, `mbarrier`, `pipeline`, `accumulator`, `cluster_barrier`, `bulk_load`, fences, ...; \
    see `phasegate::lang`)";
