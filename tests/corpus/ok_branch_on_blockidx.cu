// Branches around __syncthreads on blockIdx: the same in every thread of a CTA.
// expect: clean
#define KERNEL ok_branch_on_blockidx
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_branch_on_blockidx(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (blockIdx.x % 2 == 1) {
        __syncthreads();
        s[threadIdx.x] = s[127 - threadIdx.x];
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
#include "corpus_main.h"
