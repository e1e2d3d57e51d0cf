// Mamba selective-scan backward, 64 threads x 16 items, ragged length, fixed B/C, no softplus, no z; f32 input, complex weights (complex atomicAdd).
// Written for the phasegate real-world PTX corpus: instantiates one selective-scan kernel from
// the mamba-ssm 2.3.2.post1 PyPI sdist's csrc/selective_scan headers (no file of the sdist is
// copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "selective_scan_bwd_kernel.cuh"

namespace pg_ss_bwd_f32_complex_64x16_ragged_sm80 {
using Ktraits = Selective_Scan_bwd_kernel_traits<64, 16, false, false, false, false, false, float, complex_t>;
}

extern "C" __attribute__((used)) void const* phasegate_kernel_ss_bwd_f32_complex_64x16_ragged_sm80() {
  return reinterpret_cast<void const*>(&selective_scan_bwd_kernel<pg_ss_bwd_f32_complex_64x16_ragged_sm80::Ktraits>);
}
