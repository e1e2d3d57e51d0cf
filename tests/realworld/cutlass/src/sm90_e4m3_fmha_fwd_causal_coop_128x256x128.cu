// SM90 FMHA forward in FP8: Q/K/V/O e4m3 (V stored dim-major, as e4m3 wgmma needs K-major B),
// f32 accumulators, tile 128x256x128, causal mask, KernelTmaWarpSpecializedCooperative.
// Built from the Hopper FMHA collectives that the nvidia-cutlass 4.2.0 wheel ships under
// cutlass_library/source/examples/88_hopper_fmha/ (not part of include/).  Written for the
// phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

using namespace cute;

namespace pg_sm90_e4m3_fmha_fwd_causal_coop_128x256x128 {

using Element = cutlass::float_e4m3_t;
using StrideQKO = cute::tuple<int, _1, cute::tuple<int, int>>;    // (seq, dim, (batch, head))
using StrideVt  = cute::tuple<_1, int, cute::tuple<int, int>>;    // V stored dim-major (fp8 needs it)
using Tile = Shape<_128, _256, _128>;

using FmhaKernel = typename cutlass::fmha::kernel::FmhaBuilder<
    Element, float, float, Tile,
    StrideQKO, StrideQKO, StrideVt,
    cutlass::fmha::collective::CausalFusion,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::Kernel;

}  // namespace pg_sm90_e4m3_fmha_fwd_causal_coop_128x256x128

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3_fmha_fwd_causal_coop_128x256x128::FmhaKernel, sm90_e4m3_fmha_fwd_causal_coop_128x256x128)
