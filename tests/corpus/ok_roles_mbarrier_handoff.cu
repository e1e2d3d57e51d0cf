// Warp 0 produces into shared memory and arrives on an mbarrier (count 32); warps 1-3 wait
// on it for phase 0, then everyone meets at __syncthreads.
// expect: clean
#define KERNEL ok_roles_mbarrier_handoff
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_roles_mbarrier_handoff(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    __shared__ float s[32];
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 32);
    }
    __syncthreads();
    float v = 0.0f;
    if (threadIdx.x < 32) {
        s[threadIdx.x] = in[threadIdx.x] * 3.0f;
        mbar_arrive(b);
    } else {
        mbar_wait_parity(b, 0);
        v = s[threadIdx.x % 32];
    }
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
#include "corpus_main.h"
