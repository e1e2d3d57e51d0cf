// SM90 bf16 GEMM with fused epilogue D = ReLU(alpha*acc + beta*C + per-row bias).
// Mainloop: TMA + wgmma, KernelTmaWarpSpecializedCooperative.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), fusion::LinCombPerRowBiasEltAct<ReLu>, bf16 bias.
// Tile 128x128x64, cluster 1x1x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_bf16_coop_bias_relu_128x128x64_c1 {

using ElementA   = cutlass::bfloat16_t;
using ElementB   = cutlass::bfloat16_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::bfloat16_t;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 16;
constexpr int AlignB = 128 / 16;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 16;

using Tile    = Shape<_128, _128, _64>;
using Cluster = Shape<_1, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::LinCombPerRowBiasEltAct<cutlass::epilogue::thread::ReLu, cutlass::bfloat16_t, float, cutlass::bfloat16_t, cutlass::bfloat16_t, float>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, ElementCompute,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::TmaWarpSpecializedCooperative,
    FusionOp
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_bf16_coop_bias_relu_128x128x64_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_bf16_coop_bias_relu_128x128x64_c1::GemmKernel, pg_sm90_bf16_coop_bias_relu_128x128x64_c1)
