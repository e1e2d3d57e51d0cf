// int8 GEMM s8 x s8 -> s32 acc, int32 C/D, KernelTmaWarpSpecializedPingpong, tile 64x128x128,
// cluster 2x1x1; epilogue TmaWarpSpecialized, LinearCombination<s32, f32, s32>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_s8_pingpong_64x128x128_c2x1 {

using ElementA   = int8_t;
using ElementB   = int8_t;
using ElementC   = int32_t;
using ElementD   = int32_t;
using ElementAcc = int32_t;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;
constexpr int AlignB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;
constexpr int AlignD = 128 / cutlass::sizeof_bits<ElementD>::value;

using Tile    = Shape<_64,_128,_128>;
using Cluster = Shape<_2,_1,_1>;

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

}  // namespace pg_sm90_s8_pingpong_64x128x128_c2x1

PHASEGATE_EMIT_KERNEL(pg_sm90_s8_pingpong_64x128x128_c2x1::GemmKernel, sm90_s8_pingpong_64x128x128_c2x1)
