// FP8 e4m3 x e4m3 GEMM with 128x128 block-wise scaling of A and B applied during accumulation
// (KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum<>), tile 128x128x128, cluster 1x2x1;
// fused epilogue ScaledLinCombPerRowBiasEltActAmaxAux<ReLU> (e4m3 D and Aux, f32 amax and bias), column-major C/D.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_e4m3_blockwise_coop_128x128x128_c1x2 {

using ElementA   = cutlass::float_e4m3_t;
using ElementB   = cutlass::float_e4m3_t;
using ElementC   = cutlass::float_e4m3_t;
using ElementD   = cutlass::float_e4m3_t;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::ColumnMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;
constexpr int AlignB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;
constexpr int AlignD = 128 / cutlass::sizeof_bits<ElementD>::value;

using Tile    = Shape<_128,_128,_128>;
using Cluster = Shape<_1,_2,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::TmaWarpSpecializedCooperative,
    cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltActAmaxAux<cutlass::layout::ColumnMajor, cutlass::epilogue::thread::ReLU, ElementD, float, ElementD, float, float, ElementC>
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8BlockScaledAccum<>
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_e4m3_blockwise_coop_128x128x128_c1x2

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3_blockwise_coop_128x128x128_c1x2::GemmKernel, sm90_e4m3_blockwise_coop_128x128x128_c1x2)
