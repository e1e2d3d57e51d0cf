// A counted named barrier (bar.sync 1, 64) reached by half of each warp only.
// expect: aligned_barrier_divergence
#define KERNEL abd_lane_counted
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS abd_lane_counted(float* out, const float* in, unsigned n)
{
    const unsigned lane = threadIdx.x & 31;
    float v = in[threadIdx.x];
    if (threadIdx.x < 64 && lane < 16) {
        bar_sync_n<1, 64>();
        v *= 2.0f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
