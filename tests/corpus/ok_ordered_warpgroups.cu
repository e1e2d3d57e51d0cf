// Two warp groups take turns, round after round, through two mbarriers (CUTLASS's ordered
// sequence barrier): group 0 waits on turn[0] (its first wait, parity 1, passes at once), works,
// and arrives on turn[1]; group 1 waits on turn[1], works, and arrives on turn[0].
// expect: clean
#define KERNEL ok_ordered_warpgroups
#define GRID 1
#define BLOCK 256
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_ordered_warpgroups(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long turn[2];
    __shared__ float acc[128];
    const unsigned wg = threadIdx.x / 128;
    const unsigned t = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&turn[0]), 128);
        mbar_init(smem_u32(&turn[1]), 128);
    }
    if (threadIdx.x < 128) {
        acc[threadIdx.x] = 0.0f;
    }
    __syncthreads();
    const unsigned rounds = n / 4096;
    for (unsigned k = 0; k < rounds; ++k) {
        mbar_wait_parity(smem_u32(&turn[wg]), (k & 1) ^ (wg == 0 ? 1 : 0));
        acc[t] += in[k * 256 + threadIdx.x];
        mbar_arrive(smem_u32(&turn[wg ^ 1]));
    }
    __syncthreads();
    out[threadIdx.x] = acc[t];
}
#include "corpus_main.h"
