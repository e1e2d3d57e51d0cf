// SM80 CUTLASS 2.x implicit-GEMM convolution: Conv2d forward propagation (DefaultConv2dFprop,
// IteratorAlgorithm::kOptimized, NHWC f16 activations and filters, f32 output, f32 accumulation),
// threadblock 128x128x32, warp 64x64x32, mma.sync m16n8k16, 3 cp.async stages.
// Entry point cutlass::Kernel<ImplicitGemmConvolution<...>>.
// Written for the phasegate real-world PTX corpus against the CUTLASS 3.8 headers.
#include "phasegate_cutlass_common.hpp"

#include <cutlass/conv/kernel/default_conv2d_fprop.h>
#include <cutlass/conv/kernel/implicit_gemm_convolution.h>
#include <cutlass/epilogue/thread/linear_combination.h>

namespace pg_sm80_conv {

using ConvKernel = typename cutlass::conv::kernel::DefaultConv2dFprop<
    cutlass::half_t, cutlass::layout::TensorNHWC,
    cutlass::half_t, cutlass::layout::TensorNHWC,
    float, cutlass::layout::TensorNHWC, float,
    cutlass::arch::OpClassTensorOp, cutlass::arch::Sm80,
    cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, 16>,
    cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3,
    cutlass::arch::OpMultiplyAdd, cutlass::conv::IteratorAlgorithm::kOptimized>::Kernel;

}  // namespace pg_sm80_conv

PHASEGATE_EMIT_KERNEL2(pg_sm80_conv::ConvKernel, sm80_conv)
