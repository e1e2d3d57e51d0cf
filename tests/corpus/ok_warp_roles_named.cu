// Producer warps 0-1 and consumer warps 2-3 hand a buffer back and forth with counted named
// barriers (FULL = 1, EMPTY = 2, 128 threads each), the producer waiting for EMPTY from the
// second round on.
// expect: clean
#define KERNEL ok_warp_roles_named
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_warp_roles_named(float* out, const float* in, unsigned n)
{
    __shared__ float slot[64];
    const unsigned warp = threadIdx.x / 32;
    const unsigned rounds = 8;
    if (warp < 2) {
        for (unsigned r = 0; r < rounds; ++r) {
            if (r > 0) {
                bar_sync_n<2, 128>();
            }
            slot[threadIdx.x] = in[r * 64 + threadIdx.x];
            bar_arrive_n<1, 128>();
        }
    } else {
        float acc = 0.0f;
        for (unsigned r = 0; r < rounds; ++r) {
            bar_sync_n<1, 128>();
            acc += slot[threadIdx.x - 64];
            bar_arrive_n<2, 128>();
        }
        out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    }
}
#include "corpus_main.h"
