// Only CTA 0 of the cluster arrives on the cluster barrier (the branch is CTA-uniform, not
// cluster-uniform): the threads of CTA 1 wait without having arrived, so they wait for
// themselves. Each warp executes the aligned instructions convergently; the rule broken is
// arrive-before-wait (PTX ISA §9.7.13.3).
// expect: cluster_barrier_double_arrive
#define KERNEL abd_cluster_rank
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) abd_cluster_rank(float* out, const float* in, unsigned n)
{
    __shared__ float buf[128];
    buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    if (cluster_rank() == 0) {
        cluster_arrive();
    }
    cluster_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[threadIdx.x];
}
#include "corpus_main.h"
