// Warp 0 alone multiplies with mma.sync.aligned, all 32 of its lanes: a warp-uniform branch
// around a warp-collective instruction, as in a warp-specialised kernel.
// expect: clean
#define KERNEL ok_warp_role_mma
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_warp_role_mma(float* out, const float* in, unsigned n)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned bits = __float_as_uint(in[threadIdx.x]) >> 16;
    const unsigned a[4] = {bits * 0x10001u, bits, bits << 16, 0x3f803f80u};
    const unsigned b[2] = {0x3f803f80u, bits * 0x10001u};
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (warp == 0) {
        mma_bf16_16x8x16(d, a, b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}
#include "corpus_main.h"
