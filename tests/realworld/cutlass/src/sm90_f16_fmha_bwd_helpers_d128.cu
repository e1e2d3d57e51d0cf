// The two helper kernels of the SM90 FMHA backward pass: FmhaKernelBwdSumOdO (rowsum(O*dO) into
// an f32 buffer before the main kernel) and FmhaKernelBwdConvert (f32 dQ accumulator -> f16 dQ
// after it); f16, head dim 128.  Two .entry directives.
// From the nvidia-cutlass 4.2.0 wheel's examples/88_hopper_fmha collectives (device::FmhaBwd);
// written for the phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "device/fmha_device_bwd.hpp"

using namespace cute;

namespace pg_sm90_f16_fmha_bwd_helpers_d128 {

using Bwd = cutlass::fmha::device::FmhaBwd<
    cutlass::half_t, float, Shape<_64, _128, _128>, cutlass::fmha::collective::CausalFusion>;

}  // namespace pg_sm90_f16_fmha_bwd_helpers_d128

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_fmha_bwd_helpers_d128::Bwd::OperationSumOdO::Kernel, sm90_f16_fmha_bwd_helpers_d128_sum_OdO)
PHASEGATE_EMIT_KERNEL(pg_sm90_f16_fmha_bwd_helpers_d128::Bwd::OperationConvert::Kernel, sm90_f16_fmha_bwd_helpers_d128_convert)
