// Warps 0-1 arrive on barrier 1 while warps 2-3 reduce with bar.red on the same barrier.
// expect: barrier_red_sync_mix
#define KERNEL red_sync_mix
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS red_sync_mix(float* out, const float* in, unsigned n)
{
    __shared__ float s[64];
    const unsigned warp = threadIdx.x / 32;
    if (warp < 2) {
        s[threadIdx.x] = in[threadIdx.x];
        bar_arrive_n<1, 128>();
    } else {
        unsigned c;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.gt.f32 p, %1, 0f00000000;\n\tbar.red.popc.u32 %0, 1, 128, p;\n\t}" : "=r"(c) : "f"(in[threadIdx.x]) : "memory");
        out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x - 64] + (float)c;
    }
}
#include "corpus_main.h"
