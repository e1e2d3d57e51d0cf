// SM90 bf16 GEMM, persistent cooperative kernel with explicit PersistentScheduler, 2x2x1 cluster (A and B multicast), column-major A (MN-major smem for A).
// Mainloop: TMA multicast + wgmma, KernelTmaWarpSpecializedCooperative + cutlass::gemm::PersistentScheduler.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), fusion::LinCombEltAct<SiLu>, bf16 C/D.
// Tile 256x128x64, cluster 2x2x1.  A ColumnMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_bf16_persistent_coop_256x128x64_c2x2 {

using ElementA   = cutlass::bfloat16_t;
using ElementB   = cutlass::bfloat16_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::bfloat16_t;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::ColumnMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 16;
constexpr int AlignB = 128 / 16;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 16;

using Tile    = Shape<_256, _128, _64>;
using Cluster = Shape<_2, _2, _1>;

using FusionOp = cutlass::epilogue::fusion::LinCombEltAct<cutlass::epilogue::thread::SiLu, cutlass::bfloat16_t, float>;

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
    Shape<int, int, int, int>, Mainloop, Epilogue, cutlass::gemm::PersistentScheduler>;

}  // namespace pg_sm90_bf16_persistent_coop_256x128x64_c2x2

PHASEGATE_EMIT_KERNEL(pg_sm90_bf16_persistent_coop_256x128x64_c2x2::GemmKernel, pg_sm90_bf16_persistent_coop_256x128x64_c2x2)
