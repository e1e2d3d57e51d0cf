// Branches around __syncthreads on a kernel parameter: CTA-uniform.
// expect: clean
#define KERNEL ok_branch_on_param
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_branch_on_param(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    if (n > 1000) {
        __syncthreads();
        s[threadIdx.x] += s[127 - threadIdx.x];
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
#include "corpus_main.h"
