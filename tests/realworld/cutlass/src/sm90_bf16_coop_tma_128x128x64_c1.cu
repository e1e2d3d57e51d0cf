// SM90 bf16 GEMM, D = alpha*A*B + beta*C.
// Mainloop: TMA + wgmma, KernelTmaWarpSpecializedCooperative (2 consumer warpgroups
// share one 128x128 tile), cluster 1x1x1, automatic stage count.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), LinearCombination.
// A row-major (K-major), B column-major (K-major), C/D row-major.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_bf16_coop {

using ElementA   = cutlass::bfloat16_t;
using ElementB   = cutlass::bfloat16_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::bfloat16_t;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;
constexpr int AlignB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;

using Tile    = Shape<_128, _128, _64>;
using Cluster = Shape<_1, _1, _1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignC,
    cutlass::epilogue::TmaWarpSpecializedCooperative,
    cutlass::epilogue::fusion::LinearCombination<ElementD, float, ElementC, float>
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_bf16_coop

PHASEGATE_EMIT_KERNEL(pg_bf16_coop::GemmKernel, sm90_bf16_coop)
