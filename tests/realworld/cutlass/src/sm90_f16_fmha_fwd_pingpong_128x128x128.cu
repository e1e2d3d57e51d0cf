// SM90 FMHA forward, ping-pong variant: the builder maps KernelTmaWarpSpecializedPingpong to the
// cooperative kernel with Option<kIsPersistent, true> and Option<kLoadsQSeparately, true>
// (persistent tile scheduler, two MMA warpgroups on alternating Q tiles); f16, head dim 128,
// tile 128x128x128, no mask (DefaultFusion).
// Built from the Hopper FMHA collectives that the nvidia-cutlass 4.2.0 wheel ships under
// cutlass_library/source/examples/88_hopper_fmha/ (not part of include/).  Written for the
// phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

using namespace cute;

namespace pg_sm90_f16_fmha_fwd_pingpong_128x128x128 {

using Element = cutlass::half_t;
using StrideQKO = cute::tuple<int, _1, cute::tuple<int, int>>;    // (seq, dim, (batch, head))
using StrideVt  = cute::tuple<_1, int, cute::tuple<int, int>>;    // V stored dim-major (fp8 needs it)
using Tile = Shape<_128, _128, _128>;

using FmhaKernel = typename cutlass::fmha::kernel::FmhaBuilder<
    Element, float, float, Tile,
    StrideQKO, StrideQKO, StrideQKO,
    cutlass::fmha::collective::DefaultFusion,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong
  >::Kernel;

}  // namespace pg_sm90_f16_fmha_fwd_pingpong_128x128x128

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_fmha_fwd_pingpong_128x128x128::FmhaKernel, sm90_f16_fmha_fwd_pingpong_128x128x128)
