// if (warp < 2) bar.sync 1, 64: a counted barrier under a warp-uniform branch.
// expect: clean
#define KERNEL ok_warp_if_counted
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_warp_if_counted(float* out, const float* in, unsigned n)
{
    __shared__ float s[64];
    const unsigned warp = threadIdx.x / 32;
    float v = in[threadIdx.x];
    if (warp < 2) {
        s[threadIdx.x] = v;
        bar_sync_n<1, 64>();
        v = s[63 - threadIdx.x];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
