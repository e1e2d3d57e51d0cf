// Two CTAs of a cluster exchange shared memory: arrive/wait before reading the peer, and again
// before exiting so the peer's memory stays alive.
// expect: clean
#define KERNEL ok_cluster_exchange
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) ok_cluster_exchange(float* out, const float* in, unsigned n)
{
    __shared__ float buf[128];
    buf[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    const unsigned peer = cluster_rank() ^ 1;
    cluster_arrive();
    cluster_wait();
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_u32(&buf[127 - threadIdx.x])), "r"(peer));
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(v) : "r"(remote) : "memory");
    cluster_arrive();
    cluster_wait();
    out[blockIdx.x * blockDim.x + threadIdx.x] = v + buf[threadIdx.x];
}
#include "corpus_main.h"
