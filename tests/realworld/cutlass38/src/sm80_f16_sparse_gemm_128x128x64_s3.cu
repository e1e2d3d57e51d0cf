// SM80 CUTLASS 2.x 2:4 structured-sparse GEMM (device::SparseGemm: mma.sp m16n8k32 with metadata
// E loaded alongside A), f16 A row-major (compressed), f16 B column-major, f32 C/D row-major,
// threadblock 128x128x64, warp 64x64x64, 3 stages.  Entry point cutlass::Kernel<GemmKernel>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 headers.
#include "phasegate_cutlass_common.hpp"

#include <cutlass/gemm/device/gemm_sparse.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_sparse {

using Gemm = cutlass::gemm::device::SparseGemm<
    cutlass::half_t, cutlass::layout::RowMajor,
    cutlass::half_t, cutlass::layout::ColumnMajor,
    float, cutlass::layout::RowMajor, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 64>, cutlass::gemm::GemmShape<64, 64, 64>,
    cutlass::gemm::GemmShape<16, 8, 32>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

}  // namespace pg_sm80_sparse

PHASEGATE_EMIT_KERNEL2(pg_sm80_sparse::Gemm::GemmKernel, sm80_sparse)
