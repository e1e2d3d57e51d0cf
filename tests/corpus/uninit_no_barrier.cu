// Thread 0 initialises the mbarrier and the others arrive with no __syncthreads in between.
// expect: mbarrier_uninit
#define KERNEL uninit_no_barrier
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS uninit_no_barrier(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
        fence_mbar_init();
    }
    float v = in[blockIdx.x * blockDim.x + threadIdx.x];
    mbar_arrive(b);
    mbar_wait_parity(b, 0);
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
