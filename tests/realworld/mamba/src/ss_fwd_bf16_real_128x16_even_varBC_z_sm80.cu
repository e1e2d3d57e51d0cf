// Mamba selective-scan forward (cub BlockLoad/BlockStore warp-transpose, BlockScan warp-scans over the SSM recurrence, chunked along the sequence), 128 threads x 16 items, even length, input-dependent B and C, gate z; bf16 input, f32 weights.
// Written for the phasegate real-world PTX corpus: instantiates one selective-scan kernel from
// the mamba-ssm 2.3.2.post1 PyPI sdist's csrc/selective_scan headers (no file of the sdist is
// copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "selective_scan_fwd_kernel.cuh"

namespace pg_ss_fwd_bf16_real_128x16_even_varBC_z_sm80 {
using Ktraits = Selective_Scan_fwd_kernel_traits<128, 16, 1, true, true, true, true, at::BFloat16, float>;
}

extern "C" __attribute__((used)) void const* phasegate_kernel_ss_fwd_bf16_real_128x16_even_varBC_z_sm80() {
  return reinterpret_cast<void const*>(&selective_scan_fwd_kernel<pg_ss_fwd_bf16_real_128x16_even_varBC_z_sm80::Ktraits>);
}
