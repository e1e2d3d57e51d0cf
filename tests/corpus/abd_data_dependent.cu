// The branch around __syncthreads depends on data each thread loads at its own address.
// expect: aligned_barrier_divergence
#define KERNEL abd_data_dependent
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS abd_data_dependent(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    s[threadIdx.x] = v;
    if (v > 0.0f) {
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
