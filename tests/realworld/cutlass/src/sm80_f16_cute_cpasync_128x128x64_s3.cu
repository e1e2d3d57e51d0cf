// SM80 f16 GEMM written against the CUTLASS 3.x / CuTe API without a builder:
// CollectiveMma<MainloopSm80CpAsync<3>> assembled by hand, kernel GemmUniversal
// (KernelMultistage path), epilogue collective::DefaultEpilogue (register->global).
// TiledMMA: 2x2 warps of SM80_16x8x16_F32F16F16F32_TN tiled to 32x32x16 per step.
// Tile 128x128x64, 3 smem stages, K-major A and B, swizzled (Swizzle<3,3,3>) smem,
// 16-byte cp.async gmem->smem, ldmatrix.x4 smem->register.
// Written for the phasegate real-world PTX corpus (CUTLASS 4.2.0 headers).
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>

#include <cutlass/cutlass.h>
#include <cutlass/numeric_types.h>
#include <cutlass/device_kernel.h>
#include <cutlass/gemm/gemm.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/collective/collective_mma.hpp>
#include <cutlass/epilogue/collective/default_epilogue.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/util/packed_stride.hpp>

using namespace cute;

namespace pg_sm80_cute {

using Element = cutlass::half_t;
using StrideA = cutlass::gemm::TagToStrideA_t<cutlass::layout::RowMajor>;     // K-major
using StrideB = cutlass::gemm::TagToStrideB_t<cutlass::layout::ColumnMajor>;  // K-major
using StrideC = cutlass::gemm::TagToStrideC_t<cutlass::layout::RowMajor>;

using TileShape = Shape<_128, _128, _64>;

using TiledMma = TiledMMA<
    MMA_Atom<SM80_16x8x16_F32F16F16F32_TN>,
    Layout<Shape<_2, _2, _1>>,     // 4 warps
    cute::Tile<_32, _32, _16>>;

// 8 rows x 64 halves (128 bytes) per atom, XOR-swizzled to avoid ldmatrix bank conflicts.
using SmemLayoutAtom = decltype(composition(
    Swizzle<3, 3, 3>{},
    Layout<Shape<_8, _64>, Stride<_64, _1>>{}));

// 128 threads, each moves 8 halves (16 B) per cp.async: 16 rows x 64 columns per pass.
using GmemTiledCopy = decltype(make_tiled_copy(
    Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, Element>{},
    Layout<Shape<_16, _8>, Stride<_8, _1>>{},
    Layout<Shape<_1, _8>>{}));

using SmemCopyAtom = Copy_Atom<SM75_U32x4_LDSM_N, Element>;

using Mainloop = cutlass::gemm::collective::CollectiveMma<
    cutlass::gemm::MainloopSm80CpAsync<3>,
    TileShape,
    Element, StrideA,
    Element, StrideB,
    TiledMma,
    GmemTiledCopy, SmemLayoutAtom, SmemCopyAtom, cute::identity,
    GmemTiledCopy, SmemLayoutAtom, SmemCopyAtom, cute::identity>;

using Epilogue = cutlass::epilogue::collective::DefaultEpilogue<
    Element, StrideC, StrideC,
    cutlass::epilogue::thread::LinearCombination<Element, 1, float, float>,
    cutlass::gemm::EpilogueDefault>;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, Mainloop, Epilogue>;

}  // namespace pg_sm80_cute

extern "C" __attribute__((used)) void const* phasegate_kernel_sm80_cute() {
  return reinterpret_cast<void const*>(&cutlass::device_kernel<pg_sm80_cute::GemmKernel>);
}
