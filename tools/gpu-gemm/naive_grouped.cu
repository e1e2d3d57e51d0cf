// A plain grouped (mixture-of-experts) GEMM for checking gemm-bench's `--grouped` PTX path end
// to end before a real kernel exists, not for speed: no tensor cores, f32 accumulation in k
// order, one block per row of C at a time (grid-stride), one thread per column.
//   C[i][j] = bf16(sum_k A[i][k] * B[g][j][k]) for i in group g (offsets[g] <= i < offsets[g+1])
// A [sum M, K], B [G, N, K], C [sum M, N], bf16, row-major. The parameters are issue 21's
// grouped_gemm signature (gemm-bench's default --params with --grouped); the three tensor maps
// and the maps workspace are passed by the harness and not used here. No 64-bit division and
// no bf16 library calls (integer shifts), so the PTX holds nothing the project's reader lacks.
//   nvcc -ptx -arch=sm_90a -o /tmp/naive_grouped.ptx tools/gpu-gemm/naive_grouped.cu
//   gemm-bench --ptx /tmp/naive_grouped.ptx --entry naive_grouped --grouped edges \
//       --block 256 --grid 264 --rounds 1 --reps 2
// (through run.sh: ROUNDS=1 REPS=2 bash tools/gpu-gemm/run.sh /tmp/naive_grouped.ptx
//  naive_grouped --grouped edges --block 256 --grid 264)
#include <cuda.h>
#include <stdint.h>

extern "C" __global__ void __launch_bounds__(256) naive_grouped(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, const uint16_t* __restrict__ a,
    const uint16_t* __restrict__ b, uint16_t* __restrict__ c, void* maps,
    const uint32_t* __restrict__ offsets, uint32_t groups, uint32_t n, uint32_t k) {
    uint32_t rows = offsets[groups];
    for (uint32_t i = blockIdx.x; i < rows; i += gridDim.x) {
        // The group of row i: offsets[lo] <= i < offsets[hi] throughout, so the search ends on
        // the one group with offsets[g] <= i < offsets[g + 1] (never an empty one).
        uint32_t lo = 0, hi = groups;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (offsets[mid] <= i) lo = mid; else hi = mid;
        }
        const uint16_t* ra = a + (size_t)i * k;
        for (uint32_t j = threadIdx.x; j < n; j += blockDim.x) {
            const uint16_t* rb = b + ((size_t)lo * n + j) * k;
            float acc = 0.0f;
            for (uint32_t kk = 0; kk < k; ++kk)
                acc = fmaf(__uint_as_float((uint32_t)ra[kk] << 16),
                           __uint_as_float((uint32_t)rb[kk] << 16), acc);
            // To bf16, nearest even (the results are finite).
            uint32_t bits = __float_as_uint(acc);
            c[(size_t)i * n + j] = (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
        }
    }
}
