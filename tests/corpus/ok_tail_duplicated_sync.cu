// Both arms of a warp-uniform role branch end with the CTA barrier 15 (no thread count), as nvcc
// writes a __syncthreads() it tail-duplicates: every warp executes one of the two bar.sync 15
// instructions, convergently, and all warps meet at one barrier instance.
// expect: clean
#define KERNEL ok_tail_duplicated_sync
#define GRID 1
#define BLOCK 128
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_tail_duplicated_sync(float* out, const float* in, unsigned n)
{
    __shared__ float s[128];
    const unsigned warp = threadIdx.x / 32;
    if (warp < 2) {
        s[threadIdx.x] = in[threadIdx.x] + 1.0f;
        asm volatile("bar.sync 15;" ::: "memory");
    } else {
        s[threadIdx.x] = in[threadIdx.x] * 3.0f;
        asm volatile("bar.sync 15;" ::: "memory");
    }
    out[threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
