// Threads write a tile with ordinary shared stores; thread 0 then bulk-stores it (async proxy)
// with no fence.proxy.async in between.
// expect: missing_proxy_fence
#define KERNEL proxy_fence_missing
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS proxy_fence_missing(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) float tile[128];
    tile[threadIdx.x] = 2.0f * in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        bulk_store(out + blockIdx.x * 128, smem_u32(tile), sizeof(tile));
    }
    __syncthreads();
}
#include "corpus_main.h"
