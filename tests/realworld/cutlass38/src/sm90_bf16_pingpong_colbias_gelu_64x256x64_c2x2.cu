// KernelTmaWarpSpecializedPingpong, bf16 in/out, tile 64x256x64, cluster 2x2x1 (A and B multicast);
// fused epilogue LinCombPerColBiasEltAct<GELU_taylor> (per-column bias), TmaWarpSpecialized.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2 {

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
constexpr int AlignD = 128 / cutlass::sizeof_bits<ElementD>::value;

using Tile    = Shape<_64,_256,_64>;
using Cluster = Shape<_2,_2,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::TmaWarpSpecialized,
    cutlass::epilogue::fusion::LinCombPerColBiasEltAct<cutlass::epilogue::thread::GELU_taylor, ElementD, float, ElementD, ElementC, float>
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

}  // namespace pg_sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2

PHASEGATE_EMIT_KERNEL(pg_sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2::GemmKernel, sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2)
