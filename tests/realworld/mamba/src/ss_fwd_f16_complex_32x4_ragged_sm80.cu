// Mamba selective-scan forward, 32 threads x 4 items (short sequences), ragged length, fixed B/C, no z; fp16 input, complex f32 weights (S4D-style complex diagonal A).
// Written for the phasegate real-world PTX corpus: instantiates one selective-scan kernel from
// the mamba-ssm 2.3.2.post1 PyPI sdist's csrc/selective_scan headers (no file of the sdist is
// copied); the kernel's address is taken so that nvcc emits exactly that .entry.
#include "selective_scan_fwd_kernel.cuh"

namespace pg_ss_fwd_f16_complex_32x4_ragged_sm80 {
using Ktraits = Selective_Scan_fwd_kernel_traits<32, 4, 1, false, false, false, false, at::Half, complex_t>;
}

extern "C" __attribute__((used)) void const* phasegate_kernel_ss_fwd_f16_complex_32x4_ragged_sm80() {
  return reinterpret_cast<void const*>(&selective_scan_fwd_kernel<pg_ss_fwd_f16_complex_32x4_ragged_sm80::Ktraits>);
}
