// A two-stage ring used by all threads: in iteration k every thread arrives on bar[k & 1] and
// waits for its phase (k >> 1) & 1, the parity of that stage's round.
// expect: clean
#define KERNEL ok_double_buffer_parity
#define GRID 1
#define BLOCK 128
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_double_buffer_parity(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar[2];
    __shared__ float s[2][128];
    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&bar[0]), blockDim.x);
        mbar_init(smem_u32(&bar[1]), blockDim.x);
    }
    __syncthreads();
    float acc = 0.0f;
    const unsigned rounds = n / 4096;
    for (unsigned k = 0; k < rounds; ++k) {
        const unsigned st = k & 1;
        s[st][threadIdx.x] = in[k * 128 + threadIdx.x];
        mbar_arrive(smem_u32(&bar[st]));
        mbar_wait_parity(smem_u32(&bar[st]), (k >> 1) & 1);
        acc += s[st][127 - threadIdx.x];
    }
    out[threadIdx.x] = acc;
}
#include "corpus_main.h"
