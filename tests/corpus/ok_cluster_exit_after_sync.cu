// CTA 1 of a cluster of two writes into CTA 0's shared memory; a cluster barrier after the write
// keeps CTA 0 alive until the write is done and makes it visible before CTA 0 reads it.
// expect: clean
#define KERNEL ok_cluster_exit_after_sync
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) ok_cluster_exit_after_sync(float* out, const float* in, unsigned n)
{
    __shared__ float buf[128];
    const unsigned rank = cluster_rank();
    buf[threadIdx.x] = 0.0f;
    cluster_arrive();
    cluster_wait();
    if (rank == 1) {
        const float v = in[threadIdx.x] * 2.0f;
        unsigned remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&buf[threadIdx.x])));
        asm volatile("st.shared::cluster.f32 [%0], %1;" :: "r"(remote), "f"(v) : "memory");
    }
    cluster_arrive();
    cluster_wait();
    if (rank == 0) {
        out[threadIdx.x] = buf[threadIdx.x];
    }
}
#include "corpus_main.h"
