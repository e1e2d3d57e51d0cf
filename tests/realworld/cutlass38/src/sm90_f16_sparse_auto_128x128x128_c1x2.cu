// 2:4 structured-sparse GEMM (OpClassSparseTensorOp: wgmma.sp with metadata E), A f16 sparse row-major,
// B f16 column-major, f32 C/D column-major; KernelScheduleAuto/EpilogueScheduleAuto, tile 128x128x128,
// cluster 1x2x1.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 API.
#include "phasegate_cutlass_common.hpp"

using namespace cute;

namespace pg_sm90_f16_sparse_auto_128x128x128_c1x2 {

using ElementA   = cutlass::half_t;
using ElementB   = cutlass::half_t;
using ElementC   = float;
using ElementD   = float;
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
    cutlass::arch::Sm90, cutlass::arch::OpClassSparseTensorOp,
    Tile, Cluster, cutlass::epilogue::collective::EpilogueTileAuto,
    ElementAcc, float,
    ElementC, LayoutC, AlignC,
    ElementD, LayoutC, AlignD,
    cutlass::epilogue::collective::EpilogueScheduleAuto
  >::CollectiveOp;

using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassSparseTensorOp,
    ElementA, LayoutA, AlignA,
    ElementB, LayoutB, AlignB,
    ElementAcc, Tile, Cluster,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
    cutlass::gemm::collective::KernelScheduleAuto
  >::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm90_f16_sparse_auto_128x128x128_c1x2

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_sparse_auto_128x128x128_c1x2::GemmKernel, sm90_f16_sparse_auto_128x128x128_c1x2)
