// One named barrier used in sequence with different thread counts (FlashAttention-3's
// epilogue): warps 0-11 synchronise on barrier 1 with count 384, so that instance completes
// before any of them goes on; then they arrive on it with count 416 while warp 12 waits there.
// Warp 12 takes part only after an mbarrier that thread 0 arrives on once the 384 instance is
// complete: without that order it could arrive during the first instance, whose count differs
// (PTX ISA §9.7.13.1: the arrivals of one instance must agree on the count).
// expect: clean
#define KERNEL ok_named_reuse_counts
#define GRID 1
#define BLOCK 416
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_named_reuse_counts(float* out, const float* in, unsigned n)
{
    __shared__ float s[384];
    __shared__ __align__(8) unsigned long long done;
    const unsigned b = smem_u32(&done);
    const unsigned warp = threadIdx.x / 32;
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
    }
    __syncthreads();
    if (warp < 12) {
        s[threadIdx.x] = in[threadIdx.x] * 2.0f;
        bar_sync_n<1, 384>();
        out[threadIdx.x] = s[383 - threadIdx.x];
        if (threadIdx.x == 0) {
            mbar_arrive(b);
        }
        bar_arrive_n<1, 416>();
    } else {
        mbar_wait_parity(b, 0);
        bar_sync_n<1, 416>();
        out[threadIdx.x] = s[threadIdx.x - 384];
    }
}
#include "corpus_main.h"
