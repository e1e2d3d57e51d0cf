// Dense FP8 e4m3 x e4m3 -> f16, KernelTmaWarpSpecializedPingpongFP8FastAccum, tile 64x128x128,
// cluster 1x2x1; epilogue TmaWarpSpecialized, ScaledLinCombPerRowBiasEltAct<Identity>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2 {

using ElementA   = cutlass::float_e4m3_t;
using ElementB   = cutlass::float_e4m3_t;
using ElementC   = cutlass::half_t;
using ElementD   = cutlass::half_t;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;
constexpr int AlignB = 128 / cutlass::sizeof_bits<ElementB>::value;
constexpr int AlignC = 128 / cutlass::sizeof_bits<ElementC>::value;
constexpr int AlignD = 128 / cutlass::sizeof_bits<ElementD>::value;

using Tile    = Shape<_64,_128,_128>;
using Cluster = Shape<_1,_2,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::TmaWarpSpecialized,
    cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltAct<cutlass::epilogue::thread::Identity, ElementD, float, ElementD, ElementC, float>
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2::GemmKernel, sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2)
