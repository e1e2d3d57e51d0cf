// SM90 FP8 GEMM with the full "scaled" FP8 epilogue:
//   Z   = scale_a*scale_b*alpha*acc + beta*scale_c*C + per-row bias
//   D   = scale_d * ReLU(Z)          (e4m3 output, amax(D) reduced)
//   Aux = scale_aux * Z              (e4m3 aux output, amax(Aux) reduced)
// via fusion::ScaledLinCombPerRowBiasEltActAmaxAux.
// Mainloop: TMA + wgmma e4m3 x e4m3, KernelTmaWarpSpecializedCooperative (two-level
// accumulation), tile 128x128x128, cluster 1x1x1.  Epilogue: TmaWarpSpecializedCooperative.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_e4m3_scaled {

using ElementA   = cutlass::float_e4m3_t;
using ElementB   = cutlass::float_e4m3_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::float_e4m3_t;
using ElementAux = cutlass::float_e4m3_t;
using ElementBias = cutlass::bfloat16_t;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;
using LayoutB = cutlass::layout::ColumnMajor;
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 16;
constexpr int AlignB = 16;
constexpr int AlignC = 8;
constexpr int AlignD = 16;

using Tile    = Shape<_128, _128, _128>;
using Cluster = Shape<_1, _1, _1>;

using FusionOp = cutlass::epilogue::fusion::ScaledLinCombPerRowBiasEltActAmaxAux<
    LayoutC, cutlass::epilogue::thread::ReLu,
    ElementD, float, ElementAux, float /*ElementAmax*/, ElementBias, ElementC>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
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
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_e4m3_scaled

PHASEGATE_EMIT_KERNEL(pg_sm90_e4m3_scaled::GemmKernel, sm90_e4m3_scaled)
