// SM90 FMHA backward main kernel, f16, head dim 64, tile 128x128x64, no mask (DefaultFusion).
// From the nvidia-cutlass 4.2.0 wheel's examples/88_hopper_fmha collectives (device::FmhaBwd);
// written for the phasegate real-world PTX corpus; compile with -I<headers>/examples/88_hopper_fmha.
#include "phasegate_cutlass_common.hpp"

#include "collective/fmha_fusion.hpp"
#include "device/fmha_device_bwd.hpp"

using namespace cute;

namespace pg_sm90_f16_fmha_bwd_coop_128x128x64 {

using Bwd = cutlass::fmha::device::FmhaBwd<
    cutlass::half_t, float, Shape<_128, _128, _64>, cutlass::fmha::collective::DefaultFusion>;

}  // namespace pg_sm90_f16_fmha_bwd_coop_128x128x64

PHASEGATE_EMIT_KERNEL(pg_sm90_f16_fmha_bwd_coop_128x128x64::Bwd::Operation::Kernel, sm90_f16_fmha_bwd_coop_128x128x64)
