// Threads past n return before the __syncthreads that the others execute.
// expect: divergent_exit_before_barrier
#define KERNEL dexit_early_return
#define N_ARG 200
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS dexit_early_return(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    s[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = s[threadIdx.x ^ 1];
}
#include "corpus_main.h"
