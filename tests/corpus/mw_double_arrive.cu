// A thread arrives twice in a row on a barrier that counts one arrival per thread and phase.
// expect: mbarrier_missing_wait
#define KERNEL mw_double_arrive
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS mw_double_arrive(float* out, const float* in, unsigned n)
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
    s[threadIdx.x] += 1.0f;
    unsigned long long st = mbar_arrive_state(b);
    mbar_wait_state(b, st);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
