// flash_fwd_splitkv_kernel (decode / KV-cache path: paged or contiguous KV cache, split over KV), head dim 128, bf16, causal, Split=true, Append_KV=true (new K/V rows, optionally rotary-embedded, are written into the cache inside the kernel).
// Written for the phasegate real-world PTX corpus: instantiates one FlashAttention-2 kernel
// from the flash-attn 2.8.3 PyPI sdist's csrc/flash_attn/src headers (no file of the sdist
// is copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "namespace_config.h"
#include "flash_fwd_launch_template.h"

namespace pg_fa2_fwd_splitkv_hdim128_bf16_causal_appendkv_sm80 {
using Traits = Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>;
}  // namespace pg_fa2_fwd_splitkv_hdim128_bf16_causal_appendkv_sm80

extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_fwd_splitkv_hdim128_bf16_causal_appendkv_sm80() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_fwd_splitkv_kernel<pg_fa2_fwd_splitkv_hdim128_bf16_causal_appendkv_sm80::Traits, true, false, false, false, true, false, true, true>);
}
