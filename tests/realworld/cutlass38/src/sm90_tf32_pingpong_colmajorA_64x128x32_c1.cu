// tf32 GEMM with column-major A (MN-major A: wgmma tf32 needs K-major, so the builder picks the
// RS path with a register transpose), KernelTmaWarpSpecializedPingpong, tile 64x128x32;
// epilogue TmaWarpSpecialized.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_tf32_pingpong_colmajorA_64x128x32_c1 {

using ElementA   = float;
using ElementB   = float;
using ElementC   = float;
using ElementD   = float;
using ElementAcc = float;
using LayoutA = cutlass::layout::ColumnMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;
constexpr int AlignB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;
constexpr int AlignD = 128 / cutlass::sizeof_bits<ElementD>::value;

using Tile    = Shape<_64,_128,_32>;
using Cluster = Shape<_1,_1,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::TmaWarpSpecialized,
    cutlass::epilogue::fusion::LinearCombination<ElementD, float, ElementC, float>
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpong
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_tf32_pingpong_colmajorA_64x128x32_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_tf32_pingpong_colmajorA_64x128x32_c1::GemmKernel, sm90_tf32_pingpong_colmajorA_64x128x32_c1)
