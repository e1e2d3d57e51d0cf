// flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel, head dim 256, bf16, local window, no double buffering (the A100 configuration).
// Written for the phasegate real-world PTX corpus: instantiates one FlashAttention-2 kernel
// from the flash-attn 2.8.3 PyPI sdist's csrc/flash_attn/src headers (no file of the sdist
// is copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "namespace_config.h"
#include "flash_bwd_launch_template.h"

namespace pg_fa2_bwd_hdim256_bf16_local_sm80 {
using Traits = Flash_bwd_kernel_traits<256, 64, 64, 8, 4, 2, 2, false, true, cutlass::bfloat16_t>;
}  // namespace pg_fa2_bwd_hdim256_bf16_local_sm80

extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_bwd_hdim256_bf16_local_sm80() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<pg_fa2_bwd_hdim256_bf16_local_sm80::Traits, false, false, true, false, false, true, false>);
}
