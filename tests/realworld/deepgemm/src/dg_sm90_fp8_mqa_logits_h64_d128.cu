// DeepGEMM FP8 MQA logits for DeepSeek sparse-attention indexing (sm90_fp8_mqa_logits): 64 heads, head dim 128, BLOCK_Q=2, BLOCK_KV=128, 3 Q and 3 KV stages, TMA warpgroup + 2 math warpgroups, weighted ReLU reduction over heads.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/sm90_fp8_mqa_logits.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_sm90_fp8_mqa_logits_h64_d128() {
  return reinterpret_cast<void const*>(&sm90_fp8_mqa_logits<
      64, 128, false, 2, 128, 3, 3, 128, 256>);
}
