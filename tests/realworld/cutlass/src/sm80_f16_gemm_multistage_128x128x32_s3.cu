// SM80 f16 GEMM, CUTLASS 2.x device-level API (cutlass::gemm::device::Gemm).
// Threadblock 128x128x32, warp 64x64x32, mma.sync m16n8k16 (f16 in, f32 acc),
// 3-stage cp.async multistage mainloop, ldmatrix smem->register loads,
// epilogue LinearCombination<f16, 8, f32, f32>.  A row-major, B column-major, C row-major.
// Entry point: cutlass::Kernel<GemmKernel>.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/device_kernel.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_f16 {

using Gemm = cutlass::gemm::device::Gemm<
    cutlass::half_t, cutlass::layout::RowMajor,
    cutlass::half_t, cutlass::layout::ColumnMajor,
    cutlass::half_t, cutlass::layout::RowMajor,
    float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>,
    cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<cutlass::half_t, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>,
    3>;

using GemmKernel = Gemm::GemmKernel;

}  // namespace pg_sm80_f16

extern "C" __attribute__((used)) void const* phasegate_kernel_sm80_f16() {
  return reinterpret_cast<void const*>(&cutlass::Kernel<pg_sm80_f16::GemmKernel>);
}
