// DeepGEMM FP8 paged MQA logits (decode over a paged KV cache with a block table and a precomputed schedule): next_n=1, 64 heads, head dim 128, BLOCK_KV=64, 4 math warpgroups (SPLIT_KV=256), 3 Q / 3 KV stages.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_paged_mqa_logits.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_fp8_paged_mqa_logits_h64_d128_split256() {
  return reinterpret_cast<void const*>(&sm90_fp8_paged_mqa_logits<
      1, 64, 128, 64, false, 3, 3, 256, 128, 512>);
}
