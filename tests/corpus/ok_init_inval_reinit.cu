// init, use, inval, and init again, with __syncthreads between each step.
// expect: clean
#define KERNEL ok_init_inval_reinit
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_init_inval_reinit(float* out, const float* in, unsigned n)
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
        mbar_init(b, blockDim.x / 2);
    }
    __syncthreads();
    if (threadIdx.x < blockDim.x / 2) {
        mbar_arrive(b);
    }
    mbar_wait_parity(b, 0);
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_inval(b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[threadIdx.x];
}
#include "corpus_main.h"
