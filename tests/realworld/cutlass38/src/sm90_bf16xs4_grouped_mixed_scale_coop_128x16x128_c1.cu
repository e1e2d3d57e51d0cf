// Grouped mixed-input GEMM (GroupProblemShape, pointer arrays): A bf16, B int4 with bf16 scales,
// swapped and transposed, KernelPtrArrayTmaWarpSpecializedCooperative, tile 128x16x128 (decode-like
// narrow N), cluster 1x1x1; epilogue PtrArrayTmaWarpSpecializedCooperative.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1 {

using ElementA   = cutlass::bfloat16_t;
using ElementB   = cutlass::int4b_t;
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

using Tile    = Shape<_128,_16,_128>;
using Cluster = Shape<_1,_1,_1>;

using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, typename cutlass::layout::LayoutTranspose<LayoutC>::type *, AlignC,
    ElementD, typename cutlass::layout::LayoutTranspose<LayoutC>::type *, AlignD,
    cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    cute::tuple<ElementB, cutlass::bfloat16_t>, typename cutlass::layout::LayoutTranspose<LayoutB>::type *, AlignB,
    ElementA, typename cutlass::layout::LayoutTranspose<LayoutA>::type *, AlignA,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    cutlass::gemm::GroupProblemShape<Shape<int, int, int>>, Mainloop, Epilogue>;

}  // namespace pg_sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1

PHASEGATE_EMIT_KERNEL(pg_sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1::GemmKernel, sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1)
