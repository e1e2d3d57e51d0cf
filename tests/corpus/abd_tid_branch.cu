// Half of warp 0 skips __syncthreads: an aligned bar.sync under a divergent branch.
// expect: aligned_barrier_divergence
#define KERNEL abd_tid_branch
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS abd_tid_branch(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x >= 16) {
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % 128];
}
#include "corpus_main.h"
