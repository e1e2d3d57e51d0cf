// Only CTA 0 of the cluster arrives on the cluster barrier: CTA-uniform, not cluster-uniform.
// expect: aligned_barrier_divergence
#define KERNEL abd_cluster_rank
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void __cluster_dims__(2, 1, 1) abd_cluster_rank(float* out, const float* in, unsigned n)
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
