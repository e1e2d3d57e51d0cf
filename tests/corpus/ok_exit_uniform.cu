// Whole CTAs past the work return before __syncthreads: the exit is CTA-uniform.
// expect: clean
#define KERNEL ok_exit_uniform
#define GRID 4
#define N_ARG 256
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_exit_uniform(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    if (blockIdx.x * blockDim.x >= n) return;
    s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
