// flash_fwd_kernel, head dim 128, bf16, causal, even M/N/K (the configuration run_mha_fwd_hdim128 picks on A100/H100: 128x64 tile, 4 warps).
// Written for the phasegate real-world PTX corpus: instantiates one FlashAttention-2 kernel
// from the flash-attn 2.8.3 PyPI sdist's csrc/flash_attn/src headers (no file of the sdist
// is copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "namespace_config.h"
#include "flash_fwd_launch_template.h"

namespace pg_fa2_fwd_hdim128_bf16_causal_sm80 {
using Traits = Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>;
}  // namespace pg_fa2_fwd_hdim128_bf16_causal_sm80

extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_fwd_hdim128_bf16_causal_sm80() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_fwd_kernel<pg_fa2_fwd_hdim128_bf16_causal_sm80::Traits, false, true, false, false, true, true, false, false>);
}
