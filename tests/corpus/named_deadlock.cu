// Warp 0 waits on barrier 1 before arriving on 2; warp 1 waits on 2 before arriving on 1.
// expect: named_barrier_deadlock
#define KERNEL named_deadlock
#define BLOCK 64
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS named_deadlock(float* out, const float* in, unsigned n)
{
    __shared__ float s[64];
    s[threadIdx.x] = in[threadIdx.x];
    if (threadIdx.x / 32 == 0) {
        bar_sync_n<1, 64>();
        bar_arrive_n<2, 64>();
    } else {
        bar_sync_n<2, 64>();
        bar_arrive_n<1, 64>();
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[63 - threadIdx.x];
}
#include "corpus_main.h"
