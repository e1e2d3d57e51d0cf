// cp.async into shared memory tracked by an mbarrier (cp.async.mbarrier.arrive.noinc) plus the
// threads' own arrive, waited with test_wait on the returned state (count 2 x blockDim).
// expect: clean
#define KERNEL ok_ampere_cp_async
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_ampere_cp_async(float* out, const float* in, unsigned n)
{
    __shared__ __align__(16) float tile[128];
    __shared__ __align__(8) unsigned long long bar;
    const unsigned b = smem_u32(&bar);
    if (threadIdx.x == 0) {
        mbar_init(b, 2 * blockDim.x);
    }
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(smem_u32(&tile[threadIdx.x])), "l"(in + blockIdx.x * blockDim.x + threadIdx.x) : "memory");
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(b) : "memory");
    unsigned long long st = mbar_arrive_state(b);
    mbar_wait_state(b, st);
    out[blockIdx.x * blockDim.x + threadIdx.x] = tile[threadIdx.x ^ 1];
}
#include "corpus_main.h"
