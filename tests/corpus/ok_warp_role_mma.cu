// Warp 0 alone multiplies with mma.sync.aligned, all 32 of its lanes: a warp-uniform branch
// around a warp-collective instruction, as in a warp-specialised kernel.
// expect: clean
#define KERNEL ok_warp_role_mma
#include "corpus.h"

__device__ __forceinline__ void mma_bf16_16x8x16(float (&d)[4], const unsigned (&a)[4],
                                                 const unsigned (&b)[2])
{
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

extern "C" __global__ void ok_warp_role_mma(float* out, const float* in, unsigned n)
{
    const unsigned warp = threadIdx.x / 32;
    const unsigned bits = __float_as_uint(in[threadIdx.x]) >> 16;
    const unsigned a[4] = {bits * 0x10001u, bits, bits << 16, 0x3f803f80u};
    const unsigned b[2] = {0x3f803f80u, bits * 0x10001u};
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (warp == 0) {
        mma_bf16_16x8x16(d, a, b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = d[0] + d[1] + d[2] + d[3];
}
#include "corpus_main.h"
