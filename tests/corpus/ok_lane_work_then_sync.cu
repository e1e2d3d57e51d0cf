// Divergent work (lane 0 of each warp) followed by a __syncthreads that every thread reaches.
// expect: clean
#define KERNEL ok_lane_work_then_sync
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_lane_work_then_sync(float* out, const float* in, unsigned n)
{
    __shared__ float partial[4];
    const unsigned lane = threadIdx.x & 31;
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int off = 16; off > 0; off /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, off);
    }
    if (lane == 0) {
        partial[threadIdx.x / 32] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        out[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];
    }
}
#include "corpus_main.h"
