// DeepGEMM's clean-logits kernel (fills the logits outside each query's [ks, ke) KV range with -inf), next_n=1, BLOCK_KV=8192, 8 warps.
// Written for the phasegate real-world PTX corpus in the form DeepGEMM's JIT generates
// (an include of one impls/ header and the address of one kernel instantiation), with our own
// template arguments; headers from the deep_gemm/include tree that the sgl-kernel 0.3.21 PyPI
// wheel ships (DeepGEMM JIT headers plus their CUTLASS 4.2 copy).  No file of the wheel is copied.
#include <deep_gemm/impls/smxx_clean_logits.cuh>

using namespace deep_gemm;

extern "C" __attribute__((used)) void const* phasegate_kernel_dg_smxx_clean_logits_n1_kv8192_w8() {
  return reinterpret_cast<void const*>(&smxx_clean_logits<
      1, 8192, 8>);
}
