// The barrier is invalidated and then arrived on again.
// expect: mbarrier_uninit
#define KERNEL uninit_after_inval
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS uninit_after_inval(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    mbar_arrive(b);
    mbar_wait_parity(b, 0);
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_inval(b);
    }
    __syncthreads();
    mbar_arrive(b);
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[threadIdx.x];
}
#include "corpus_main.h"
