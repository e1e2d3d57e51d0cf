// Shared by the corpus kernels: inline-PTX helpers for barriers, so that the PTX shows exactly
// the instruction forms the analyzer reasons about; launch defaults (see corpus_main.h).
#pragma once

#ifndef GRID
#define GRID 2
#endif
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif
#ifndef SMEM
#define SMEM 0
#endif
#define N_ELEMS (1u << 16)
#ifndef N_ARG
#define N_ARG N_ELEMS
#endif

#define FULL_MASK 0xffffffffu

// Every kernel declares the block it is launched with (`.maxntid BLOCK` in its PTX), as
// production kernels do: the analyzer runs a kernel with the launch it declares.
#define LAUNCH_BOUNDS __launch_bounds__(BLOCK)

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// ---- CTA barriers ----
__device__ __forceinline__ void bar_sync(unsigned id, unsigned count)
{
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void bar_arrive(unsigned id, unsigned count)
{
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(count) : "memory");
}
template <unsigned ID, unsigned COUNT>
__device__ __forceinline__ void bar_sync_n() { asm volatile("bar.sync %0, %1;" :: "n"(ID), "n"(COUNT) : "memory"); }
template <unsigned ID, unsigned COUNT>
__device__ __forceinline__ void bar_arrive_n() { asm volatile("bar.arrive %0, %1;" :: "n"(ID), "n"(COUNT) : "memory"); }

// ---- mbarrier ----
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_inval(unsigned bar)
{
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" :: "r"(bar) : "memory");
}
__device__ __forceinline__ unsigned long long mbar_arrive_state(unsigned bar)
{
    unsigned long long st;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(st) : "r"(bar) : "memory");
    return st;
}
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n\t}" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait_parity(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}
// One try_wait whose result the caller ignores (a bug: the phase may not be complete).
__device__ __forceinline__ void mbar_try_wait_once(unsigned bar, unsigned parity)
{
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t}"
                 :: "r"(bar), "r"(parity) : "memory");
}
// Arrive on the mbarrier at the same offset in the shared memory of cluster CTA `rank`.
__device__ __forceinline__ void mbar_arrive_remote(unsigned bar, unsigned rank)
{
    asm volatile("{\n\t.reg .b32 ra;\n\tmapa.shared::cluster.u32 ra, %0, %1;\n\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [ra];\n\t}"
                 :: "r"(bar), "r"(rank) : "memory");
}
// A bulk copy of `bytes` from global memory into shared offset `dst` of every CTA in `mask`,
// completing transactions on the mbarrier at offset `bar` of each of them.
__device__ __forceinline__ void bulk_load_multicast(unsigned dst, const void* src, unsigned bytes, unsigned bar, unsigned short mask)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(bar), "h"(mask) : "memory");
}
__device__ __forceinline__ void cluster_arrive_relaxed() { asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory"); }
__device__ __forceinline__ unsigned elect_one()
{
    unsigned is;
    asm volatile("{\n\t.reg .pred e;\n\telect.sync _|e, 0xffffffff;\n\tselp.u32 %0, 1, 0, e;\n\t}" : "=r"(is));
    return is;
}
__device__ __forceinline__ void mbar_wait_state(unsigned bar, unsigned long long st)
{
    unsigned done;
    do {
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(bar), "l"(st) : "memory");
    } while (!done);
}

// ---- bulk copies and proxies ----
__device__ __forceinline__ void bulk_load(unsigned dst, const void* src, unsigned bytes, unsigned bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void bulk_store(void* dst, unsigned src, unsigned bytes)
{
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(dst), "r"(src), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

// ---- clusters ----
__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
__device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

// One m16n8k16 bf16 tensor-core multiply-accumulate of the warp (every lane must execute it).
__device__ __forceinline__ void mma_bf16_16x8x16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
