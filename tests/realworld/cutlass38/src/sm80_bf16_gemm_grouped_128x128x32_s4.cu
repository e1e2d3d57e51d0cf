// SM80 CUTLASS 2.x grouped GEMM (kernel::DefaultGemmGrouped, GroupScheduleMode::kDeviceOnly: each
// CTA walks the problem list with a device-side scheduler), bf16 A row-major, bf16 B column-major,
// f32 C/D row-major, f32 accumulation, threadblock 128x128x32, warp 64x64x32, 4 stages.
// Entry point cutlass::Kernel<GemmKernel>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 headers.
#include "phasegate_cutlass_common.hpp"

#include <cutlass/gemm/kernel/default_gemm_grouped.h>
#include <cutlass/gemm/kernel/gemm_grouped.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_grouped {

using GemmKernel = typename cutlass::gemm::kernel::DefaultGemmGrouped<
    cutlass::bfloat16_t, cutlass::layout::RowMajor, cutlass::ComplexTransform::kNone, 8,
    cutlass::bfloat16_t, cutlass::layout::ColumnMajor, cutlass::ComplexTransform::kNone, 8,
    float, cutlass::layout::RowMajor, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmBatchedIdentityThreadblockSwizzle, 4,
    cutlass::gemm::kernel::GroupScheduleMode::kDeviceOnly>::GemmKernel;

}  // namespace pg_sm80_grouped

PHASEGATE_EMIT_KERNEL2(pg_sm80_grouped::GemmKernel, sm80_grouped)
