// The result of __syncthreads_count is the same in every thread, so a branch on it is uniform.
// expect: clean
#define KERNEL ok_branch_on_red_result
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_branch_on_red_result(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    s[threadIdx.x] = v;
    const int positive = __syncthreads_count(v > 0.0f);
    if (positive > 10) {
        s[threadIdx.x] *= 2.0f;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
