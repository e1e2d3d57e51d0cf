//! `CUtensorMap`: the 128-byte tensor-map object (PTX ISA §5.5.8, "Tensor-map") that tensor
//! copies (`cp.async.bulk.tensor`, `cp.reduce.async.bulk.tensor`) read their tensor and box
//! from. The driver calls it opaque; [`TensorMap::encode`] writes the bytes
//! `cuTensorMapEncodeTiled` writes and [`TensorMap::decode`] reads them (and maps made on the
//! device with `tensormap.replace`).
//!
//! The layout, as little-endian 64-bit words (found by encoding 715 maps with the CUDA 13.0
//! driver on an H100, each field varied alone, and by `tensormap.replace` of each field on
//! that GPU; both agree; the vectors are in `tests/fixtures/tensormap/`):
//!
//! | word | bits | field |
//! | --- | --- | --- |
//! | 0 | 0..64 | global address |
//! | 1 | 4..7 | rank − 1 |
//! | 1 | 7..11 | element type, `tensormap.replace .elemtype` numbering (tf32: f32 or f32.ftz with bit 16) |
//! | 1 | 11..13 | interleave (0 none, 1 16 B, 2 32 B) |
//! | 1 | 13..15 | swizzle (0 none, 1 32 B, 2 64 B, 3 128 B) |
//! | 1 | 15 | out-of-bounds fill (1: NaN, request zero FMA) |
//! | 1 | 16 | tf32 |
//! | 1 | 17..19 | L2 promotion (0 none, 1 64 B, 2 128 B, 3 256 B) |
//! | 1..3 | 32 bits from bit 96 + 32 i | global stride of dimension i + 1, in 16-byte units, low 32 bits |
//! | 3 | 32 + 4 i .. 36 + 4 i | the same, bits 32..36 |
//! | 4..6 | 32 bits from bit 256 + 32 i | global dimension i − 1 |
//! | 6 | 32 + 3 i .. 35 + 3 i | element stride i − 1 |
//! | 6 | 56..64 | box dimension 0 − 1 |
//! | 7 | 8 i − 8 .. 8 i | box dimension i − 1 (i = 1..4) |
//! | 8 | 0..64 | box bytes, elem size × Π ⌊box / element stride⌋ (written by the driver only) |
//! | 9 | 0..64 | shared-memory alignment the swizzle needs: 16, 256, 512, 1024 (driver only) |
//! | 10..15 | | zero |
//!
//! Fields of dimensions past the rank are zero. Words 8 and 9 are derived: the driver fills
//! them, `tensormap.replace` never touches them and a map made from zeros (as Triton makes
//! them on the device) works with them zero, so [`TensorMap::decode`] ignores them.

use std::fmt;

/// The element type of a tensor map (`CUtensorMapDataType`, in the driver's numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaDataType {
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT8`.
    U8,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT16`.
    U16,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT32`.
    U32,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT32`.
    I32,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT64`.
    U64,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT64`.
    I64,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT16`: IEEE half precision.
    F16,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32`.
    F32,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT64`.
    F64,
    /// `CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`.
    Bf16,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ`: `f32`, subnormals flushed to zero; copied as
    /// `f32`.
    F32Ftz,
    /// `CU_TENSOR_MAP_DATA_TYPE_TFLOAT32`: `f32` in memory; a load rounds each value to 10
    /// mantissa bits (as an H100 does).
    Tf32,
    /// `CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ`: tf32 with subnormals flushed to zero.
    Tf32Ftz,
}

const TYPES: [TmaDataType; 13] = [
    TmaDataType::U8,
    TmaDataType::U16,
    TmaDataType::U32,
    TmaDataType::I32,
    TmaDataType::U64,
    TmaDataType::I64,
    TmaDataType::F16,
    TmaDataType::F32,
    TmaDataType::F64,
    TmaDataType::Bf16,
    TmaDataType::F32Ftz,
    TmaDataType::Tf32,
    TmaDataType::Tf32Ftz,
];

impl TmaDataType {
    /// The `CUtensorMapDataType` value.
    pub fn driver_code(self) -> u32 {
        TYPES.iter().position(|&t| t == self).expect("listed") as u32
    }
    /// The type of a `CUtensorMapDataType` value (`None` past `TFLOAT32_FTZ`).
    pub fn from_driver_code(code: u32) -> Option<TmaDataType> {
        TYPES.get(code as usize).copied()
    }
    /// The value `tensormap.replace.tile.elemtype` takes (PTX ISA, Table "Tensormap new_val
    /// validity"): `.u8 .u16 .u32 .s32 .u64 .s64 .f16 .f32 .f32.ftz .f64 .bf16 .tf32
    /// .tf32.ftz` are 0..12.
    pub fn ptx_code(self) -> u32 {
        match self {
            TmaDataType::U8 => 0,
            TmaDataType::U16 => 1,
            TmaDataType::U32 => 2,
            TmaDataType::I32 => 3,
            TmaDataType::U64 => 4,
            TmaDataType::I64 => 5,
            TmaDataType::F16 => 6,
            TmaDataType::F32 => 7,
            TmaDataType::F32Ftz => 8,
            TmaDataType::F64 => 9,
            TmaDataType::Bf16 => 10,
            TmaDataType::Tf32 => 11,
            TmaDataType::Tf32Ftz => 12,
        }
    }
    /// The type of a `tensormap.replace.tile.elemtype` value ([`TmaDataType::ptx_code`]).
    pub fn from_ptx_code(code: u32) -> Option<TmaDataType> {
        TYPES.iter().copied().find(|t| t.ptx_code() == code)
    }
    /// Bytes of one element.
    pub fn bytes(self) -> u32 {
        match self {
            TmaDataType::U8 => 1,
            TmaDataType::U16 | TmaDataType::F16 | TmaDataType::Bf16 => 2,
            TmaDataType::U64 | TmaDataType::I64 | TmaDataType::F64 => 8,
            _ => 4,
        }
    }
    /// Whether the type is floating-point (the NaN out-of-bounds fill needs one).
    pub fn is_float(self) -> bool {
        !matches!(
            self,
            TmaDataType::U8
                | TmaDataType::U16
                | TmaDataType::U32
                | TmaDataType::I32
                | TmaDataType::U64
                | TmaDataType::I64
        )
    }
    /// The name [`TmaDataType::from_name`] reads: `u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16
    /// f32ftz tf32 tf32ftz` (`i32`, `i64` too).
    pub fn name(self) -> &'static str {
        match self {
            TmaDataType::U8 => "u8",
            TmaDataType::U16 => "u16",
            TmaDataType::U32 => "u32",
            TmaDataType::I32 => "s32",
            TmaDataType::U64 => "u64",
            TmaDataType::I64 => "s64",
            TmaDataType::F16 => "f16",
            TmaDataType::F32 => "f32",
            TmaDataType::F64 => "f64",
            TmaDataType::Bf16 => "bf16",
            TmaDataType::F32Ftz => "f32ftz",
            TmaDataType::Tf32 => "tf32",
            TmaDataType::Tf32Ftz => "tf32ftz",
        }
    }
    /// The type [`TmaDataType::name`] names (`i32` and `i64` are read too).
    pub fn from_name(name: &str) -> Option<TmaDataType> {
        match name {
            "i32" => Some(TmaDataType::I32),
            "i64" => Some(TmaDataType::I64),
            _ => TYPES.iter().copied().find(|t| t.name() == name),
        }
    }
}

/// `CUtensorMapInterleave`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interleave {
    /// `CU_TENSOR_MAP_INTERLEAVE_NONE`: dimension 0 is contiguous.
    None,
    /// `CU_TENSOR_MAP_INTERLEAVE_16B`: dimension 0 is 16-byte chunks of channels (NC/8HWC8
    /// for 16-bit types).
    B16,
    /// `CU_TENSOR_MAP_INTERLEAVE_32B`: 32-byte chunks (NC/16HWC16 for 16-bit types); the
    /// address and strides are then 32-byte aligned.
    B32,
}

/// `CUtensorMapSwizzle` as Hopper has it (the 128-byte swizzles with 32- and 64-byte atoms are
/// sm_100's; the CUDA 13.0 driver refuses them on an H100).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_NONE`: the box lands in shared memory row by row.
    None,
    /// `CU_TENSOR_MAP_SWIZZLE_32B`: 16-byte chunks permuted within 32-byte spans.
    B32,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`: within 64-byte spans.
    B64,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`: within 128-byte spans.
    B128,
}

impl Swizzle {
    fn code(self) -> u64 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 1,
            Swizzle::B64 => 2,
            Swizzle::B128 => 3,
        }
    }
    /// Bytes of the span the swizzle permutes 16-byte chunks in (0 without swizzle).
    pub fn span(self) -> u32 {
        match self {
            Swizzle::None => 0,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 => 128,
        }
    }
    /// The shared-memory address `a` a swizzled box element at unswizzled address `a` lands
    /// at: bits 4.. of the address (its 16-byte chunk within a 128-byte line) XOR the line's
    /// index bits 7.. (PTX ISA §5.5.7; CuTe's `Swizzle<1,4,3>`, `<2,4,3>`, `<3,4,3>`). The
    /// pattern follows the absolute address: a box that does not start at the pattern's
    /// 256/512/1024-byte boundary starts in its middle (an H100 does so).
    pub fn apply(self, a: u32) -> u32 {
        let mask = match self {
            Swizzle::None => return a,
            Swizzle::B32 => 1,
            Swizzle::B64 => 3,
            Swizzle::B128 => 7,
        };
        a ^ (((a >> 7) & mask) << 4)
    }
    /// The alignment the driver records in word 9.
    fn alignment(self) -> u64 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 256,
            Swizzle::B64 => 512,
            Swizzle::B128 => 1024,
        }
    }
}

/// `CUtensorMapL2promotion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum L2Promotion {
    /// `CU_TENSOR_MAP_L2_PROMOTION_NONE`.
    None,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_64B`: L2 fetches of 64 bytes.
    B64,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_128B`.
    B128,
    /// `CU_TENSOR_MAP_L2_PROMOTION_L2_256B`.
    B256,
}

/// `CUtensorMapFloatOOBfill`: what out-of-bounds elements of a box read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OobFill {
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`: out-of-bounds elements read as zero.
    Zero,
    /// `CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA`: the NaN an H100 writes is the
    /// 16-bit 0x7ff7 repeated (0x7ff7 for f16/bf16, 0x7ff77ff7 for f32, 0x7ff77ff77ff77ff7 for
    /// f64).
    NanRequestZeroFma,
}

/// Why a tensor map is not one `cuTensorMapEncodeTiled` would make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapError(
    /// What is wrong, lowercase, naming the field and the allowed values.
    pub String,
);

impl fmt::Display for TensorMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TensorMapError {}

fn err<T>(msg: impl Into<String>) -> Result<T, TensorMapError> {
    Err(TensorMapError(msg.into()))
}

/// Most bytes of one box the driver accepts (it refused 253952 and accepted 172800; the limit
/// is taken as an H100's 227 KiB of shared memory per CTA).
const MAX_BOX_BYTES: u64 = 227 * 1024;

/// A tiled tensor map: the arguments of `cuTensorMapEncodeTiled`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorMap {
    /// The element type (`tensorDataType`).
    pub dtype: TmaDataType,
    /// Dimensions, 1..=5 (`tensorRank`).
    pub rank: u32,
    /// Where the tensor starts in global memory (`globalAddress`): 16-byte aligned, 32-byte
    /// with a 32-byte interleave.
    pub address: u64,
    /// Elements per dimension, dimension 0 (contiguous) first (`globalDim`); entries past the
    /// rank are 1.
    pub dims: [u64; 5],
    /// `strides[i]`: bytes between consecutive indices of dimension i + 1 (the driver's
    /// `globalStrides`); entries past rank − 1 are 0.
    pub strides: [u64; 4],
    /// Box size per dimension, in elements (`boxDim`); entries past the rank are 1.
    pub box_dims: [u32; 5],
    /// Traversal strides (1..=8; `elementStrides`): a copy takes every s-th element of the
    /// box; entries past the rank are 1.
    pub element_strides: [u32; 5],
    /// How dimension 0 interleaves channels (`interleave`).
    pub interleave: Interleave,
    /// How the box is laid out in shared memory (`swizzle`).
    pub swizzle: Swizzle,
    /// How large the L2 fetches are (`l2Promotion`); a hint, without effect in the simulator.
    pub l2_promotion: L2Promotion,
    /// What out-of-bounds elements of a box read as (`oobFill`).
    pub oob_fill: OobFill,
}

impl TensorMap {
    /// A map of `dims` elements (dimension 0 first) at `address`, with `strides` bytes between
    /// the indices of dimensions 1.. (`dims.len() - 1` of them), loading boxes of `box_dims`;
    /// element strides 1, no interleave, no swizzle, no L2 promotion, zero fill. Checked as
    /// the driver checks ([`TensorMap::validate`]).
    pub fn tiled(
        dtype: TmaDataType,
        address: u64,
        dims: &[u64],
        strides: &[u64],
        box_dims: &[u32],
    ) -> Result<TensorMap, TensorMapError> {
        let rank = dims.len();
        if !(1..=5).contains(&rank) {
            return err(format!("a tensor map has 1 to 5 dimensions, not {rank}"));
        }
        if strides.len() + 1 != rank || box_dims.len() != rank {
            return err(format!(
                "a rank-{rank} tensor map takes {rank} dimensions, {} strides and {rank} box dimensions ({} and {} given)",
                rank - 1,
                strides.len(),
                box_dims.len()
            ));
        }
        let mut m = TensorMap {
            dtype,
            rank: rank as u32,
            address,
            dims: [1; 5],
            strides: [0; 4],
            box_dims: [1; 5],
            element_strides: [1; 5],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        };
        m.dims[..rank].copy_from_slice(dims);
        m.strides[..rank - 1].copy_from_slice(strides);
        m.box_dims[..rank].copy_from_slice(box_dims);
        m.validate()?;
        Ok(m)
    }

    /// The same map with another swizzle (checked).
    pub fn with_swizzle(mut self, swizzle: Swizzle) -> Result<TensorMap, TensorMapError> {
        self.swizzle = swizzle;
        self.validate().map(|_| self)
    }
    /// The same map with another out-of-bounds fill (checked).
    pub fn with_oob_fill(mut self, fill: OobFill) -> Result<TensorMap, TensorMapError> {
        self.oob_fill = fill;
        self.validate().map(|_| self)
    }
    /// The same map with traversal strides (one per dimension; checked).
    pub fn with_element_strides(mut self, s: &[u32]) -> Result<TensorMap, TensorMapError> {
        if s.len() != self.rank as usize {
            return err(format!(
                "{} element strides for a rank-{} map",
                s.len(),
                self.rank
            ));
        }
        self.element_strides = [1; 5];
        self.element_strides[..s.len()].copy_from_slice(s);
        self.validate().map(|_| self)
    }
    /// The same map with another L2 promotion.
    pub fn with_l2_promotion(mut self, l2: L2Promotion) -> TensorMap {
        self.l2_promotion = l2;
        self
    }
    /// The same map with another interleave (checked).
    pub fn with_interleave(mut self, il: Interleave) -> Result<TensorMap, TensorMapError> {
        self.interleave = il;
        self.validate().map(|_| self)
    }

    /// The requirements `cuTensorMapEncodeTiled` documents for Hopper, and those the CUDA 13.0
    /// driver showed on an H100 (the largest box).
    pub fn validate(&self) -> Result<(), TensorMapError> {
        let r = self.rank as usize;
        let e = self.dtype.bytes() as u64;
        if !(1..=5).contains(&r) {
            return err(format!(
                "a tensor map has 1 to 5 dimensions, not {}",
                self.rank
            ));
        }
        if self.interleave != Interleave::None && r < 3 {
            return err("an interleaved tensor map has at least 3 dimensions");
        }
        let align = if self.interleave == Interleave::B32 {
            32
        } else {
            16
        };
        if !self.address.is_multiple_of(align) {
            return err(format!(
                "the global address 0x{:x} is not {align}-byte aligned",
                self.address
            ));
        }
        if self.address >= 1 << 57 {
            return err(format!(
                "the global address 0x{:x} has more than 57 bits",
                self.address
            ));
        }
        for i in 0..r {
            let d = self.dims[i];
            if d == 0 || d > 1 << 32 {
                return err(format!("dimension {i} has {d} elements; 1 to 2^32"));
            }
        }
        for i in 0..r.saturating_sub(1) {
            let s = self.strides[i];
            if !s.is_multiple_of(align) || s >= 1 << 40 {
                return err(format!(
                    "the stride of dimension {} is {s} bytes; a multiple of {align} below 2^40",
                    i + 1
                ));
            }
        }
        for i in 0..r {
            let b = self.box_dims[i];
            if b == 0 || b > 256 {
                return err(format!("box dimension {i} is {b}; 1 to 256 elements"));
            }
            let s = self.element_strides[i];
            if s == 0 || s > 8 {
                return err(format!("element stride {i} is {s}; 1 to 8"));
            }
        }
        let inner = self.box_dims[0] as u64 * e;
        if self.interleave == Interleave::None {
            if !inner.is_multiple_of(16) {
                return err(format!(
                    "the box's inner dimension is {inner} bytes ({} × {e}); a multiple of 16",
                    self.box_dims[0]
                ));
            }
            if self.swizzle != Swizzle::None && inner > self.swizzle.span() as u64 {
                return err(format!(
                    "the box's inner dimension is {inner} bytes, more than the {}-byte swizzle span",
                    self.swizzle.span()
                ));
            }
        }
        // The driver documents that a 32-byte interleave takes the 32-byte swizzle, but the
        // CUDA 13.0 driver encodes the other swizzles too: not checked.
        if self.oob_fill == OobFill::NanRequestZeroFma && !self.dtype.is_float() {
            return err(format!(
                "the NaN out-of-bounds fill needs a floating-point type, not {}",
                self.dtype.name()
            ));
        }
        let bytes = self.driver_box_bytes();
        if bytes > MAX_BOX_BYTES {
            return err(format!(
                "a box of {bytes} bytes; the driver takes at most {MAX_BOX_BYTES}"
            ));
        }
        Ok(())
    }

    /// Word 8 as the driver computes it: elem × Π ⌊box_i / element stride_i⌋ (dimension 0's
    /// stride included, although the copy ignores it).
    fn driver_box_bytes(&self) -> u64 {
        (0..self.rank as usize).fold(self.dtype.bytes() as u64, |n, i| {
            n * (self.box_dims[i] / self.element_strides[i]) as u64
        })
    }

    /// The 128 bytes `cuTensorMapEncodeTiled` writes for this map (fields as they are;
    /// [`TensorMap::validate`] says whether the driver would accept them).
    pub fn encode(&self) -> [u8; 128] {
        let r = (self.rank as usize).clamp(1, 5);
        let mut w = [0u64; 16];
        w[0] = self.address;
        let (ty, tf32) = type_fields(self.dtype);
        w[1] = ((r as u64 - 1) << 4)
            | (ty << 7)
            | (interleave_code(self.interleave) << 11)
            | (self.swizzle.code() << 13)
            | ((self.oob_fill == OobFill::NanRequestZeroFma) as u64) << 15
            | (tf32 as u64) << 16
            | (l2_code(self.l2_promotion) << 17);
        for i in 0..r - 1 {
            set_stride(&mut w, i, self.strides[i] >> 4);
        }
        for i in 0..r {
            set_dim(&mut w, i, self.dims[i].wrapping_sub(1) & 0xffff_ffff);
            set_estride(
                &mut w,
                i,
                (self.element_strides[i].wrapping_sub(1) & 7) as u64,
            );
            set_box(&mut w, i, (self.box_dims[i].wrapping_sub(1) & 0xff) as u64);
        }
        w[8] = self.driver_box_bytes();
        w[9] = self.swizzle.alignment();
        let mut out = [0u8; 128];
        for (chunk, v) in out.chunks_exact_mut(8).zip(w) {
            chunk.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads a tensor map (as the driver or `tensormap.replace` wrote it). Fails on fields no
    /// Hopper tile-mode map has (an element type past tf32.ftz, reserved bits).
    pub fn decode(bytes: &[u8; 128]) -> Result<TensorMap, TensorMapError> {
        let w = words(bytes);
        let f = w[1];
        if f & 0xf != 0 || (f >> 19) & 0x1fff != 0 {
            return err(format!(
                "bits the tile mode does not use are set in word 1 (0x{:08x}): not a tile-mode tensor map of sm_90",
                f as u32
            ));
        }
        let rank = ((f >> 4) & 7) as u32 + 1;
        if rank > 5 {
            return err(format!("rank field {} (rank {rank})", rank - 1));
        }
        let ty = ((f >> 7) & 0xf) as u32;
        let tf32 = (f >> 16) & 1 == 1;
        let dtype = match (ty, tf32) {
            (7, true) => TmaDataType::Tf32,
            (8, true) => TmaDataType::Tf32Ftz,
            (t, false) if t <= 10 => TmaDataType::from_ptx_code(t).expect("0..=10"),
            _ => {
                return err(format!(
                    "element type {ty}{} is none of sm_90's",
                    if tf32 { " with the tf32 bit" } else { "" }
                ));
            }
        };
        let interleave = match (f >> 11) & 3 {
            0 => Interleave::None,
            1 => Interleave::B16,
            2 => Interleave::B32,
            _ => return err("interleave field 3"),
        };
        let swizzle = match (f >> 13) & 3 {
            0 => Swizzle::None,
            1 => Swizzle::B32,
            2 => Swizzle::B64,
            _ => Swizzle::B128,
        };
        let oob_fill = if (f >> 15) & 1 == 1 {
            OobFill::NanRequestZeroFma
        } else {
            OobFill::Zero
        };
        let l2_promotion = match (f >> 17) & 3 {
            0 => L2Promotion::None,
            1 => L2Promotion::B64,
            2 => L2Promotion::B128,
            _ => L2Promotion::B256,
        };
        let mut m = TensorMap {
            dtype,
            rank,
            address: w[0],
            dims: [1; 5],
            strides: [0; 4],
            box_dims: [1; 5],
            element_strides: [1; 5],
            interleave,
            swizzle,
            l2_promotion,
            oob_fill,
        };
        for i in 0..rank as usize {
            m.dims[i] = get_dim(&w, i) + 1;
            m.box_dims[i] = get_box(&w, i) as u32 + 1;
            m.element_strides[i] = get_estride(&w, i) as u32 + 1;
        }
        for i in 0..rank as usize - 1 {
            m.strides[i] = get_stride(&w, i) << 4;
        }
        Ok(m)
    }

    /// Elements the copy moves along dimension `i`: ⌈box / element stride⌉, and the whole box
    /// along dimension 0 of a non-interleaved map (whose element stride the copy ignores, as
    /// the driver documents and an H100 does).
    pub fn box_count(&self, i: usize) -> u32 {
        if i >= self.rank as usize {
            return 1;
        }
        if i == 0 && self.interleave == Interleave::None {
            return self.box_dims[0];
        }
        self.box_dims[i].div_ceil(self.element_strides[i].max(1))
    }

    /// Bytes of data one copy of the box moves (the complete-tx count of a load).
    pub fn box_bytes(&self) -> u64 {
        (0..self.rank as usize).fold(self.dtype.bytes() as u64, |n, i| {
            n * self.box_count(i) as u64
        })
    }

    /// Bytes between consecutive rows of the box in shared memory: the inner dimension's
    /// bytes, padded to the swizzle span when swizzled (an H100 leaves the padding unwritten).
    pub fn smem_pitch(&self) -> u32 {
        let inner = self.box_count(0) * self.dtype.bytes();
        inner.max(self.swizzle.span())
    }

    /// Bytes of shared memory the box spans (before swizzling).
    pub fn smem_footprint(&self) -> u64 {
        let rows = (1..self.rank as usize).fold(1u64, |n, i| n * self.box_count(i) as u64);
        rows * self.smem_pitch() as u64
    }

    /// The out-of-bounds fill of one element (little-endian bytes, `bytes()` of them).
    pub fn fill_bytes(&self) -> [u8; 8] {
        match self.oob_fill {
            OobFill::Zero => [0; 8],
            OobFill::NanRequestZeroFma => [0xf7, 0x7f, 0xf7, 0x7f, 0xf7, 0x7f, 0xf7, 0x7f],
        }
    }

    /// Reads a command-line description of a map over a buffer argument (see
    /// [`TensorMapSpec`]); the address is left 0 for the launch to fill in.
    pub fn parse_spec(spec: &str) -> Result<TensorMapSpec, TensorMapError> {
        TensorMapSpec::parse(spec)
    }
}

/// A tensor map and its tensor, as the command line gives them:
/// The memory a tensor-map argument describes.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorSource {
    /// Buffer argument `i` of the same launch ([`ArgValue::Buffer`](crate::ArgValue::Buffer)).
    Arg(usize),
    /// A global buffer of its own (not a kernel parameter), whose final contents the run
    /// copies back here.
    Own(Vec<u8>),
}

/// `TENSOR:TYPE:DIMS:STRIDES:BOX[:OPTION]...` (after `tmap:`), e.g.
/// `1:f16:100x50:-:64x8:swizzle=128`.
///
/// - `TENSOR`: the index of the buffer argument the map points at (its address, at the
///   launch), or `zero=N` (a zero-filled buffer of N bytes of its own) or `file=PATH` (one
///   holding PATH's bytes), for kernels that take only the map;
/// - `TYPE`: `u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz`;
/// - `DIMS`: elements per dimension, dimension 0 first, `x`-separated (1 to 5 of them);
/// - `STRIDES`: bytes between indices of dimensions 1.., `x`-separated, or `-` for a dense
///   tensor (rows padded to 16 bytes);
/// - `BOX`: the box, `x`-separated;
/// - options: `swizzle=none|32|64|128`, `oob=zero|nan`, `estride=AxB..`, `l2=none|64|128|256`,
///   `offset=BYTES` (into the buffer), `global` (pass the address of a 128-byte copy in global
///   memory instead of the 128 bytes by value).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapSpec {
    /// `TENSOR`: a buffer argument, or a buffer of its own.
    pub tensor: TensorSource,
    /// `offset=`: bytes into the tensor's buffer where the map's tensor starts.
    pub offset: u64,
    /// The map, with address 0 until the launch.
    pub map: TensorMap,
    /// `global`: pass the address of a copy in global memory instead of the 128 bytes.
    pub in_global: bool,
}

fn list<T: std::str::FromStr>(text: &str, what: &str) -> Result<Vec<T>, TensorMapError> {
    text.split('x')
        .map(|p| {
            p.parse::<T>()
                .map_err(|_| TensorMapError(format!("`{p}` in `{text}` is not a valid {what}")))
        })
        .collect()
}

impl TensorMapSpec {
    /// Reads `TENSOR:TYPE:DIMS:STRIDES:BOX[:OPTION]...`, checking the map as the driver would
    /// (`file=PATH` is read here).
    pub fn parse(spec: &str) -> Result<TensorMapSpec, TensorMapError> {
        let parts: Vec<&str> = spec.split(':').collect();
        if parts.len() < 5 {
            return err(format!(
                "`{spec}` is not BUF:TYPE:DIMS:STRIDES:BOX[:OPTION]..."
            ));
        }
        let tensor = match parts[0].split_once('=') {
            Some(("zero", n)) => TensorSource::Own(vec![
                0;
                n.parse().map_err(|_| {
                    TensorMapError(format!("zero=`{n}` is not a byte count"))
                })?
            ]),
            Some(("file", path)) => TensorSource::Own(
                std::fs::read(path)
                    .map_err(|e| TensorMapError(format!("cannot read `{path}`: {e}")))?,
            ),
            _ => TensorSource::Arg(parts[0].parse().map_err(|_| {
                TensorMapError(format!(
                    "`{}` is neither a buffer argument index, zero=N nor file=PATH",
                    parts[0]
                ))
            })?),
        };
        let dtype = TmaDataType::from_name(parts[1]).ok_or_else(|| {
            TensorMapError(format!(
                "`{}` is not an element type (u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 f32ftz tf32 tf32ftz)",
                parts[1]
            ))
        })?;
        let dims: Vec<u64> = list(parts[2], "dimension")?;
        let strides: Vec<u64> = match parts[3] {
            "-" | "" => {
                let mut s = Vec::new();
                let mut stride = (dims[0] * dtype.bytes() as u64).div_ceil(16) * 16;
                for d in dims.iter().skip(1) {
                    s.push(stride);
                    stride = stride.saturating_mul(*d);
                }
                s
            }
            t => list(t, "stride")?,
        };
        let box_dims: Vec<u32> = list(parts[4], "box dimension")?;
        let mut map = TensorMap {
            dtype,
            rank: dims.len() as u32,
            address: 0,
            dims: [1; 5],
            strides: [0; 4],
            box_dims: [1; 5],
            element_strides: [1; 5],
            interleave: Interleave::None,
            swizzle: Swizzle::None,
            l2_promotion: L2Promotion::None,
            oob_fill: OobFill::Zero,
        };
        let r = dims.len();
        if !(1..=5).contains(&r) || strides.len() + 1 != r || box_dims.len() != r {
            return err(format!(
                "`{spec}`: {} dimensions, {} strides and {} box dimensions (a rank-R map has R, R-1 and R; 1 <= R <= 5)",
                r,
                strides.len(),
                box_dims.len()
            ));
        }
        map.dims[..r].copy_from_slice(&dims);
        map.strides[..r - 1].copy_from_slice(&strides);
        map.box_dims[..r].copy_from_slice(&box_dims);
        let mut offset = 0;
        let mut in_global = false;
        for opt in &parts[5..] {
            let (k, v) = opt.split_once('=').unwrap_or((opt, ""));
            match (k, v) {
                ("swizzle", v) => {
                    map.swizzle = match v {
                        "none" | "0" => Swizzle::None,
                        "32" => Swizzle::B32,
                        "64" => Swizzle::B64,
                        "128" => Swizzle::B128,
                        _ => return err(format!("swizzle `{v}`: none, 32, 64 or 128")),
                    }
                }
                ("oob", "zero") => map.oob_fill = OobFill::Zero,
                ("oob", "nan") => map.oob_fill = OobFill::NanRequestZeroFma,
                ("estride", v) => {
                    let s: Vec<u32> = list(v, "element stride")?;
                    if s.len() != r {
                        return err(format!("{} element strides for a rank-{r} map", s.len()));
                    }
                    map.element_strides[..r].copy_from_slice(&s);
                }
                ("l2", v) => {
                    map.l2_promotion = match v {
                        "none" => L2Promotion::None,
                        "64" => L2Promotion::B64,
                        "128" => L2Promotion::B128,
                        "256" => L2Promotion::B256,
                        _ => return err(format!("l2 `{v}`: none, 64, 128 or 256")),
                    }
                }
                ("offset", v) => {
                    offset = v
                        .parse()
                        .map_err(|_| TensorMapError(format!("offset `{v}` is not a number")))?
                }
                ("global", "") => in_global = true,
                _ => {
                    return err(format!(
                        "unknown option `{opt}` (swizzle=, oob=zero|nan, estride=, l2=, offset=, global)"
                    ));
                }
            }
        }
        // Checked with a stand-in address: the real one is the buffer's, 256-byte aligned.
        TensorMap {
            address: offset,
            ..map.clone()
        }
        .validate()?;
        Ok(TensorMapSpec {
            tensor,
            offset,
            map,
            in_global,
        })
    }
}

/// A field `tensormap.replace` replaces (PTX ISA §9.7.9.28).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Field {
    GlobalAddress,
    Rank,
    BoxDim(u8),
    GlobalDim(u8),
    GlobalStride(u8),
    ElementStride(u8),
    ElemType,
    InterleaveLayout,
    SwizzleMode,
    FillMode,
}

/// `tensormap.replace.tile.FIELD` of `value` on the 128 bytes of a map, as an H100 does it
/// (`tests/fixtures/tensormap/replace.txt`): the value's encoding (dims, boxes and element
/// strides minus one, strides in 16-byte units, the rank as given) replaces the field's bits
/// and nothing else; words 8 and 9 stay as they are. `Err` for a value no sm_90 map has.
pub(crate) fn replace(bytes: &mut [u8; 128], field: Field, value: u64) -> Result<(), String> {
    let mut w = words(bytes);
    let set = |w: &mut [u64; 16], word: usize, lo: u32, bits: u32, v: u64| {
        let m = ((1u64 << bits) - 1) << lo;
        w[word] = (w[word] & !m) | ((v << lo) & m);
    };
    match field {
        Field::GlobalAddress => w[0] = value,
        Field::Rank => set(&mut w, 1, 4, 3, value),
        Field::BoxDim(i) => set_box(&mut w, i as usize, value.wrapping_sub(1) & 0xff),
        Field::GlobalDim(i) => set_dim(&mut w, i as usize, value.wrapping_sub(1) & 0xffff_ffff),
        Field::GlobalStride(i) => set_stride(&mut w, i as usize, value >> 4),
        Field::ElementStride(i) => set_estride(&mut w, i as usize, value.wrapping_sub(1) & 7),
        Field::ElemType => {
            let t = TmaDataType::from_ptx_code(value as u32).ok_or_else(|| {
                format!(
                    "elemtype {value}: sm_90 has 0..=12 (.b4x16 and the 6-bit types are sm_100's)"
                )
            })?;
            let (ty, tf32) = type_fields(t);
            set(&mut w, 1, 7, 4, ty);
            set(&mut w, 1, 16, 1, tf32 as u64);
        }
        Field::InterleaveLayout => {
            if value > 2 {
                return Err(format!("interleave_layout {value}: 0, 1 or 2"));
            }
            set(&mut w, 1, 11, 2, value)
        }
        Field::SwizzleMode => {
            if value > 3 {
                return Err(format!(
                    "swizzle_mode {value}: sm_90 has 0..=3 (the 96-byte swizzle is sm_103's)"
                ));
            }
            set(&mut w, 1, 13, 2, value)
        }
        Field::FillMode => {
            if value > 1 {
                return Err(format!("fill_mode {value}: 0 or 1"));
            }
            set(&mut w, 1, 15, 1, value)
        }
    }
    for (chunk, v) in bytes.chunks_exact_mut(8).zip(w) {
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    Ok(())
}

fn words(bytes: &[u8; 128]) -> [u64; 16] {
    std::array::from_fn(|i| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8")))
}

fn type_fields(t: TmaDataType) -> (u64, bool) {
    match t {
        TmaDataType::Tf32 => (TmaDataType::F32.ptx_code() as u64, true),
        TmaDataType::Tf32Ftz => (TmaDataType::F32Ftz.ptx_code() as u64, true),
        other => (other.ptx_code() as u64, false),
    }
}

fn interleave_code(i: Interleave) -> u64 {
    match i {
        Interleave::None => 0,
        Interleave::B16 => 1,
        Interleave::B32 => 2,
    }
}

fn l2_code(l: L2Promotion) -> u64 {
    match l {
        L2Promotion::None => 0,
        L2Promotion::B64 => 1,
        L2Promotion::B128 => 2,
        L2Promotion::B256 => 3,
    }
}

/// Bit `bit` of the 1024 (as word, offset).
fn at(bit: usize) -> (usize, u32) {
    (bit / 64, (bit % 64) as u32)
}

fn put(w: &mut [u64; 16], bit: usize, bits: u32, v: u64) {
    let (word, lo) = at(bit);
    let m = ((1u64 << bits) - 1) << lo;
    w[word] = (w[word] & !m) | ((v << lo) & m);
}

fn get(w: &[u64; 16], bit: usize, bits: u32) -> u64 {
    let (word, lo) = at(bit);
    (w[word] >> lo) & ((1u64 << bits) - 1)
}

fn set_stride(w: &mut [u64; 16], i: usize, units: u64) {
    put(w, 96 + 32 * i, 32, units & 0xffff_ffff);
    put(w, 224 + 4 * i, 4, (units >> 32) & 0xf);
}

fn get_stride(w: &[u64; 16], i: usize) -> u64 {
    get(w, 96 + 32 * i, 32) | get(w, 224 + 4 * i, 4) << 32
}

fn set_dim(w: &mut [u64; 16], i: usize, v: u64) {
    put(w, 256 + 32 * i, 32, v);
}

fn get_dim(w: &[u64; 16], i: usize) -> u64 {
    get(w, 256 + 32 * i, 32)
}

fn set_estride(w: &mut [u64; 16], i: usize, v: u64) {
    put(w, 416 + 3 * i, 3, v);
}

fn get_estride(w: &[u64; 16], i: usize) -> u64 {
    get(w, 416 + 3 * i, 3)
}

fn set_box(w: &mut [u64; 16], i: usize, v: u64) {
    put(w, 440 + 8 * i, 8, v);
}

fn get_box(w: &[u64; 16], i: usize) -> u64 {
    get(w, 440 + 8 * i, 8)
}

/// f32 bits rounded to tf32 (10 mantissa bits, to nearest, ties away from zero), as an H100's
/// tensor copy of a tf32 map delivers them (NaN and infinity unchanged).
pub(crate) fn round_tf32(bits: u32) -> u32 {
    if (bits >> 23) & 0xff == 0xff {
        return bits;
    }
    bits.wrapping_add(0x1000) & !0x1fff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip() {
        let m = TensorMap::tiled(
            TmaDataType::F16,
            0x7f12_3456_0000,
            &[256, 64, 8],
            &[512, 512 * 64],
            &[64, 16, 2],
        )
        .unwrap()
        .with_swizzle(Swizzle::B128)
        .unwrap()
        .with_element_strides(&[1, 2, 3])
        .unwrap()
        .with_oob_fill(OobFill::NanRequestZeroFma)
        .unwrap()
        .with_l2_promotion(L2Promotion::B128);
        assert_eq!(TensorMap::decode(&m.encode()).unwrap(), m);
    }

    #[test]
    fn replace_matches_the_encoder() {
        let m = TensorMap::tiled(
            TmaDataType::Tf32,
            0x7f00_0000_1000,
            &[100, 50],
            &[400],
            &[32, 8],
        )
        .unwrap()
        .with_swizzle(Swizzle::B128)
        .unwrap();
        let mut b = [0u8; 128];
        for (f, v) in [
            (Field::GlobalAddress, m.address),
            (Field::Rank, 1),
            (Field::BoxDim(0), 32),
            (Field::BoxDim(1), 8),
            (Field::GlobalDim(0), 100),
            (Field::GlobalDim(1), 50),
            (Field::GlobalStride(0), 400),
            (Field::ElementStride(0), 1),
            (Field::ElementStride(1), 1),
            (Field::ElemType, 11),
            (Field::SwizzleMode, 3),
        ] {
            replace(&mut b, f, v).unwrap();
        }
        let enc = m.encode();
        assert_eq!(b[..64], enc[..64]);
        assert_eq!(TensorMap::decode(&b).unwrap(), m);
    }

    #[test]
    fn swizzle_patterns_are_the_isa_tables() {
        // §5.5.7: row r (128-byte line) holds chunk c at c ^ (r mod 2/4/8).
        for (sw, m) in [(Swizzle::B32, 1), (Swizzle::B64, 3), (Swizzle::B128, 7)] {
            for r in 0..16u32 {
                for c in 0..8u32 {
                    let a = 4096 + r * 128 + c * 16 + 5;
                    assert_eq!(sw.apply(a), 4096 + r * 128 + ((c ^ (r & m)) * 16) + 5);
                }
            }
        }
    }

    #[test]
    fn specs() {
        let s = TensorMapSpec::parse("1:f16:100x50:-:64x8:swizzle=128:oob=nan").unwrap();
        assert_eq!(s.tensor, TensorSource::Arg(1));
        assert_eq!(s.map.strides[0], 208);
        assert_eq!(s.map.swizzle, Swizzle::B128);
        assert!(TensorMapSpec::parse("1:f16:100x50:-:65x8").is_err());
        assert!(TensorMapSpec::parse("1:u32:100x50:-:64x8:oob=nan").is_err());
        let s = TensorMapSpec::parse("zero=4800:f32:40x30:160:16x8:estride=1x2:global").unwrap();
        assert_eq!(s.tensor, TensorSource::Own(vec![0; 4800]));
        assert_eq!(s.map.element_strides[..2], [1, 2]);
        assert!(s.in_global);
    }

    #[test]
    fn tf32_rounding() {
        assert_eq!(round_tf32(0x3a15_f0cb), 0x3a16_0000);
        assert_eq!(round_tf32(0xcea9_845f), 0xcea9_8000);
        assert_eq!(round_tf32(0x7f80_0001), 0x7f80_0001);
    }
}
