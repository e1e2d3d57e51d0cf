// SM90 FMHA backward main kernel (FmhaBwdMainloopTmaWarpSpecialized + FmhaBwdEpilogueKV inside
// FmhaKernelTmaWarpSpecialized: TMA producer + MMA warpgroups computing dK, dV per KV tile and
// accumulating dQ in f32 with global atomics), f16, head dim 128, tile 64x128x128, causal.
// From the nvidia-cutlass 4.2.0 wheel's examples/88_hopper_fmha collectives (device::FmhaBwd);
// written for the phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "device/fmha_device_bwd.hpp"

using namespace cute;

namespace pg_sm90_f16_fmha_bwd_causal_coop_64x128x128 {

using Bwd = cutlass::fmha::device::FmhaBwd<
    cutlass::half_t, float, Shape<_64, _128, _128>, cutlass::fmha::collective::CausalFusion>;

}  // namespace pg_sm90_f16_fmha_bwd_causal_coop_64x128x128

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_fmha_bwd_causal_coop_64x128x128::Bwd::Operation::Kernel, sm90_f16_fmha_bwd_causal_coop_64x128x128)
