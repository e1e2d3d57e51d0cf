// SM80 bf16 GEMM with fused ReLU epilogue and serial split-K, CUTLASS 2.x API.
// Threadblock 128x256x64, warp 64x64x64, mma.sync m16n8k16 (bf16 in, f32 acc),
// 3-stage cp.async multistage mainloop, GemmIdentityThreadblockSwizzle<8>,
// SplitKSerial = true (semaphore-ordered partial-sum reduction through D),
// epilogue LinearCombinationRelu<bf16, 8, f32, f32>.  A row-major, B row-major
// (B is N-major: ldmatrix .trans path), C row-major.
// Entry point: cutlass::Kernel<GemmKernel>.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/device_kernel.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination_relu.h>

namespace pg_sm80_bf16 {

using Gemm = cutlass::gemm::device::Gemm<
    cutlass::bfloat16_t, cutlass::layout::RowMajor,
    cutlass::bfloat16_t, cutlass::layout::RowMajor,
    cutlass::bfloat16_t, cutlass::layout::RowMajor,
    float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 256, 64>,
    cutlass::gemm::GemmShape<64, 64, 64>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombinationRelu<cutlass::bfloat16_t, 8, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<8>,
    3,   // stages
    8,   // alignment A
    8,   // alignment B
    true // SplitKSerial
  >;

using GemmKernel = Gemm::GemmKernel;

}  // namespace pg_sm80_bf16

extern "C" __attribute__((used)) void const* phasegate_kernel_sm80_bf16() {
  return reinterpret_cast<void const*>(&cutlass::Kernel<pg_sm80_bf16::GemmKernel>);
}
