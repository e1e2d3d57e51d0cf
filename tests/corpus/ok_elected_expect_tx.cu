// One thread arms the barrier with expect_tx and issues the bulk copy; all threads wait for
// phase 0.
// expect: clean
#define KERNEL ok_elected_expect_tx
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_elected_expect_tx(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) float tile[1024];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
        fence_mbar_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(b, sizeof(tile));
        bulk_load(smem_u32(tile), in + blockIdx.x * 1024, sizeof(tile), b);
    }
    mbar_wait_parity(b, 0);
    float acc = 0.0f;
    for (unsigned j = threadIdx.x; j < 1024; j += blockDim.x) {
        acc += tile[j];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
#include "corpus_main.h"
