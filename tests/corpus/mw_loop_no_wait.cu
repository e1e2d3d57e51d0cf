// Every thread arrives once per iteration and waits only after the loop: each arrive opens a
// phase nobody waited for.
// expect: mbarrier_missing_wait
#define KERNEL mw_loop_no_wait
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS mw_loop_no_wait(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    float acc = 0.0f;
    for (unsigned k = 0; k < 4; ++k) {
        acc += in[k * blockDim.x + threadIdx.x];
        mbar_arrive(b);
    }
    mbar_wait_parity(b, 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
#include "corpus_main.h"
