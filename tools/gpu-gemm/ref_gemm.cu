// A hand-written Hopper (sm_90a) bf16 GEMM: the reference the phasegate kernel of issue 13 is
// measured against, and the blueprint for the PTX phasegate must emit (docs/performance.md,
// "cuBLAS baseline and hand-written reference").
//
//   C (M x N, row-major bf16) = A (M x K, row-major bf16) . B^T   (B is N x K, row-major bf16)
//   f32 accumulation in registers; written for this project, not taken from CUTLASS.
//
// Structure (each point is one of the issue's requirements):
//   * CTA tile 128 x 256, k-block 64 (128 bytes of bf16: one 128-byte swizzle span), 4 stages
//     of A (16 KiB) + B (32 KiB) in a ring guarded by mbarriers: full[s] (1 arrival + 48 KiB of
//     transactions) and empty[s] (16 arrivals: 8 consumer warps x 2 CTAs of the cluster).
//   * Clusters of 2 CTAs along M that share the 256-row B tile: each CTA loads 128 rows of it
//     with a TMA multicast to both (cp.async.bulk.tensor ... .multicast::cluster, mask 0b11), so
//     each CTA's full[s] collects its own A, its own half of B and its peer's half.
//   * 384 threads: warpgroup 0 is the producer (setmaxnreg.dec to 40; one thread issues every
//     TMA load), warpgroups 1 and 2 are consumers (setmaxnreg.inc to 232), each computing 64 x
//     256 of the tile with wgmma.mma_async m64n256k16 into 128 f32 registers per thread.
//   * Persistent: the grid is as many clusters as fit at once; cluster c takes work units
//     c, c + clusters, ...; a unit is a pair of M tiles (one per CTA) and one N tile, ordered in
//     groups of 8 M pairs so that concurrently running clusters share A and B in L2.
//   * Epilogue: each consumer warpgroup converts its accumulators to bf16, writes them into a
//     128-byte-swizzled 64 x 64 staging tile (conflict-free 4-byte stores; two tiles per
//     warpgroup, used in turn) and issues a TMA store (cp.async.bulk.tensor ...
//     .global.shared::cta.bulk_group) per 64 columns.
// The TMA boxes the kernel expects: A and B 64 (k) x 128 (rows), C 64 (columns) x 64 (rows),
// all with 128-byte swizzle. Launch: block 384, cluster (2,1,1), REF_SMEM_BYTES dynamic shared.
#include <cuda.h>
#include <stdint.h>

#define BM 128
#define BN 256
#define BK 64
#define STAGES 4
#define A_STAGE_BYTES (BM * BK * 2)          // 16 KiB
#define B_STAGE_BYTES (BN * BK * 2)          // 32 KiB
#define B_HALF_BYTES (B_STAGE_BYTES / 2)     // the rows one CTA loads and multicasts
#define C_CHUNK_BYTES (64 * 64 * 2)          // one consumer warpgroup's staging tile
#ifndef C_BUFFERS
#define C_BUFFERS 2                          // staging tiles per consumer warpgroup
#endif
#define OFF_A 0
#define OFF_B (OFF_A + STAGES * A_STAGE_BYTES)
#define OFF_C (OFF_B + STAGES * B_STAGE_BYTES)
#define OFF_BAR (OFF_C + 2 * C_BUFFERS * C_CHUNK_BYTES)
#define SMEM_USED (OFF_BAR + 2 * STAGES * 8)
// The dynamic window starts 16-byte aligned; the swizzled tiles need 1024.
#define REF_SMEM_BYTES (SMEM_USED + 1024)
#ifndef TMAP_PREFETCH
#define TMAP_PREFETCH 1
#endif
#ifndef GROUP_M_PAIRS
#define GROUP_M_PAIRS 8
#endif
// The dynamic shared memory a launch must give, in the PTX for tools/gpu-gemm/run.sh to read.
extern "C" __device__ const uint32_t ref_gemm_dynamic_smem = REF_SMEM_BYTES;
// A stage is free again once every consumer warp of both CTAs has seen its wgmmas on it
// complete: lane 0 of each consumer warp arrives on CTA 0's empty[s], lane 1 on CTA 1's.
// (wgmma.wait_group orders only the waiting warp's own wgmma reads, PTX ISA §9.7.15.7.3, so one
// arrival per warpgroup after one warp's wait would release operands the other three warps'
// wgmmas may still be reading.)
#define EMPTY_ARRIVALS (2 * 4 * 2)

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n"
        ".reg .pred done;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n"
        "}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// Arrives on the barrier at the same offset in CTA `rank` of the cluster (this CTA included).
// The default semantics, .release.cta: what the arrival publishes are the wgmma reads of the
// stage, complete at wgmma.wait_group. `.release.cluster` costs MEMBAR.ALL.CTA, MEMBAR.ALL.GPU,
// ERRBAR and CGAERRBAR before every arrival in SASS: that stalled the consumers half of the
// time (0.58x cuBLAS on the first run).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t rank) {
    asm volatile(
        "{\n"
        ".reg .b32 remote;\n"
        "mapa.shared::cluster.u32 remote, %0, %1;\n"
        "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
        "}\n" ::"r"(bar),
        "r"(rank)
        : "memory");
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(map), "r"(x), "r"(y), "r"(bar)
        : "memory");
}

__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, int x, int y, uint32_t bar,
                                                      uint16_t mask) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%2, %3}], "
        "[%4], %5;" ::"r"(dst),
        "l"(map), "r"(x), "r"(y), "r"(bar), "h"(mask)
        : "memory");
}

__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, uint32_t src, int x, int y) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map), "r"(src), "r"(x),
                 "r"(y)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

// wgmma shared-memory matrix descriptor (PTX ISA §9.7.15.5.1.2.2): start address >> 4 in bits
// 0-13, leading byte offset >> 4 in 16-29 (unused for swizzled K-major tiles; 1 by
// convention), stride byte offset >> 4 in 32-45 (1024: eight 128-byte rows), swizzle mode in
// 62-63 (1: 128-byte swizzle).
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }

__device__ __forceinline__ void wgmma_m64n256k16(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "setp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, 1, 1, 0, 0;\n"
        "}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// The unit's tiles. Units go through groups of GROUP_M_PAIRS M pairs; within a group the M pair
// changes fastest, then the N tile, so clusters running together share B tiles in L2 and reuse
// the group's A rows across its N tiles.
__device__ __forceinline__ void unit_tile(uint32_t unit, uint32_t m_pairs, uint32_t n_tiles, uint32_t& m_pair,
                                          uint32_t& n_tile) {
    const uint32_t per_group = GROUP_M_PAIRS * n_tiles;
    const uint32_t group = unit / per_group;
    const uint32_t first = group * GROUP_M_PAIRS;
    const uint32_t size = min(m_pairs - first, (uint32_t)GROUP_M_PAIRS);
    const uint32_t in_group = unit % per_group;
    m_pair = first + in_group % size;
    n_tile = in_group / size;
}

extern "C" __global__ void __launch_bounds__(384, 1)
    ref_gemm(const __grid_constant__ CUtensorMap tm_a, const __grid_constant__ CUtensorMap tm_b,
             const __grid_constant__ CUtensorMap tm_c, uint32_t M, uint32_t N, uint32_t K) {
    extern __shared__ uint8_t smem_raw[];
    uint8_t* smem = (uint8_t*)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    const uint32_t base = smem_u32(smem);
    const uint32_t full = base + OFF_BAR;            // full[s] at full + 8 s
    const uint32_t empty = base + OFF_BAR + STAGES * 8;

    uint32_t rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    const uint32_t cluster = blockIdx.x / 2, clusters = gridDim.x / 2;
    const uint32_t m_tiles = (M + BM - 1) / BM, n_tiles = (N + BN - 1) / BN;
    const uint32_t m_pairs = (m_tiles + 1) / 2, units = m_pairs * n_tiles;
    const uint32_t k_blocks = (K + BK - 1) / BK;
    const uint32_t warpgroup = threadIdx.x / 128;

    if (threadIdx.x == 0) {
#if TMAP_PREFETCH
        // The three descriptors into the tensor-map cache before the first copy needs them.
        asm volatile("prefetch.tensormap [%0];" ::"l"(&tm_a) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&tm_b) : "memory");
        asm volatile("prefetch.tensormap [%0];" ::"l"(&tm_c) : "memory");
#endif
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full + 8 * s, 1);
            mbar_init(empty + 8 * s, EMPTY_ARRIVALS);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // Both CTAs' barriers exist before either CTA multicasts into the other or arrives there.
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");

    if (warpgroup == 0) {
        // Producer: few registers; one thread issues the loads.
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (threadIdx.x == 0) {
            uint32_t s = 0, phase = 0;
            for (uint32_t unit = cluster; unit < units; unit += clusters) {
                uint32_t m_pair, n_tile;
                unit_tile(unit, m_pairs, n_tiles, m_pair, n_tile);
                const int m0 = (int)((2 * m_pair + rank) * BM);
                const int nb = (int)(n_tile * BN + rank * (BN / 2));
                for (uint32_t kb = 0; kb < k_blocks; ++kb) {
                    mbar_wait(empty + 8 * s, phase ^ 1);
                    mbar_expect_tx(full + 8 * s, A_STAGE_BYTES + B_STAGE_BYTES);
                    tma_load_2d(base + OFF_A + s * A_STAGE_BYTES, &tm_a, (int)(kb * BK), m0, full + 8 * s);
                    tma_load_2d_multicast(base + OFF_B + s * B_STAGE_BYTES + rank * B_HALF_BYTES, &tm_b, (int)(kb * BK),
                                          nb, full + 8 * s, (uint16_t)0x3);
                    if (++s == STAGES) {
                        s = 0;
                        phase ^= 1;
                    }
                }
            }
        }
    } else {
        // Consumers: 64 rows of the tile each, 128 accumulators per thread.
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        const uint32_t wg = warpgroup - 1;             // 0 or 1: rows 64 wg .. 64 wg + 63
        const uint32_t t = threadIdx.x % 128;
        const uint32_t warp = t / 32, lane = t % 32;
        const uint32_t stage_c0 = base + OFF_C + wg * C_BUFFERS * C_CHUNK_BYTES;
        float acc[128];
        uint32_t s = 0, phase = 0;
        for (uint32_t unit = cluster; unit < units; unit += clusters) {
            uint32_t m_pair, n_tile;
            unit_tile(unit, m_pairs, n_tiles, m_pair, n_tile);
            const int m0 = (int)((2 * m_pair + rank) * BM);
            const int n0 = (int)(n_tile * BN);
            uint32_t prev = 0;
            for (uint32_t kb = 0; kb < k_blocks; ++kb) {
                mbar_wait(full + 8 * s, phase);
                const uint64_t da = smem_desc(base + OFF_A + s * A_STAGE_BYTES + wg * (64 * 128));
                const uint64_t db = smem_desc(base + OFF_B + s * B_STAGE_BYTES);
#pragma unroll
                for (int i = 0; i < 128; ++i) fence_operand(acc[i]);
                asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
                for (int kk = 0; kk < BK / 16; ++kk) {
                    // 16 k-elements are 32 bytes further along each 128-byte row: +2 in the
                    // descriptor's address field (the swizzle is applied to the full address).
                    wgmma_m64n256k16(acc, da + 2 * kk, db + 2 * kk, (kb > 0 || kk > 0) ? 1 : 0);
                }
                asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
                // One k-block in flight: the previous one is done, its stage goes back.
                asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
#pragma unroll
                for (int i = 0; i < 128; ++i) fence_operand(acc[i]);
                if (kb > 0 && lane < 2) mbar_arrive_cluster(empty + 8 * prev, lane);
                prev = s;
                if (++s == STAGES) {
                    s = 0;
                    phase ^= 1;
                }
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#pragma unroll
            for (int i = 0; i < 128; ++i) fence_operand(acc[i]);
            if (k_blocks > 0 && lane < 2) mbar_arrive_cluster(empty + 8 * prev, lane);

            // Epilogue: four 64 x 64 chunks through the swizzled staging tiles, in turn; the
            // store that last read a tile must be done reading it (with two tiles: all but the
            // most recent store, which reads the other one).
            const uint32_t r = 16 * warp + lane / 4;  // this thread's rows: r and r + 8
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                const uint32_t stage_c = stage_c0 + (q % C_BUFFERS) * C_CHUNK_BYTES;
                if (t == 0) {
                    if (C_BUFFERS == 1) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
                    else asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
                }
                asm volatile("bar.sync %0, 128;" ::"r"(wg + 1) : "memory");
#pragma unroll
                for (int j = 0; j < 8; ++j) {
                    const int jj = 8 * q + j;  // n8 group within the 256 columns
                    const uint32_t chunk = (uint32_t)j;  // 16-byte chunk of the 128-byte row
                    const uint32_t inner = (lane % 4) * 4;
                    uint32_t lo, hi;
                    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(lo) : "f"(acc[4 * jj + 1]), "f"(acc[4 * jj + 0]));
                    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(hi) : "f"(acc[4 * jj + 3]), "f"(acc[4 * jj + 2]));
                    const uint32_t a0 = stage_c + r * 128 + ((chunk ^ (r % 8)) * 16) + inner;
                    const uint32_t a1 = stage_c + (r + 8) * 128 + ((chunk ^ ((r + 8) % 8)) * 16) + inner;
                    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a0), "r"(lo) : "memory");
                    asm volatile("st.shared.b32 [%0], %1;" ::"r"(a1), "r"(hi) : "memory");
                }
                // The TMA engine reads what ordinary stores wrote: proxy fence, then barrier.
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                asm volatile("bar.sync %0, 128;" ::"r"(wg + 1) : "memory");
                if (t == 0) tma_store_2d(&tm_c, stage_c, n0 + 64 * q, m0 + 64 * (int)wg);
            }
        }
        if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
    // No CTA leaves while its peer may still arrive on its barriers or multicast into it.
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
