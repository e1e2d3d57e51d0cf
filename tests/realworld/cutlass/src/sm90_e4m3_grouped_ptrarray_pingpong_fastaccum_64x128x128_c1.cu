// SM90 grouped FP8 GEMM (GroupProblemShape), e4m3 x e4m3 -> bf16, pointer-array ping-pong, FastAccum.
// Mainloop: TMA + wgmma e4m3, KernelPtrArrayTmaWarpSpecializedPingpongFP8FastAccum.
// Epilogue: TMA store (PtrArrayTmaWarpSpecializedPingpong), LinearCombination, bf16 C/D.
// Tile 64x128x128, cluster 1x1x1.  A RowMajor, B ColumnMajor, C/D RowMajor.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1 {

using ElementA   = cutlass::float_e4m3_t;
using ElementB   = cutlass::float_e4m3_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::bfloat16_t;
using ElementAcc = float;
using ElementCompute = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / 8;
constexpr int AlignB = 128 / 8;
constexpr int AlignC = 128 / 16;
constexpr int AlignD = 128 / 16;

using Tile    = Shape<_64, _128, _128>;
using Cluster = Shape<_1, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::LinearCombination<cutlass::bfloat16_t, float, cutlass::bfloat16_t, float>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, ElementCompute,
    ElementC, LayoutC*, AlignC,
    ElementD, LayoutC*, AlignD,
    cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong,
    FusionOp
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA*, AlignA,
    ElementB, LayoutB*, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpongFP8FastAccum
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    cutlass::gemm::GroupProblemShape<Shape<int, int, int>>, Mainloop, Epilogue>;

}  // namespace pg_sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1::GemmKernel, pg_sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1)
