// A grid-stride loop with __syncthreads: its trip count depends on blockIdx and gridDim only.
// expect: clean
#define KERNEL ok_grid_stride_sync
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_grid_stride_sync(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    for (unsigned base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        s[threadIdx.x] = in[base + threadIdx.x];
        __syncthreads();
        out[base + threadIdx.x] = s[127 - threadIdx.x];
        __syncthreads();
    }
}
#include "corpus_main.h"
