// SM90 FP8 (e4m3 x e5m2) GEMM, f16 output, FastAccum, 2x1x1 cluster.
// Mainloop: TMA multicast + wgmma e4m3.e5m2, KernelTmaWarpSpecializedCooperativeFP8FastAccum (accumulate in the wgmma registers only).
// Epilogue: TMA store (TmaWarpSpecializedCooperative), LinearCombination, f16 C/D.
// Tile 128x256x128, cluster 2x1x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1 {

using ElementA   = cutlass::float_e4m3_t;
using ElementB   = cutlass::float_e5m2_t;
using ElementC   = cutlass::half_t;
using ElementD   = cutlass::half_t;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 8;
constexpr int AlignB = 128 / 8;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 16;

using Tile    = Shape<_128, _256, _128>;
using Cluster = Shape<_2, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::LinearCombination<cutlass::half_t, float, cutlass::half_t, float>;

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
    cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1::GemmKernel, pg_sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1)
