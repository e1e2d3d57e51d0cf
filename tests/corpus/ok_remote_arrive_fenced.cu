// CTA 0 of a cluster of two initialises an mbarrier that CTA 1 arrives on remotely, with
// fence.mbarrier_init before a relaxed cluster arrive (CUTLASS's order): the initialisation is
// released to the cluster before CTA 1 arrives.
// expect: clean
#define KERNEL ok_remote_arrive_fenced
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) ok_remote_arrive_fenced(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    const unsigned rank = cluster_rank();
    if (rank == 0 && threadIdx.x == 0) {
        mbar_init(b, blockDim.x);
        fence_mbar_init();
    }
    cluster_arrive_relaxed();
    cluster_wait();
    if (rank == 1) {
        mbar_arrive_remote(b, 0);
    } else {
        mbar_wait_parity(b, 0);
    }
    cluster_arrive();
    cluster_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = in[threadIdx.x];
}
#include "corpus_main.h"
