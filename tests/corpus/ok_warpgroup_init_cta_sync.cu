// Warp 0 initialises an mbarrier and __syncthreads orders it before both warp groups use it;
// warp group 0 fills a buffer and arrives, warp group 1 waits for phase 0 (the twin of
// uninit_other_warpgroup).
// expect: clean
#define KERNEL ok_warpgroup_init_cta_sync
#define GRID 1
#define BLOCK 256
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_warpgroup_init_cta_sync(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[128];
    const unsigned b = smem_u32(&bar);
    const unsigned wg = threadIdx.x / 128;
    if (threadIdx.x == 0) {
        mbar_init(b, 128);
        fence_mbar_init();
    }
    __syncthreads();
    if (wg == 0) {
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
