// SM80 CUTLASS 2.x GemmUniversal with the stream-K threadblock swizzle
// (ThreadblockSwizzleStreamK: tiles split across CTAs along K, partials fixed up through a
// workspace with flag spin-waits), f16 A row-major, f16 B column-major, f16 C/D row-major,
// f32 accumulation, threadblock 128x128x32, warp 64x64x32, mma.sync m16n8k16, 4 cp.async stages.
// Entry point cutlass::Kernel2<GemmKernel>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 headers.
#include "phasegate_cutlass_common.hpp"

#include <cutlass/gemm/device/gemm_universal.h>
#include <cutlass/gemm/threadblock/threadblock_swizzle_streamk.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_streamk {

using Gemm = cutlass::gemm::device::GemmUniversal<
    cutlass::half_t, cutlass::layout::RowMajor,
    cutlass::half_t, cutlass::layout::ColumnMajor,
    cutlass::half_t, cutlass::layout::RowMajor,
    float, cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, float, float>,
    cutlass::gemm::threadblock::ThreadblockSwizzleStreamK, 4, 8, 8>;

}  // namespace pg_sm80_streamk

extern "C" __attribute__((used)) void const* phasegate_kernel_sm80_streamk() {
  return reinterpret_cast<void const*>(&cutlass::Kernel2<pg_sm80_streamk::Gemm::GemmKernel>);
}
