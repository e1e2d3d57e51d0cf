// A plain fp8 GEMM for checking gemm-bench's `--dtype e4m3` PTX path end to end, not for speed:
// one thread per element of C, no tensor cores, f32 accumulation in k order.
//   C[i][j] = bf16(scale * sum_k A[i][k] * B[j][k])
// A (m x k) and B (n x k) OCP e4m3 bytes, K contiguous; C (m x n) bf16, row-major; scale is
// scale_a * scale_b. The three tensor maps are the harness's (A and B UINT8, C bf16), taken so
// that their encoding and passing are exercised, and not used. The e4m3 decode and the bf16
// rounding are integer arithmetic, so the PTX holds nothing the project's PTX reader lacks.
//   nvcc -ptx -arch=sm_90a -o naive_fp8.ptx naive_fp8.cu
//   gemm-bench --ptx naive_fp8.ptx --entry naive_fp8 --dtype e4m3 --block 256 --grid tiles:16x16 \
//       --params tmap_a,tmap_b,tmap_c,ptr_a,ptr_b,ptr_c,m,n,k,scale
#include <cuda.h>
#include <stdint.h>

// e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinities (0x7f/0xff are NaN,
// which the harness's inputs never hold).
__device__ __forceinline__ float e4m3(uint8_t v) {
    uint32_t e = (v >> 3) & 15, m = v & 7;
    // Normal: (8 + m) * 2^(e - 10); subnormal (e = 0): m * 2^-9.
    float mant = e ? (float)(8 + m) : (float)m;
    float pow2 = __uint_as_float((uint32_t)((e ? (int)e - 10 : -9) + 127) << 23);
    float x = mant * pow2;
    return (v & 0x80) ? -x : x;
}

extern "C" __global__ void __launch_bounds__(256) naive_fp8(
    const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
    const __grid_constant__ CUtensorMap map_c, const uint8_t* __restrict__ a,
    const uint8_t* __restrict__ b, uint16_t* __restrict__ c, uint32_t m, uint32_t n, uint32_t k,
    float scale) {
    // One block per 16 x 16 tile of C (gemm-bench --grid tiles:16x16), row-major over tiles.
    uint32_t tiles_n = (n + 15) / 16;
    uint32_t i = (blockIdx.x / tiles_n) * 16 + threadIdx.x / 16;
    uint32_t j = (blockIdx.x % tiles_n) * 16 + threadIdx.x % 16;
    if (i >= m || j >= n) return;
    const uint8_t* ra = a + (size_t)i * k;
    const uint8_t* rb = b + (size_t)j * k;
    float acc = 0.0f;
    for (uint32_t kk = 0; kk < k; ++kk) acc = fmaf(e4m3(ra[kk]), e4m3(rb[kk]), acc);
    float r = acc * scale;
    // To bf16, nearest even (the results are finite).
    uint32_t bits = __float_as_uint(r);
    c[(size_t)i * n + j] = (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}
