// Each iteration arrives and waits, always for parity 0: from the second iteration the wait
// returns at once or waits for a phase that never completes, depending on timing.
// expect: mbarrier_parity_mismatch
#define KERNEL pm_constant_parity_loop
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS pm_constant_parity_loop(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[128];
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    float acc = 0.0f;
    for (unsigned k = 0; k < 4; ++k) {
        s[threadIdx.x] = in[k * blockDim.x + threadIdx.x];
        mbar_arrive(b);
        mbar_wait_parity(b, 0);
        acc += s[127 - threadIdx.x];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
#include "corpus_main.h"
