//! What a `#[kernel]` item tells the rest of phasegate: its PTX, entry name and parameter
//! layout, so that simulation and launch never need to parse Rust again.

use phasegate_sim::{Interleave, Swizzle, TensorMap, TensorMapArg, TensorMapError, TmaDataType};

/// A scalar type of the kernel language.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum ScalarKind {
    /// `u32` (`.u32` in PTX).
    U32,
    /// `i32` (`.s32`).
    I32,
    /// `u64` (`.u64`).
    U64,
    /// `i64` (`.s64`).
    I64,
    /// `f32` (`.f32`).
    F32,
    /// `f64` (`.f64`).
    F64,
    /// `bool`: one byte in memory and in the parameter block.
    Bool,
    /// `f16` (`half::f16`; `.b16` in memory and parameters).
    F16,
    /// `bf16` (`half::bf16`; `.b16`).
    Bf16,
    /// `f8e4m3` (`float8::F8E4M3`; one byte).
    F8E4M3,
    /// `f8e5m2` (`float8::F8E5M2`; one byte).
    F8E5M2,
}

impl ScalarKind {
    /// Size in bytes of the value in memory (`bool` is one byte, as nvcc passes it).
    pub const fn size(self) -> u32 {
        match self {
            ScalarKind::Bool | ScalarKind::F8E4M3 | ScalarKind::F8E5M2 => 1,
            ScalarKind::F16 | ScalarKind::Bf16 => 2,
            ScalarKind::U32 | ScalarKind::I32 | ScalarKind::F32 => 4,
            ScalarKind::U64 | ScalarKind::I64 | ScalarKind::F64 => 8,
        }
    }
    /// The type as Rust spells it (`u32`, `bool`), for messages about arguments.
    pub const fn rust_name(self) -> &'static str {
        match self {
            ScalarKind::U32 => "u32",
            ScalarKind::I32 => "i32",
            ScalarKind::U64 => "u64",
            ScalarKind::I64 => "i64",
            ScalarKind::F32 => "f32",
            ScalarKind::F64 => "f64",
            ScalarKind::Bool => "bool",
            ScalarKind::F16 => "f16",
            ScalarKind::Bf16 => "bf16",
            ScalarKind::F8E4M3 => "f8e4m3",
            ScalarKind::F8E5M2 => "f8e5m2",
        }
    }
}

/// The element of a slice parameter: a scalar or a vector `[T; lanes]`.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct ElemType {
    /// The scalar type of each lane.
    pub scalar: ScalarKind,
    /// 1 for a scalar, 2 or 4 for `[T; 2]` / `[T; 4]`.
    pub lanes: u8,
}

impl ElemType {
    /// Size in bytes of one element, all lanes together (the stride of the slice).
    pub const fn size(self) -> u32 {
        self.scalar.size() * self.lanes as u32
    }
}

/// The type of one kernel parameter.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum ParamType {
    /// Passed by value.
    Scalar(ScalarKind),
    /// `&[T]` or `&mut [T]`: a 64-bit generic address of global memory.
    Slice {
        /// The element type `T`.
        elem: ElemType,
        /// Whether the kernel takes it as `&mut [T]` (and may write it).
        mutable: bool,
    },
    /// `TensorMap<T, TileN<..>, S>`: a `CUtensorMap` passed by value, as nvcc passes a
    /// `const __grid_constant__ CUtensorMap` (`.param .align 64 .b8 name[128]`).
    TensorMap(MapType),
    /// `&mut [TensorMapSlot]`: a 64-bit generic address of global memory holding 128-byte
    /// tensor maps that the kernel writes (`tensormap.replace`) and its copies then read; the
    /// buffer is a whole number of slots, 64-byte aligned (as every allocation is).
    MapSlots,
}

/// What a tensor-map parameter's type fixes: the element, the box and the swizzle. The launch
/// supplies the rest (the tensor's address, dimensions and strides).
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct MapType {
    /// The element type `T`.
    pub elem: ScalarKind,
    /// Dimensions, 1..=5.
    pub rank: u8,
    /// Box size per dimension in elements, dimension 0 (contiguous) first; 1 past the rank.
    pub box_dims: [u32; 5],
    /// Bytes of the swizzle span: 0 (none), 32, 64 or 128.
    pub swizzle: u32,
}

impl MapType {
    /// Bytes one box occupies in shared memory: what a copy of it completes on its mbarrier.
    pub const fn box_bytes(self) -> u32 {
        let mut bytes = self.elem.size();
        let mut i = 0;
        while i < 5 {
            bytes *= self.box_dims[i];
            i += 1;
        }
        bytes
    }
}

impl MapType {
    /// The tensor map this type describes over a tensor of `dims` elements (dimension 0 first)
    /// with `strides` bytes between the indices of dimensions 1.. (`rank - 1` of them), at
    /// `address`: the element type, box and swizzle come from the type, so the map agrees with
    /// what the kernel expects of every copy. Checked as `cuTensorMapEncodeTiled` checks.
    pub fn tiled(
        self,
        address: u64,
        dims: &[u64],
        strides: &[u64],
    ) -> Result<TensorMap, TensorMapError> {
        let rank = self.rank as usize;
        if dims.len() != rank {
            return Err(TensorMapError(format!(
                "the parameter's map has rank {rank}, {} dimensions given",
                dims.len()
            )));
        }
        let swizzle = match self.swizzle {
            0 => Swizzle::None,
            32 => Swizzle::B32,
            64 => Swizzle::B64,
            128 => Swizzle::B128,
            other => {
                return Err(TensorMapError(format!(
                    "swizzle spans are 0, 32, 64 or 128 bytes, not {other}"
                )));
            }
        };
        TensorMap::tiled(
            self.elem.tma_type()?,
            address,
            dims,
            strides,
            &self.box_dims[..rank],
        )?
        .with_swizzle(swizzle)
    }

    /// Whether a tensor-map argument fits a parameter of this type: passed by value (as the
    /// parameter is) and [`MapType::check`]ed; the message says which field differs.
    pub fn check_arg(self, arg: &TensorMapArg) -> Result<(), String> {
        if arg.in_global {
            return Err(
                "the parameter takes its tensor map by value; the argument asks for a copy in global memory"
                    .into(),
            );
        }
        self.check(&arg.map)
    }

    /// Whether `map` is a map of this type (element, rank, box, swizzle, no interleave), or
    /// which field differs.
    pub fn check(self, map: &TensorMap) -> Result<(), String> {
        let rank = self.rank as usize;
        let want = self.elem.tma_type().map_err(|e| e.0)?;
        if map.dtype != want {
            return Err(format!(
                "the map's element type is {}, the parameter's is {} ({})",
                map.dtype.name(),
                want.name(),
                self.elem.rust_name()
            ));
        }
        if map.rank as usize != rank {
            return Err(format!(
                "the map has rank {}, the parameter's type has rank {rank}",
                map.rank
            ));
        }
        if map.box_dims[..rank] != self.box_dims[..rank] {
            return Err(format!(
                "the map's box is {:?}, the parameter's type has {:?}",
                &map.box_dims[..rank],
                &self.box_dims[..rank]
            ));
        }
        if map.swizzle.span() != self.swizzle {
            return Err(format!(
                "the map swizzles {}-byte spans, the parameter's type {} (0: none)",
                map.swizzle.span(),
                self.swizzle
            ));
        }
        if map.interleave != Interleave::None || map.element_strides[..rank].iter().any(|&s| s != 1)
        {
            return Err(
                "the map interleaves or strides its elements; the parameter's type is a dense tiled map"
                    .into(),
            );
        }
        Ok(())
    }
}

impl ScalarKind {
    /// The tensor-map element type (`CUtensorMapDataType`) of this scalar.
    pub fn tma_type(self) -> Result<TmaDataType, TensorMapError> {
        Ok(match self {
            ScalarKind::U32 => TmaDataType::U32,
            ScalarKind::I32 => TmaDataType::I32,
            ScalarKind::U64 => TmaDataType::U64,
            ScalarKind::I64 => TmaDataType::I64,
            ScalarKind::F32 => TmaDataType::F32,
            ScalarKind::F64 => TmaDataType::F64,
            ScalarKind::F16 => TmaDataType::F16,
            ScalarKind::Bf16 => TmaDataType::Bf16,
            // The driver has no fp8 element type; the copy engine moves fp8 as bytes (CUTLASS
            // describes fp8 tensors as UINT8 too).
            ScalarKind::F8E4M3 | ScalarKind::F8E5M2 => TmaDataType::U8,
            ScalarKind::Bool => {
                return Err(TensorMapError(
                    "a tensor map has no `bool` element type".into(),
                ));
            }
        })
    }
}

impl ParamType {
    /// Bytes in the `.param` space.
    pub const fn size(self) -> u32 {
        match self {
            ParamType::Scalar(s) => s.size(),
            ParamType::Slice { .. } | ParamType::MapSlots => 8,
            ParamType::TensorMap(_) => 128,
        }
    }

    /// Alignment in the `.param` space: a scalar's or pointer's size; 64 bytes for a tensor
    /// map, which the copy engine reads in place (`CUtensorMap` is 64-byte aligned).
    pub const fn align(self) -> u32 {
        match self {
            ParamType::TensorMap(_) => 64,
            other => other.size(),
        }
    }
}

/// One parameter of a kernel, in declaration order.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct ParamSpec {
    /// The Rust name, which is also the `.param` name in the PTX.
    pub name: &'static str,
    /// Its type, which fixes its size and alignment in the `.param` space.
    pub ty: ParamType,
}

/// Everything needed to load and launch a generated kernel.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub struct KernelSpec {
    /// The `.entry` name.
    pub entry: &'static str,
    /// The whole PTX module.
    pub ptx: &'static str,
    /// The `.target`, e.g. `sm_90a`.
    pub target: &'static str,
    /// The parameters, in declaration order (the order of the `.entry`'s `.param`s).
    pub params: &'static [ParamSpec],
    /// Bytes of static shared memory the kernel declares.
    pub static_shared_bytes: u32,
    /// Bytes of dynamic shared memory the kernel needs at least (its pipelines' buffers); a
    /// launch adds what the kernel's `dynamic_shared` use needs.
    pub dynamic_shared_bytes: u32,
    /// The cluster shape the kernel requires (`.reqnctapercluster`), if any.
    pub cluster_dims: Option<(u32, u32, u32)>,
    /// The block shape the kernel requires (`.reqntid`, from `#[kernel(block = "x,y,z")]`).
    pub block_dims: Option<(u32, u32, u32)>,
    /// The most threads a block may have (`.maxntid`, from `#[kernel(max_threads = N)]`).
    pub max_threads: Option<u32>,
}

/// A block shape against launch bounds (`.reqntid`, `.maxntid`): the simulator's check, which
/// the GPU launch shares.
pub use phasegate_sim::check_block;

impl KernelSpec {
    /// A block shape against the kernel's launch bounds (see [`check_block`]). The GPU launch
    /// checks this first, where the driver would only say `CUDA_ERROR_INVALID_VALUE`.
    pub fn check_block(&self, block: (u32, u32, u32)) -> Result<(), String> {
        check_block(
            &format!("`{}`", self.entry),
            self.block_dims,
            self.max_threads.map(u64::from),
            block,
        )
    }

    /// Byte offsets of the parameters in the `.param` space (each aligned to its alignment, as
    /// the CUDA driver lays out kernel parameters), and the total size.
    pub fn param_layout(&self) -> (Vec<u32>, u32) {
        let mut offsets = Vec::with_capacity(self.params.len());
        let mut end = 0u32;
        for p in self.params {
            let size = p.ty.size();
            let offset = end.next_multiple_of(p.ty.align());
            offsets.push(offset);
            end = offset + size;
        }
        (offsets, end)
    }

    /// The type of tensor-map parameter `name`, if the kernel has one of that name.
    pub fn map_type(&self, name: &str) -> Option<MapType> {
        self.params.iter().find_map(|p| match p.ty {
            ParamType::TensorMap(m) if p.name == name => Some(m),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_aligns_each_parameter_to_its_size() {
        const PARAMS: &[ParamSpec] = &[
            ParamSpec {
                name: "flag",
                ty: ParamType::Scalar(ScalarKind::Bool),
            },
            ParamSpec {
                name: "n",
                ty: ParamType::Scalar(ScalarKind::U32),
            },
            ParamSpec {
                name: "x",
                ty: ParamType::Slice {
                    elem: ElemType {
                        scalar: ScalarKind::F32,
                        lanes: 4,
                    },
                    mutable: false,
                },
            },
            ParamSpec {
                name: "a",
                ty: ParamType::Scalar(ScalarKind::F32),
            },
        ];
        let spec = KernelSpec {
            entry: "k",
            ptx: "",
            target: "sm_80",
            params: PARAMS,
            static_shared_bytes: 0,
            dynamic_shared_bytes: 0,
            cluster_dims: None,
            block_dims: None,
            max_threads: None,
        };
        assert_eq!(spec.param_layout(), (vec![0, 4, 8, 16], 20));
    }

    #[test]
    fn blocks_are_checked_against_the_launch_bounds() {
        let free = KernelSpec {
            entry: "k",
            ptx: "",
            target: "sm_90a",
            params: &[],
            static_shared_bytes: 0,
            dynamic_shared_bytes: 0,
            cluster_dims: None,
            block_dims: None,
            max_threads: None,
        };
        assert_eq!(free.check_block((1024, 1, 1)), Ok(()));
        let shaped = KernelSpec {
            block_dims: Some((160, 1, 1)),
            ..free
        };
        assert_eq!(shaped.check_block((160, 1, 1)), Ok(()));
        let e = shaped.check_block((32, 5, 1)).unwrap_err();
        assert!(e.contains(".reqntid") && e.contains("(32, 5, 1)"), "{e}");
        let bounded = KernelSpec {
            max_threads: Some(256),
            ..free
        };
        assert_eq!(bounded.check_block((16, 16, 1)), Ok(()));
        let e = bounded.check_block((16, 16, 2)).unwrap_err();
        assert!(e.contains(".maxntid") && e.contains("512"), "{e}");
    }
}
