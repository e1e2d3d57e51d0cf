//! Tensor maps for a GPU launch, encoded by the driver (`cuTensorMapEncodeTiled`).
//!
//! The simulator encodes the same [`TensorMap`] with its own encoder, which was checked byte
//! for byte against the driver. The launch uses the driver's 128 bytes and decodes them again:
//! a map that does not decode to the one asked for would make the GPU and the simulator run
//! different copies, so it is an error rather than a silent difference.

use super::{CudaError, check};
use cudarc::driver::sys;
use phasegate_sim::{Interleave, L2Promotion, OobFill, Swizzle, TensorMap};
use std::ffi::c_void;

/// The driver's encoding of `map` (whose address is a device address), checked against ours.
/// `what` names the argument in errors. Public (as `cuda::encode_tensor_map`) for host programs
/// that launch PTX of their own with tensor maps, such as tools/gpu-gemm's benchmark.
pub fn encode(map: &TensorMap, what: &str) -> Result<[u8; 128], CudaError> {
    map.validate()
        .map_err(|e| CudaError::Args(format!("{what}: {e}")))?;
    use phasegate_sim::TmaDataType as T;
    use sys::CUtensorMapDataType as D;
    let dtype = match map.dtype {
        T::U8 => D::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        T::U16 => D::CU_TENSOR_MAP_DATA_TYPE_UINT16,
        T::U32 => D::CU_TENSOR_MAP_DATA_TYPE_UINT32,
        T::I32 => D::CU_TENSOR_MAP_DATA_TYPE_INT32,
        T::U64 => D::CU_TENSOR_MAP_DATA_TYPE_UINT64,
        T::I64 => D::CU_TENSOR_MAP_DATA_TYPE_INT64,
        T::F16 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        T::F32 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        T::F64 => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        T::Bf16 => D::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        T::F32Ftz => D::CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ,
        T::Tf32 => D::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
        T::Tf32Ftz => D::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ,
    };
    let interleave = match map.interleave {
        Interleave::None => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
        Interleave::B16 => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_16B,
        Interleave::B32 => sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_32B,
    };
    let swizzle = match map.swizzle {
        Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    let l2 = match map.l2_promotion {
        L2Promotion::None => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_NONE,
        L2Promotion::B64 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
        L2Promotion::B128 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        L2Promotion::B256 => sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
    };
    let fill = match map.oob_fill {
        OobFill::Zero => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        OobFill::NanRequestZeroFma => {
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
        }
    };
    let rank = map.rank as usize;
    let mut out = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: the arrays hold `rank` (strides: `rank - 1`) entries as the call reads them; the
    // output is a 128-byte, 64-byte-aligned `CUtensorMap`.
    unsafe {
        check(
            "cuTensorMapEncodeTiled",
            sys::cuTensorMapEncodeTiled(
                &mut out,
                dtype,
                rank as u32,
                map.address as *mut c_void,
                map.dims.as_ptr(),
                map.strides.as_ptr(),
                map.box_dims.as_ptr(),
                map.element_strides.as_ptr(),
                interleave,
                swizzle,
                l2,
                fill,
            ),
        )
        .map_err(|e| CudaError::Args(format!("{what}: {e}")))?;
    }
    let mut bytes = [0u8; 128];
    for (chunk, word) in bytes.chunks_exact_mut(8).zip(out.opaque) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    match TensorMap::decode(&bytes) {
        Ok(decoded) if decoded == *map => Ok(bytes),
        Ok(decoded) => Err(CudaError::Args(format!(
            "{what}: the driver encoded a map that decodes to {decoded:?}, not the {map:?} the simulator would use; please report this"
        ))),
        Err(e) => Err(CudaError::Args(format!(
            "{what}: the driver's map does not decode ({e}); please report this"
        ))),
    }
}
