// Every thread arrives on the cluster barrier twice before waiting.
// expect: cluster_barrier_double_arrive
#define KERNEL cluster_double_arrive
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) cluster_double_arrive(float* out, const float* in, unsigned n)
{
    __shared__ float buf[128];
    buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    cluster_arrive();
    buf[threadIdx.x] *= 2.0f;
    cluster_arrive();
    cluster_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[threadIdx.x];
}
#include "corpus_main.h"
