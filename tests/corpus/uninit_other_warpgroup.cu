// Warp 0 initialises an mbarrier; warp group 0 then synchronises on a warp-group barrier
// (bar.sync 1, 128) and warp group 1 on its own (bar.sync 2, 128) before waiting on the
// mbarrier: nothing orders the initialisation before warp group 1's wait.
// expect: mbarrier_uninit
#define KERNEL uninit_other_warpgroup
#define GRID 1
#define BLOCK 256
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS uninit_other_warpgroup(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[128];
    const unsigned b = smem_u32(&bar);
    const unsigned wg = threadIdx.x / 128;
    if (wg == 0) {
        if (threadIdx.x == 0) {
            mbar_init(b, 128);
            fence_mbar_init();
        }
        bar_sync_n<1, 128>();
        s[threadIdx.x] = in[threadIdx.x] + 1.0f;
        mbar_arrive(b);
    } else {
        bar_sync_n<2, 128>();
        mbar_wait_parity(b, 0);
        out[threadIdx.x] = s[threadIdx.x - 128];
    }
}
#include "corpus_main.h"
