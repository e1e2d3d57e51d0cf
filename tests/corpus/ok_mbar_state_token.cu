// Arrive returns the phase state; test_wait on that state.
// expect: clean
#define KERNEL ok_mbar_state_token
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_mbar_state_token(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[128];
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
    }
    __syncthreads();
    s[threadIdx.x] = in[threadIdx.x];
    unsigned long long st = mbar_arrive_state(b);
    mbar_wait_state(b, st);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
