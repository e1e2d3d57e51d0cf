// Producer warps arrive on barrier 1 with count 64, consumer warps sync on it with 128.
// expect: barrier_count
#define KERNEL bc_count_mismatch
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS bc_count_mismatch(float* out, const float* in, unsigned n)
{
    __shared__ float s[64];
    const unsigned warp = threadIdx.x / 32;
    if (warp < 2) {
        s[threadIdx.x] = in[threadIdx.x];
        bar_arrive_n<1, 64>();
    } else {
        bar_sync_n<1, 128>();
        out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x - 64];
    }
}
#include "corpus_main.h"
