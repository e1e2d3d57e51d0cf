// SM90 int8 GEMM (s8 x s8 -> s32 accumulate), int8 output, no C operand (ElementC = void).
// Mainloop: TMA + wgmma s8, KernelTmaWarpSpecializedCooperative.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), LinearCombination with f32 compute, saturating int8 D, source-less (void C).
// Tile 128x128x128, cluster 1x1x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_s8_coop_128x128x128_noc_c1 {

using ElementA   = int8_t;
using ElementB   = int8_t;
using ElementC   = void;
using ElementD   = int8_t;
using ElementAcc = int32_t;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 8;
constexpr int AlignB = 128 / 8;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 8;

using Tile    = Shape<_128, _128, _128>;
using Cluster = Shape<_1, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::LinearCombination<int8_t, float, void, float>;

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

}  // namespace pg_sm90_s8_coop_128x128x128_noc_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_s8_coop_128x128x128_noc_c1::GemmKernel, pg_sm90_s8_coop_128x128x128_noc_c1)
