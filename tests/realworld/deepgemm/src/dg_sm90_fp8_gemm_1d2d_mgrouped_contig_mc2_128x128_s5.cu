// DeepGEMM FP8 1d2d GEMM, M-grouped contiguous layout (MoE experts stacked along M, per-row group index), 8 groups, N=4096, K=7168, block 128x128x128, 5 stages, TMA multicast 2 on A (2-CTA cluster).
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_fp8_gemm_1d2d_mgrouped_contig_mc2_128x128_s5() {
  return reinterpret_cast<void const*>(&sm90_fp8_gemm_1d2d_impl<
      cute::UMMA::Major::K, 0, 4096, 7168, 8, 128, 128, 128, 128, 128, 128, 5, 1, 128, 256, 2, true, 132, GemmType::MGroupedContiguous, EpilogueIdentity, false>);
}
