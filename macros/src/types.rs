//! The types of the kernel language and how each maps onto PTX.

use phasegate_ptx::ScalarType;
use std::fmt;

/// A scalar type of the kernel language.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Prim {
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
    Bool,
    /// IEEE binary16 (`half::f16`).
    F16,
    /// bfloat16 (`half::bf16`).
    Bf16,
    /// OCP fp8 with 4 exponent and 3 mantissa bits: no infinities, saturating conversions.
    E4m3,
    /// OCP fp8 with 5 exponent and 2 mantissa bits.
    E5m2,
}

impl Prim {
    pub fn from_ident(name: &str) -> Option<Prim> {
        Some(match name {
            "u32" => Prim::U32,
            "i32" => Prim::I32,
            "u64" => Prim::U64,
            "i64" => Prim::I64,
            "f32" => Prim::F32,
            "f64" => Prim::F64,
            "bool" => Prim::Bool,
            "f16" => Prim::F16,
            "bf16" => Prim::Bf16,
            "f8e4m3" => Prim::E4m3,
            "f8e5m2" => Prim::E5m2,
            _ => return None,
        })
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Prim::U32 => "u32",
            Prim::I32 => "i32",
            Prim::U64 => "u64",
            Prim::I64 => "i64",
            Prim::F32 => "f32",
            Prim::F64 => "f64",
            Prim::Bool => "bool",
            Prim::F16 => "f16",
            Prim::Bf16 => "bf16",
            Prim::E4m3 => "f8e4m3",
            Prim::E5m2 => "f8e5m2",
        }
    }

    /// The storage floats (`f16`, `bf16`, `f8e4m3`, `f8e5m2`): moved through memory and
    /// converted with `as`, compared, but computed on only after a conversion to `f32`.
    pub fn is_narrow(self) -> bool {
        matches!(self, Prim::F16 | Prim::Bf16 | Prim::E4m3 | Prim::E5m2)
    }
    pub fn is_fp8(self) -> bool {
        matches!(self, Prim::E4m3 | Prim::E5m2)
    }

    pub fn is_int(self) -> bool {
        matches!(self, Prim::U32 | Prim::I32 | Prim::U64 | Prim::I64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Prim::F32 | Prim::F64)
    }
    pub fn is_signed(self) -> bool {
        matches!(self, Prim::I32 | Prim::I64)
    }
    pub fn is_64(self) -> bool {
        matches!(self, Prim::U64 | Prim::I64 | Prim::F64)
    }

    /// Bytes in memory (`bool` occupies one byte, as in Rust).
    pub fn size(self) -> u32 {
        match self {
            Prim::Bool | Prim::E4m3 | Prim::E5m2 => 1,
            Prim::F16 | Prim::Bf16 => 2,
            Prim::U32 | Prim::I32 | Prim::F32 => 4,
            Prim::U64 | Prim::I64 | Prim::F64 => 8,
        }
    }

    /// The PTX type of arithmetic on this type (`s32` for `i32`).
    pub fn arith(self) -> ScalarType {
        match self {
            Prim::U32 => ScalarType::U32,
            Prim::I32 => ScalarType::S32,
            Prim::U64 => ScalarType::U64,
            Prim::I64 => ScalarType::S64,
            Prim::F32 => ScalarType::F32,
            Prim::F64 => ScalarType::F64,
            Prim::Bool => ScalarType::Pred,
            Prim::F16 => ScalarType::F16,
            Prim::Bf16 => ScalarType::Bf16,
            // PTX has no scalar fp8 type: one fp8 value is the low byte of a `.b16` register.
            Prim::E4m3 | Prim::E5m2 => ScalarType::B16,
        }
    }

    /// The type of loads, stores and parameters of this type: `ld`/`st` take no `.f16` or
    /// `.bf16`, so the narrow floats move as bits (`.b16`, and `.u8` for fp8, zero-extended
    /// into a 16-bit register).
    pub fn mem(self) -> ScalarType {
        match self {
            Prim::F16 | Prim::Bf16 => ScalarType::B16,
            Prim::E4m3 | Prim::E5m2 => ScalarType::U8,
            other => other.arith(),
        }
    }

    /// The untyped-bits PTX type of the same width (`b32` for `i32`).
    pub fn bits(self) -> ScalarType {
        match self {
            Prim::U32 | Prim::I32 | Prim::F32 => ScalarType::B32,
            Prim::U64 | Prim::I64 | Prim::F64 => ScalarType::B64,
            Prim::Bool => ScalarType::Pred,
            Prim::F16 | Prim::Bf16 | Prim::E4m3 | Prim::E5m2 => ScalarType::B16,
        }
    }

    /// The unsigned type of the same width, for comparisons on differences.
    pub fn unsigned(self) -> ScalarType {
        if self.is_64() {
            ScalarType::U64
        } else {
            ScalarType::U32
        }
    }

    /// The register class that holds values of this type.
    pub fn class(self) -> RegClass {
        match self {
            Prim::U32 | Prim::I32 => RegClass::B32,
            Prim::U64 | Prim::I64 => RegClass::B64,
            Prim::F32 => RegClass::F32,
            Prim::F64 => RegClass::F64,
            Prim::Bool => RegClass::Pred,
            // As nvcc keeps them: `%rs`.
            Prim::F16 | Prim::Bf16 | Prim::E4m3 | Prim::E5m2 => RegClass::B16,
        }
    }
}

impl fmt::Display for Prim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// PTX register classes, named as nvcc names them.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum RegClass {
    Pred,
    B32,
    B64,
    F32,
    F64,
    B16,
}

impl RegClass {
    pub const ALL: [RegClass; 6] = [
        RegClass::Pred,
        RegClass::B16,
        RegClass::B32,
        RegClass::B64,
        RegClass::F32,
        RegClass::F64,
    ];
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "%p",
            RegClass::B16 => "%rs",
            RegClass::B32 => "%r",
            RegClass::B64 => "%rd",
            RegClass::F32 => "%f",
            RegClass::F64 => "%fd",
        }
    }
    pub fn decl_type(self) -> ScalarType {
        match self {
            RegClass::Pred => ScalarType::Pred,
            RegClass::B16 => ScalarType::B16,
            RegClass::B32 => ScalarType::B32,
            RegClass::B64 => ScalarType::B64,
            RegClass::F32 => ScalarType::F32,
            RegClass::F64 => ScalarType::F64,
        }
    }
}

/// An element of memory: a scalar or a vector `[T; lanes]` moved with one 8- or 16-byte access.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct Elem {
    pub prim: Prim,
    pub lanes: u8,
}

impl Elem {
    pub fn scalar(prim: Prim) -> Elem {
        Elem { prim, lanes: 1 }
    }
    pub fn size(self) -> u32 {
        self.prim.size() * self.lanes as u32
    }
    pub fn ty(self) -> Ty {
        if self.lanes == 1 {
            Ty::Prim(self.prim)
        } else {
            Ty::Vector(self.prim, self.lanes)
        }
    }
    /// Whether `[prim; lanes]` is a vector the language can move in one access: 8 or 16 bytes
    /// of 32- or 64-bit lanes; 4, 8 or 16 bytes of `f16`/`bf16` (a packed pair is 4); 2, 4, 8
    /// or 16 bytes of fp8.
    pub fn vector_ok(prim: Prim, lanes: u64) -> bool {
        prim != Prim::Bool
            && matches!(
                (prim.size(), lanes),
                (4, 2) | (4, 4) | (8, 2) | (2, 2) | (2, 4) | (2, 8) | (1, 2 | 4 | 8 | 16)
            )
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            write!(f, "{}", self.prim)
        } else {
            write!(f, "[{}; {}]", self.prim, self.lanes)
        }
    }
}

/// The type of a kernel-language value.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Ty {
    Unit,
    Prim(Prim),
    /// `[T; N]` held in registers.
    Vector(Prim, u8),
    /// A global-memory slice parameter.
    Global {
        elem: Elem,
        mutable: bool,
    },
    /// A shared-memory array.
    Shared {
        elem: Elem,
        len: u64,
    },
    /// A synchronisation handle or a constant argument of one (see [`Handle`]).
    Handle(Handle),
    /// A `TensorMap<T, TileN<..>, S>`: a parameter (a `CUtensorMap` by value), or one a kernel
    /// wrote into a slot and acquired (`map.published(slots, i)`).
    TensorMap(MapShape),
    /// A `&mut [TensorMapSlot]` parameter: global memory for maps the kernel writes.
    MapSlots,
    /// `map.edit(..)` and its `tensormap.replace` chain, before its `.release()`.
    MapEdit(MapShape),
}

/// What a tensor map's type fixes: element, box (dimension 0 contiguous, first), swizzle.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct MapShape {
    pub elem: Prim,
    pub rank: u8,
    /// Elements per box dimension; 1 past the rank.
    pub dims: [u32; 5],
    /// Bytes of the swizzle span (0: none).
    pub swizzle: u32,
}

impl MapShape {
    /// Elements in one box.
    pub fn box_elems(self) -> u64 {
        self.dims.iter().map(|&d| d as u64).product()
    }
    /// Bytes one box takes in shared memory, which its copy completes on the mbarrier.
    pub fn box_bytes(self) -> u64 {
        self.box_elems() * self.elem.size() as u64
    }
    /// The alignment of a box in shared memory, which the checker requires of a stage and the
    /// lowering gives the boxes it places. Shared-memory destinations of tensor copies are
    /// 128-byte aligned (PTX ISA §9.7.9.25.5.2); a swizzled box repeats its pattern every 8
    /// spans, and the kernel places boxes at that granule so the pattern the copy writes is
    /// the one a reader computes from the address.
    pub fn box_alignment(self) -> u64 {
        (8 * self.swizzle as u64).max(128)
    }
    /// The swizzle's Rust name.
    pub fn swizzle_name(self) -> &'static str {
        match self.swizzle {
            32 => "Swizzle32B",
            64 => "Swizzle64B",
            128 => "Swizzle128B",
            _ => "NoSwizzle",
        }
    }
}

impl MapShape {
    /// The generic arguments as written: `bf16, Tile2<64, 128>, Swizzle128B`.
    pub fn arguments(self) -> String {
        let dims: Vec<String> = self.dims[..self.rank as usize]
            .iter()
            .map(u32::to_string)
            .collect();
        format!(
            "{}, Tile{}<{}>, {}",
            self.elem,
            self.rank,
            dims.join(", "),
            self.swizzle_name()
        )
    }
}

impl fmt::Display for MapShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorMap<{}>", self.arguments())
    }
}

/// The shape of a [`Handle::Pipeline`] and the handles made from it.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct PipeShape {
    pub elem: Elem,
    pub stages: u32,
    pub tile: u32,
    /// CTAs whose consumers release each stage (1: the CTA's own; more: `pipeline_cluster`,
    /// whose stages peers multicast into).
    pub ctas: u32,
}

/// A wgmma accumulator `Acc<T, 64, N>`: `N / 2` registers of `elem` per thread.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct AccShape {
    pub elem: Prim,
    pub n: u32,
}

/// How `wgmma.mma_async` reads operands of one element type from shared memory.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct WgmmaInput {
    /// The PTX type of A and B (`tf32` for `f32` data).
    pub ptx: &'static str,
    /// K of one instruction: 32 bytes of the element (§9.7.15.5.2).
    pub k: u32,
    /// Bytes per element in shared memory.
    pub bytes: u32,
}

impl WgmmaInput {
    /// The wgmma input form for operands of `prim` (dense, f32 accumulator). `f32` data is
    /// read as `.tf32` (its 13 low mantissa bits ignored); the 16-bit floats take K 16 and the
    /// 8-bit ones (`.e4m3`, `.e5m2`) K 32, each step 32 bytes of a row (§9.7.15.5.2).
    pub fn of(prim: Prim) -> Option<WgmmaInput> {
        match prim {
            Prim::F32 => Some(WgmmaInput {
                ptx: "tf32",
                k: 8,
                bytes: 4,
            }),
            Prim::Bf16 => Some(WgmmaInput {
                ptx: "bf16",
                k: 16,
                bytes: 2,
            }),
            Prim::F16 => Some(WgmmaInput {
                ptx: "f16",
                k: 16,
                bytes: 2,
            }),
            // fp8: K 32 a step, the same 32 bytes of a row; no transpose operands (K-major only).
            Prim::E4m3 => Some(WgmmaInput {
                ptx: "e4m3",
                k: 32,
                bytes: 1,
            }),
            Prim::E5m2 => Some(WgmmaInput {
                ptx: "e5m2",
                k: 32,
                bytes: 1,
            }),
            _ => None,
        }
    }

    /// Whether the instruction takes the `imm-trans-a, imm-trans-b` operands (16-bit inputs
    /// only; tf32 operands are K-major, §9.7.15.5.2).
    pub fn has_transpose(self) -> bool {
        self.bytes == 2
    }
}

/// Handles of the barrier vocabulary. rustc checks their typestate (phase parity, tokens);
/// the checker only needs to know what kind of handle a value is.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum Handle {
    /// A named CTA barrier: `threads == 0` means all threads of the CTA.
    Named {
        id: u32,
        threads: u32,
        cta_spelling: bool,
        reduction: bool,
    },
    /// A named barrier with run-time id and count.
    DynNamed,
    /// An mbarrier object in any state.
    MBar,
    /// The token of an mbarrier arrive-on.
    Arrival,
    /// What `arrive_drop` leaves.
    Dropped,
    /// An mbarrier with its parity in a register.
    DynMBar,
    /// `[MBarrier; n]`, the argument and result of `publish`.
    MBarArray(u8),
    ClusterBar,
    ClusterArrival,
    Pipeline(PipeShape),
    Producer(PipeShape),
    ProducerSlot(PipeShape),
    Consumer(PipeShape),
    ConsumerSlot(PipeShape),
    /// A stage retired from a consumer slot, released later.
    Retired(PipeShape),
    /// A wgmma accumulator (its asynchronous state is rustc's to check).
    Acc(AccShape),
    /// A wgmma A operand in registers: `64 × K` of a 16-bit float (`Bf16` or `F16`).
    Fragment(u32, Prim),
    /// An online softmax's running row maxima and sums, rounding P to a 16-bit float.
    Softmax(Prim),
    /// The rows' log-sum-exp the softmax finished with.
    RowLse,
    /// A warp group's part of a split sum of accumulators of this shape, stored, not yet
    /// counted (`store_partial`).
    Partial(AccShape),
    /// Its arrival (`arrive`): whether it was the last, and the total if so.
    SplitArrival(AccShape),
    /// A consumer warpgroup's side of the turns of `groups` groups on named barriers `ID..`.
    PingPong(u32, u32),
    /// The ping-pong's turn.
    Turn(u32, u32),
    /// Scores of `N` columns committed before an output of `D` columns; `ready` once the
    /// scores' group is complete.
    Overlap {
        n: u32,
        d: u32,
        ready: bool,
    },
    /// The CTA's dynamic shared memory as elements.
    DynShared(Elem),
    /// A peer CTA's shared array.
    Peer(Elem, u64),
    /// `Sem::Ordered` / `Sem::Relaxed`.
    Sem(bool),
    /// `Scope::Cta` .. `Scope::Sys`.
    Scope(ScopeKind),
    /// `EVEN` / `ODD`.
    Parity(bool),
    /// The kernel's register budget, `N` registers a thread.
    Registers(u32),
    /// What a warp group's role left it.
    RoleRegisters(u32),
}

#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum ScopeKind {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

impl ScopeKind {
    pub fn name(self) -> &'static str {
        match self {
            ScopeKind::Cta => "cta",
            ScopeKind::Cluster => "cluster",
            ScopeKind::Gpu => "gpu",
            ScopeKind::Sys => "sys",
        }
    }
}

impl fmt::Display for Handle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Handle::Named {
                reduction: true, ..
            } => "ReductionBarrier",
            Handle::Named { threads: 0, .. } => "CtaBarrier",
            Handle::Named { .. } => "NamedBarrier",
            Handle::DynNamed => "DynNamedBarrier",
            Handle::MBar => "MBarrier",
            Handle::Arrival => "Arrival",
            Handle::Dropped => "Dropped",
            Handle::DynMBar => "DynMBarrier",
            Handle::MBarArray(_) => "[MBarrier; N]",
            Handle::ClusterBar => "ClusterBarrier",
            Handle::ClusterArrival => "ClusterArrival",
            Handle::Pipeline(_) => "Pipeline",
            Handle::Producer(_) => "Producer",
            Handle::ProducerSlot(_) => "ProducerSlot",
            Handle::Consumer(_) => "Consumer",
            Handle::ConsumerSlot(_) => "ConsumerSlot",
            Handle::Retired(_) => "Retired",
            Handle::Acc(_) => "Acc",
            Handle::Fragment(..) => "Fragment",
            Handle::Softmax(_) => "OnlineSoftmax",
            Handle::RowLse => "RowLse",
            Handle::Partial(_) => "Partial",
            Handle::SplitArrival(_) => "SplitArrival",
            Handle::PingPong(..) => "PingPong",
            Handle::Turn(..) => "Turn",
            Handle::Overlap { .. } => "Overlap",
            Handle::DynShared(_) => "DynamicShared",
            Handle::Peer(..) => "PeerShared",
            Handle::Sem(_) => "Sem",
            Handle::Scope(_) => "Scope",
            Handle::Parity(_) => "parity",
            Handle::Registers(_) => "Registers",
            Handle::RoleRegisters(_) => "RoleRegisters",
        };
        f.write_str(name)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Unit => f.write_str("()"),
            Ty::Prim(p) => write!(f, "{p}"),
            Ty::Vector(p, n) => write!(f, "[{p}; {n}]"),
            Ty::Global {
                elem,
                mutable: false,
            } => write!(f, "&[{elem}]"),
            Ty::Global {
                elem,
                mutable: true,
            } => write!(f, "&mut [{elem}]"),
            Ty::Shared { elem, len } => write!(f, "SharedArray<{elem}, {len}>"),
            Ty::Handle(h) => write!(f, "{h}"),
            Ty::TensorMap(m) => write!(f, "{m}"),
            Ty::MapSlots => write!(f, "&mut [TensorMapSlot]"),
            Ty::MapEdit(m) => write!(f, "MapEdit<{}>", m.arguments()),
        }
    }
}
