// Hand-written CUDA C++ baseline for tools/gpu-bench: the five barrier-latency kernels of
// examples/latency.rs, with the same extern "C" names, parameters and launch contracts, the
// barrier instructions written as inline PTX and the time read with clock64().
//
// Each kernel reads clock64() before and after a loop of `iters` barrier operations; thread 0 of
// each block writes end - start to cycles[blockIdx.x]. bench.cu reports cycles[0] / iters.
//
//   bar_sync_latency(cycles, iters)               any block size; bar.sync 0
//   bar_red_popc_latency(cycles, counts, iters)   any block size; bar.red.popc.u32 d, 1, p with
//                                                 p = ((tid ^ i) & 1) == 0; counts[block] = sum of d
//   mbarrier_phase_latency(cycles, iters)         any block size; one mbarrier of count blockDim.x:
//                                                 every thread arrives, then try_wait.parity spins
//   ping_pong_latency(cycles, iters)              128 threads: warps 0-1 {bar.arrive 1,128;
//                                                 bar.sync 2,128}, warps 2-3 {bar.sync 1,128;
//                                                 bar.arrive 2,128}
//   cluster_latency(cycles, iters)                clusters of 2 CTAs: barrier.cluster.arrive.release
//                                                 + barrier.cluster.wait.acquire (.aligned)
//
// The loops are plain `for` loops, so nvcc unrolls them as it does any hand-written loop. The same
// five kernels with the suffix `_unroll1` carry `#pragma unroll 1`: one barrier round per loop
// trip, the shape of phasegate's loops. bench.cu times them as a diagnostic column, to tell the
// cost of the loop's own instructions apart from the barrier's.
//
// PTX: nvcc -ptx -arch=sm_90a tools/gpu-bench/latency_ref.cu -o latency_ref.ptx   (run.sh does it)

// ---- the barrier operations, as inline PTX ---------------------------------------------------

__device__ __forceinline__ void bar_sync_0() { asm volatile("bar.sync 0;" ::: "memory"); }

// bar.red.popc.u32 on barrier 1 over the whole CTA: the number of threads whose vote is non-zero.
__device__ __forceinline__ unsigned bar_red_popc_1(unsigned vote)
{
    unsigned d;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "setp.ne.u32 p, %1, 0;\n\t"
                 "bar.red.popc.u32 %0, 1, p;\n\t"
                 "}"
                 : "=r"(d) : "r"(vote) : "memory");
    return d;
}

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("{\n\t"
                 ".reg .b64 st;\n\t"
                 "mbarrier.arrive.shared::cta.b64 st, [%0];\n\t"
                 "}"
                 :: "r"(bar) : "memory");
}

// The wait loop as CUTLASS writes it (ClusterBarrier::wait): the spin stays inside the asm.
__device__ __forceinline__ void mbar_wait_parity(unsigned bar, unsigned parity)
{
    asm volatile("{\n\t"
                 ".reg .pred P1;\n\t"
                 "LAB_WAIT:\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n\t"
                 "@P1 bra DONE;\n\t"
                 "bra LAB_WAIT;\n\t"
                 "DONE:\n\t"
                 "}"
                 :: "r"(bar), "r"(parity) : "memory");
}

__device__ __forceinline__ void bar_arrive_1_128() { asm volatile("bar.arrive 1, 128;" ::: "memory"); }
__device__ __forceinline__ void bar_arrive_2_128() { asm volatile("bar.arrive 2, 128;" ::: "memory"); }
__device__ __forceinline__ void bar_sync_1_128() { asm volatile("bar.sync 1, 128;" ::: "memory"); }
__device__ __forceinline__ void bar_sync_2_128() { asm volatile("bar.sync 2, 128;" ::: "memory"); }

__device__ __forceinline__ void cluster_arrive_release() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait_acquire() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// Thread 0 inits the mbarrier with count blockDim.x; every thread fences; the CTA syncs.
// Returns the mbarrier's shared-memory address.
__device__ __forceinline__ unsigned mbar_setup(unsigned long long* bar)
{
    const unsigned addr = (unsigned)__cvta_generic_to_shared(bar);
    if (threadIdx.x == 0) mbar_init(addr, blockDim.x);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    __syncthreads();
    return addr;
}

// ---- the five kernels (nvcc unrolls their loops as it likes) ----------------------------------

extern "C" __global__ void bar_sync_latency(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
    for (unsigned i = 0; i < iters; ++i) bar_sync_0();
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void bar_red_popc_latency(unsigned long long* cycles, unsigned* counts, unsigned iters)
{
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
    const unsigned long long start = clock64();
    for (unsigned i = 0; i < iters; ++i) total += bar_red_popc_1(((tid ^ i) & 1u) == 0u);
    const unsigned long long end = clock64();
    if (tid == 0) {
        cycles[blockIdx.x] = end - start;
        counts[blockIdx.x] = total;
    }
}

extern "C" __global__ void mbarrier_phase_latency(unsigned long long* cycles, unsigned iters)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned addr = mbar_setup(&bar);
    unsigned parity = 0;
    const unsigned long long start = clock64();
    for (unsigned i = 0; i < iters; ++i) {
        mbar_arrive(addr);
        mbar_wait_parity(addr, parity);
        parity ^= 1u;
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void ping_pong_latency(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
    if (threadIdx.x / 32u < 2u) {
        for (unsigned i = 0; i < iters; ++i) {
            bar_arrive_1_128();
            bar_sync_2_128();
        }
    } else {
        for (unsigned i = 0; i < iters; ++i) {
            bar_sync_1_128();
            bar_arrive_2_128();
        }
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_latency(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
    for (unsigned i = 0; i < iters; ++i) {
        cluster_arrive_release();
        cluster_wait_acquire();
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

// ---- the same five with `#pragma unroll 1` (diagnostic) ---------------------------------------

extern "C" __global__ void bar_sync_latency_unroll1(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) bar_sync_0();
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void bar_red_popc_latency_unroll1(unsigned long long* cycles, unsigned* counts, unsigned iters)
{
    const unsigned tid = threadIdx.x;
    unsigned total = 0;
    const unsigned long long start = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) total += bar_red_popc_1(((tid ^ i) & 1u) == 0u);
    const unsigned long long end = clock64();
    if (tid == 0) {
        cycles[blockIdx.x] = end - start;
        counts[blockIdx.x] = total;
    }
}

extern "C" __global__ void mbarrier_phase_latency_unroll1(unsigned long long* cycles, unsigned iters)
{
    __shared__ __align__(8) unsigned long long bar;
    const unsigned addr = mbar_setup(&bar);
    unsigned parity = 0;
    const unsigned long long start = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
        mbar_arrive(addr);
        mbar_wait_parity(addr, parity);
        parity ^= 1u;
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void ping_pong_latency_unroll1(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
    if (threadIdx.x / 32u < 2u) {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) {
            bar_arrive_1_128();
            bar_sync_2_128();
        }
    } else {
#pragma unroll 1
        for (unsigned i = 0; i < iters; ++i) {
            bar_sync_1_128();
            bar_arrive_2_128();
        }
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster_latency_unroll1(unsigned long long* cycles, unsigned iters)
{
    const unsigned long long start = clock64();
#pragma unroll 1
    for (unsigned i = 0; i < iters; ++i) {
        cluster_arrive_release();
        cluster_wait_acquire();
    }
    const unsigned long long end = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = end - start;
}
