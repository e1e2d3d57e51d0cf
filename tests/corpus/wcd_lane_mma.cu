// Half of each warp issues a tensor-core mma.sync.aligned (the lanes with lane < 16): every lane
// of the warp must execute it (PTX ISA §9.7.14.5.14); the others' fragments are never supplied.
// expect: warp_collective_divergence
#define KERNEL wcd_lane_mma
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS wcd_lane_mma(float* out, const float* in, unsigned n)
{
    const unsigned lane = threadIdx.x & 31;
    const unsigned bits = __float_as_uint(in[threadIdx.x]) >> 16;
    const unsigned a[4] = {bits * 0x10001u, bits, bits << 16, 0x3f803f80u};
    const unsigned b[2] = {0x3f803f80u, bits * 0x10001u};
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (lane < 16) {
        mma_bf16_16x8x16(d, a, b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}
#include "corpus_main.h"
