// Arrive, then wait for parity 1 on a fresh barrier (phase 0 has parity 0): returns at once while
// phase 0 is incomplete, and waits forever for phase 1 once it is complete.
// expect: mbarrier_parity_mismatch
#define KERNEL pm_first_parity_one
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS pm_first_parity_one(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[128];
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    s[threadIdx.x] = in[threadIdx.x];
    mbar_arrive(b);
    mbar_wait_parity(b, 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
