// __syncthreads_count (bar.red.popc on barrier 0) between plain __syncthreads, in the same
// order in every thread: one barrier id, never intermixed.
// expect: clean
#define KERNEL ok_syncthreads_count
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_syncthreads_count(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    s[threadIdx.x] = v;
    __syncthreads();
    const int positive = __syncthreads_count(v > 0.0f);
    const float w = s[127 - threadIdx.x];
    __syncthreads();
    const int all = __syncthreads_and(w >= -3.0f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = w + (float)positive + (float)all;
}
#include "corpus_main.h"
