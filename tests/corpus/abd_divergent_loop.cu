// __syncthreads in a loop whose trip count depends on the thread.
// expect: aligned_barrier_divergence
#define KERNEL abd_divergent_loop
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS abd_divergent_loop(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    float acc = 0.0f;
    for (unsigned i = 0; i < (threadIdx.x & 3) + 1; ++i) {
        s[threadIdx.x] = in[threadIdx.x + i];
        __syncthreads();
        acc += s[(threadIdx.x + i) % 128];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
#include "corpus_main.h"
