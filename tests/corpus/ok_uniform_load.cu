// A value loaded from one address by every thread decides the branch: uniform.
// expect: clean
#define KERNEL ok_uniform_load
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_uniform_load(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    const float scale = in[0];
    if (scale < 100.0f) {
        __syncthreads();
        s[threadIdx.x] += s[127 - threadIdx.x] * scale;
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
#include "corpus_main.h"
