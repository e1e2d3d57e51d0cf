// Threads arrive on the barrier before thread 0 initialises it.
// expect: mbarrier_uninit
#define KERNEL uninit_use_before_init
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS uninit_use_before_init(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    mbar_arrive(b);
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
