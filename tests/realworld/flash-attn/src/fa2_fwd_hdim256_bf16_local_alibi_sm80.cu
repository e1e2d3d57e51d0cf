// flash_fwd_kernel, head dim 256, bf16, local (sliding-window) attention with ALiBi bias, 8 warps, 128x64 tile.
// Written for the phasegate real-world PTX corpus: instantiates one FlashAttention-2 kernel
// from the flash-attn 2.8.3 PyPI sdist's csrc/flash_attn/src headers (no file of the sdist
// is copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "namespace_config.h"
#include "flash_fwd_launch_template.h"

namespace pg_fa2_fwd_hdim256_bf16_local_alibi_sm80 {
using Traits = Flash_fwd_kernel_traits<256, 128, 64, 8, false, false, cutlass::bfloat16_t>;
}  // namespace pg_fa2_fwd_hdim256_bf16_local_alibi_sm80

extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_fwd_hdim256_bf16_local_alibi_sm80() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_fwd_kernel<pg_fa2_fwd_hdim256_bf16_local_alibi_sm80::Traits, false, false, true, true, false, true, false, false>);
}
