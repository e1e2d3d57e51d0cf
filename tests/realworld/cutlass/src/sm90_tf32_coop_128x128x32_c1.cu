// SM90 tf32 GEMM (f32 in memory, tf32 wgmma), f32 output.
// Mainloop: TMA + wgmma tf32 (K-major A and B), KernelTmaWarpSpecializedCooperative.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), LinearCombination, f32 C/D.
// Tile 128x128x32, cluster 1x1x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_tf32_coop_128x128x32_c1 {

using ElementA   = float;
using ElementB   = float;
using ElementC   = float;
using ElementD   = float;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 32;
constexpr int AlignB = 128 / 32;
constexpr int AlignC = 128 / 32;
constexpr int AlignD = 128 / 32;

using Tile    = Shape<_128, _128, _32>;
using Cluster = Shape<_1, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::LinearCombination<float, float, float, float>;

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

}  // namespace pg_sm90_tf32_coop_128x128x32_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_tf32_coop_128x128x32_c1::GemmKernel, pg_sm90_tf32_coop_128x128x32_c1)
