// SM80 f32 SIMT GEMM (no tensor cores), CUTLASS 2.x device-level API, kept
// deliberately small so that a -G (device debug) build stays a few MB:
// threadblock 32x32x8, warp 16x32x8, instruction 1x1x1 (FFMA), 2-stage
// (double-buffered) mainloop, alignment 1, all operands row-major,
// epilogue LinearCombination<f32, 1, f32, f32>.
// Entry point: cutlass::Kernel<GemmKernel>.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include <cutlass/cutlass.h>
#include <cutlass/device_kernel.h>
#include <cutlass/gemm/device/gemm.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_simt {

using Gemm = cutlass::gemm::device::Gemm<
    float, cutlass::layout::RowMajor,
    float, cutlass::layout::RowMajor,
    float, cutlass::layout::RowMajor,
    float,
    cutlass::arch::OpClassSimt, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<32, 32, 8>,
    cutlass::gemm::GemmShape<16, 32, 8>,
    cutlass::gemm::GemmShape<1, 1, 1>,
    cutlass::epilogue::thread::LinearCombination<float, 1, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>,
    2,  // stages
    1,  // alignment A
    1>; // alignment B

using GemmKernel = Gemm::GemmKernel;

}  // namespace pg_sm80_simt

extern "C" __attribute__((used)) void const* phasegate_kernel_sm80_simt() {
  return reinterpret_cast<void const*>(&cutlass::Kernel<pg_sm80_simt::GemmKernel>);
}
