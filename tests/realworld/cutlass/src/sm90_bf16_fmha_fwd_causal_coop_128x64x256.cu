// SM90 FMHA forward, bf16, head dim 256, tile 128x64x256, causal, KernelTmaWarpSpecializedCooperative.
// Built from the Hopper FMHA collectives that the nvidia-cutlass 4.2.0 wheel ships under
// cutlass_library/source/examples/88_hopper_fmha/ (not part of include/).  Written for the
// phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

using namespace cute;

namespace pg_sm90_bf16_fmha_fwd_causal_coop_128x64x256 {

using Element = cutlass::bfloat16_t;
using StrideQKO = cute::tuple<int, _1, cute::tuple<int, int>>;    // (seq, dim, (batch, head))
using StrideVt  = cute::tuple<_1, int, cute::tuple<int, int>>;    // V stored dim-major (fp8 needs it)
using Tile = Shape<_128, _64, _256>;

using FmhaKernel = typename cutlass::fmha::kernel::FmhaBuilder<
    Element, float, float, Tile,
    StrideQKO, StrideQKO, StrideQKO,
    cutlass::fmha::collective::CausalFusion,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::Kernel;

}  // namespace pg_sm90_bf16_fmha_fwd_causal_coop_128x64x256

PHASEGATE_EMIT_KERNEL(pg_sm90_bf16_fmha_fwd_causal_coop_128x64x256::FmhaKernel, sm90_bf16_fmha_fwd_causal_coop_128x64x256)
