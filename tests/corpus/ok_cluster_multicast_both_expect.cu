// CTA 0 of a cluster of two multicasts one bulk copy into both CTAs' shared memory; each CTA's
// thread 0 expects the bytes on its own mbarrier, and a cluster barrier at the end keeps both
// CTAs alive until the copy has landed everywhere.
// expect: clean
#define KERNEL ok_cluster_multicast_both_expect
#define CLUSTER 2
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS __cluster_dims__(2, 1, 1) ok_cluster_multicast_both_expect(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) float tile[1024];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    const unsigned rank = cluster_rank();
    if (threadIdx.x == 0) {
        mbar_init(b, 1);
        fence_mbar_init();
    }
    cluster_arrive();
    cluster_wait();
    if (threadIdx.x == 0) {
        mbar_arrive_expect_tx(b, sizeof(tile));
        if (rank == 0) {
            bulk_load_multicast(smem_u32(tile), in, sizeof(tile), b, 0x3);
        }
    }
    mbar_wait_parity(b, 0);
    float acc = 0.0f;
    for (unsigned j = threadIdx.x; j < 1024; j += blockDim.x) {
        acc += tile[j];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    cluster_arrive();
    cluster_wait();
}
#include "corpus_main.h"
