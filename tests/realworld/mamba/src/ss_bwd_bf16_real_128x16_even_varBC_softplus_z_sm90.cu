// Same selective-scan backward kernel, compiled for sm_90.
// Written for the phasegate real-world PTX corpus: instantiates one selective-scan kernel from
// the mamba-ssm 2.3.2.post1 PyPI sdist's csrc/selective_scan headers (no file of the sdist is
// copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "selective_scan_bwd_kernel.cuh"

namespace pg_ss_bwd_bf16_real_128x16_even_varBC_softplus_z_sm90 {
using Ktraits = Selective_Scan_bwd_kernel_traits<128, 16, true, true, true, true, true, at::BFloat16, float>;
}

extern "C" __attribute__((used)) void const* phasegate_kernel_ss_bwd_bf16_real_128x16_even_varBC_softplus_z_sm90() {
  return reinterpret_cast<void const*>(&selective_scan_bwd_kernel<pg_ss_bwd_bf16_real_128x16_even_varBC_softplus_z_sm90::Ktraits>);
}
