// SM90 mixed-input GEMM: A = int4 (cutlass::int4b_t), B = bf16, f32 accumulate,
// bf16 output.  Direct-convert mode (no group scales): the builder picks
// MainloopSm90TmaGmmaRmemAWarpSpecializedMixedInput, so A is loaded by TMA,
// converted to bf16 in registers and fed to register-sourced (RS) wgmma.
// Mainloop: KernelTmaWarpSpecializedCooperative, tile 128x128x64, cluster 1x1x1.
// Epilogue: TMA store (TmaWarpSpecializedCooperative), LinearCombination.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_s4xbf16_mixed {

using ElementA   = cutlass::int4b_t;
using ElementB   = cutlass::bfloat16_t;
using ElementC   = cutlass::bfloat16_t;
using ElementD   = cutlass::bfloat16_t;
using ElementAcc = float;
using LayoutA = cutlass::layout::RowMajor;     // K-major
using LayoutB = cutlass::layout::ColumnMajor;  // K-major
using LayoutC = cutlass::layout::RowMajor;
constexpr int AlignA = 128 / cutlass::sizeof_bits<ElementA>::value;  // 32 elements
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

}  // namespace pg_sm90_s4xbf16_mixed

PHASEGATE_EMIT_KERNEL(pg_sm90_s4xbf16_mixed::GemmKernel, sm90_s4xbf16_mixed)
