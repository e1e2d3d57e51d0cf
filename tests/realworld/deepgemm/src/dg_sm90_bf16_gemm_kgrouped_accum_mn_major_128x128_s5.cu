// DeepGEMM BF16 GEMM, K-grouped contiguous (weight-gradient of MoE experts: groups stacked along K), MN-major A and B, accumulation into an f32 D (kWithAccumulation), M=N=4096, 4 groups, block 128x128x64, 5 stages.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_bf16_gemm.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_bf16_gemm_kgrouped_accum_mn_major_128x128_s5() {
  return reinterpret_cast<void const*>(&sm90_bf16_gemm_impl<
      cute::UMMA::Major::MN, cute::UMMA::Major::MN, 4096, 4096, 0, 4, 128, 128, 64, 128, 128, 128, 5, 128, 256, 1, false, 132, GemmType::KGroupedContiguous, true, float>);
}
