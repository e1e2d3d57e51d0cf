// Mixed-input GEMM: A f16 (MMA type), B e4m3 with per-group f16 scale and zero point
// (mainloop element tuple<e4m3, f16 scale, f16 zero>; operands swapped and transposed so the
// narrow type is converted in registers and fed to RS wgmma), KernelTmaWarpSpecializedCooperative,
// tile 128x128x64, cluster 1x1x1; epilogue TmaWarpSpecializedCooperative (transposed C/D).
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1 {

using ElementA   = cutlass::half_t;
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

using Tile    = Shape<_128,_128,_64>;
using Cluster = Shape<_1,_1,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, typename cutlass::layout::LayoutTranspose<LayoutC>::type, AlignC,
    ElementD, typename cutlass::layout::LayoutTranspose<LayoutC>::type, AlignD,
    cutlass::epilogue::TmaWarpSpecializedCooperative
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    cute::tuple<ElementB, cutlass::half_t, cutlass::half_t>, typename cutlass::layout::LayoutTranspose<LayoutB>::type, AlignB,
    ElementA, typename cutlass::layout::LayoutTranspose<LayoutA>::type, AlignA,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1::GemmKernel, sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1)
