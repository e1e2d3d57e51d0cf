// A flag set by one thread only decides whether the CTA synchronises: the merged value is
// divergent.
// expect: aligned_barrier_divergence
#define KERNEL abd_merged_flag
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS abd_merged_flag(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    int go = 1;
    if (threadIdx.x == 5) {
        go = in[0] < 100.0f;
    }
    s[threadIdx.x] = in[threadIdx.x] * 2.0f;
    if (go) {
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 3) % 128];
}
#include "corpus_main.h"
