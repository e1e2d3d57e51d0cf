// Every thread arrives and waits each iteration, for parity k & 1.
// expect: clean
#define KERNEL ok_mbar_loop_parity
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_mbar_loop_parity(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[2][128];
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    float acc = 0.0f;
    for (unsigned k = 0; k < 8; ++k) {
        s[k & 1][threadIdx.x] = in[k * blockDim.x + threadIdx.x];
        mbar_arrive(b);
        mbar_wait_parity(b, k & 1);
        acc += s[k & 1][127 - threadIdx.x];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
#include "corpus_main.h"
