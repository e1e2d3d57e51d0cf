// DeepGEMM's schedule-metadata kernel for the paged MQA logits (one warp: shuffle prefix sums over context lengths, splits the work over 132 SMs), aligned batch 64, SPLIT_KV=256.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_paged_mqa_logits.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_smxx_paged_mqa_logits_metadata_b64_split256() {
  return reinterpret_cast<void const*>(&smxx_paged_mqa_logits_metadata<
      64, 256, 132>);
}
