// Shared-memory tree reduction: __syncthreads in a loop whose trip count is the same for all.
// expect: clean
#define KERNEL ok_block_reduce
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_block_reduce(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            s[threadIdx.x] += s[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = s[0];
    }
}
#include "corpus_main.h"
