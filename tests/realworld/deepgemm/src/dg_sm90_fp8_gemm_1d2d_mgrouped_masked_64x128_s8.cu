// DeepGEMM FP8 1d2d GEMM, M-grouped masked layout (decode-time MoE: per-group valid-row counts), 4 groups, N=7168, K=2048, block 64x128x128 with one math warpgroup, 8 stages.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_fp8_gemm_1d2d_mgrouped_masked_64x128_s8() {
  return reinterpret_cast<void const*>(&sm90_fp8_gemm_1d2d_impl<
      cute::UMMA::Major::K, 0, 7168, 2048, 4, 64, 128, 128, 128, 128, 128, 8, 0, 128, 128, 1, false, 132, GemmType::MGroupedMasked, EpilogueIdentity, false>);
}
