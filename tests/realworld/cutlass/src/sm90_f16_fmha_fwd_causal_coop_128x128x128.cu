// SM90 fused multi-head attention forward (FlashAttention-style online softmax),
// built from the Hopper FMHA collectives that the nvidia-cutlass 4.2.0 wheel ships
// under cutlass_library/source/examples/88_hopper_fmha/ (not part of include/).
// Q/K/V/O f16, f32 accumulators for QK^T and PV, head dim 128,
// tile (BlockQ, BlockKV, HeadDim) = 128x128x128, causal mask (CausalFusion),
// KernelTmaWarpSpecializedCooperative (TMA producer warpgroup + 2 MMA warpgroups),
// individual (non-persistent) tile scheduler.  Layout strides as (seq, dim, (batch, head)).
// Written for the phasegate real-world PTX corpus; compile with
// -I<headers>/examples/88_hopper_fmha in addition to the include paths.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "kernel/fmha_kernel_builder.hpp"

using namespace cute;

namespace pg_sm90_fmha {

using Element = cutlass::half_t;
using StrideQKVO = cute::tuple<int, _1, cute::tuple<int, int>>;
using Tile = Shape<_128, _128, _128>;

using FmhaKernel = typename cutlass::fmha::kernel::FmhaBuilder<
    Element, float, float, Tile,
    StrideQKVO, StrideQKVO, StrideQKVO,
    cutlass::fmha::collective::CausalFusion,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::Kernel;

}  // namespace pg_sm90_fmha

PHASEGATE_EMIT_KERNEL(pg_sm90_fmha::FmhaKernel, sm90_fmha)
