// Shared stores, fence.proxy.async by every writer, __syncthreads, then one thread bulk-stores.
// expect: clean
#define KERNEL ok_bulk_store_fence
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_bulk_store_fence(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) float tile[128];
    tile[threadIdx.x] = 2.0f * in[blockIdx.x * blockDim.x + threadIdx.x];
    fence_proxy_async();
    __syncthreads();
    if (threadIdx.x == 0) {
        bulk_store(out + blockIdx.x * 128, smem_u32(tile), sizeof(tile));
    }
    __syncthreads();
}
#include "corpus_main.h"
