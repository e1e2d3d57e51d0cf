// expect_tx of 8 KB completed by two 4 KB bulk copies.
// expect: clean
#define KERNEL ok_two_copies_tx
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_two_copies_tx(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) float tile[2048];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
        fence_mbar_init();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(b, 8192);
        bulk_load(smem_u32(tile), in, 4096, b);
        bulk_load(smem_u32(tile + 1024), in + 1024, 4096, b);
    }
    mbar_wait_parity(b, 0);
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x] + tile[2047 - threadIdx.x];
}
#include "corpus_main.h"
