// A warp vote (__any_sync) is the same in every thread of the warp: a per-warp counted barrier
// under it is fine.
// expect: clean
#define KERNEL ok_vote_branch
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_vote_branch(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    const unsigned warp = threadIdx.x / 32;
    const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    s[threadIdx.x] = v;
    if (__any_sync(FULL_MASK, v > 2.0f)) {
        bar_sync(1 + warp, 32);
        s[threadIdx.x] += s[warp * 32 + (31 - threadIdx.x % 32)];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
#include "corpus_main.h"
