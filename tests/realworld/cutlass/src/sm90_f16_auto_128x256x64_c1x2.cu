// SM90 f16 GEMM where the builders choose the kernel and epilogue schedules (KernelScheduleAuto / EpilogueScheduleAuto).
// Mainloop: TMA multicast + wgmma, schedule picked by the CollectiveBuilder, 1x2x1 cluster, StageCountAuto.
// Epilogue: EpilogueScheduleAuto, LinearCombination, f16 C/D.
// Tile 128x256x64, cluster 1x2x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_f16_auto_128x256x64_c1x2 {

using ElementA   = cutlass::half_t;
using ElementB   = cutlass::half_t;
using ElementC   = cutlass::half_t;
using ElementD   = cutlass::half_t;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 16;
constexpr int AlignB = 128 / 16;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 16;

using Tile    = Shape<_128, _256, _64>;
using Cluster = Shape<_1, _2, _1>;

using FusionOp = cutlass::epilogue::fusion::LinearCombination<cutlass::half_t, float, cutlass::half_t, float>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, ElementCompute,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::collective::EpilogueScheduleAuto,
    FusionOp
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAuto,
    cutlass::gemm::collective::KernelScheduleAuto
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_f16_auto_128x256x64_c1x2

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_auto_128x256x64_c1x2::GemmKernel, pg_sm90_f16_auto_128x256x64_c1x2)
