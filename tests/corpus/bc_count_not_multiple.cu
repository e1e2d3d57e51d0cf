// A named barrier's thread count, 48, is not a multiple of 32 (passed in a register, so ptxas
// cannot see it).
// expect: barrier_count
#define KERNEL bc_count_not_multiple
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS bc_count_not_multiple(float* out, const float* in, unsigned n)
{
    unsigned count = 48;
    float v = in[threadIdx.x];
    if (threadIdx.x < 64) {
        bar_sync(1, count);
        v += 1.0f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
