// DeepGEMM BF16 GEMM (sm90_bf16_gemm_impl), K-major A and B, normal GEMM N=4096, K=7168, block 128x128x64, 6 stages, TMA producer + 2 math warpgroups, bf16 D.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_bf16_gemm.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_bf16_gemm_normal_128x128_s6() {
  return reinterpret_cast<void const*>(&sm90_bf16_gemm_impl<
      cute::UMMA::Major::K, cute::UMMA::Major::K, 0, 4096, 7168, 1, 128, 128, 64, 128, 128, 128, 6, 128, 256, 1, false, 132, GemmType::Normal, false, cutlass::bfloat16_t>);
}
