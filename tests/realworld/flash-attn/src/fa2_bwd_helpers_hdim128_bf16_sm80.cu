// The backward helper kernels for head dim 128, bf16: flash_bwd_dot_do_o_kernel<Clear_dQaccum=true> (rowsum(dO*O), zeroes the f32 dQ accumulator) and flash_bwd_convert_dq_kernel (f32 dQ accumulator -> bf16 dQ).  Two .entry directives.
// Written for the phasegate real-world PTX corpus: instantiates one FlashAttention-2 kernel
// from the flash-attn 2.8.3 PyPI sdist's csrc/flash_attn/src headers (no file of the sdist
// is copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "namespace_config.h"
#include "flash_bwd_launch_template.h"

namespace pg_fa2_bwd_helpers_hdim128_bf16_sm80 {
using Traits = Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>;
}  // namespace pg_fa2_bwd_helpers_hdim128_bf16_sm80

extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_bwd_helpers_hdim128_bf16_sm80_dot_do_o() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_bwd_dot_do_o_kernel<true, pg_fa2_bwd_helpers_hdim128_bf16_sm80::Traits>);
}
extern "C" __attribute__((used)) void const* phasegate_kernel_fa2_bwd_helpers_hdim128_bf16_sm80_convert_dq() {
  return reinterpret_cast<void const*>(&FLASH_NAMESPACE::flash_bwd_convert_dq_kernel<pg_fa2_bwd_helpers_hdim128_bf16_sm80::Traits>);
}
