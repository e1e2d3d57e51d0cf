// DeepGEMM FP8 GEMM with 1x128 scaling on both operands (sm90_fp8_gemm_1d1d_impl, per-group TMA descriptors rewritten in global memory), K-grouped contiguous, f32 D, M=N=4096, 4 groups, block 128x128x128, 5 stages.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_gemm_1d1d.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_fp8_gemm_1d1d_kgrouped_f32_128x128_s5() {
  return reinterpret_cast<void const*>(&sm90_fp8_gemm_1d1d_impl<
      4096, 4096, 0, 4, 128, 128, 128, 128, 128, 5, 128, 256, 1, false, 132, GemmType::KGroupedContiguous, float>);
}
