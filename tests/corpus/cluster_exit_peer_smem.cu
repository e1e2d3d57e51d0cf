// CTA 1 of a cluster of two writes its results into CTA 0's shared memory and arrives on CTA 0's
// mbarrier; CTA 0 exits without waiting for it, so CTA 1 may write to the shared memory of a CTA
// that has exited.
// expect: cluster_peer_exit
#define KERNEL cluster_exit_peer_smem
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) cluster_exit_peer_smem(float* out, const float* in, unsigned n)
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
    } else {
        out[threadIdx.x] = buf[threadIdx.x];
    }
}
#include "corpus_main.h"
