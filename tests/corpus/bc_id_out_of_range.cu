// Barrier id 16 (there are 16 barriers, 0..15), computed from a constant into a register.
// expect: barrier_count
#define KERNEL bc_id_out_of_range
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS bc_id_out_of_range(float* out, const float* in, unsigned n)
{
    const unsigned base = 8;
    __shared__ float s[128];
    s[threadIdx.x] = in[threadIdx.x];
    bar_sync(base * 2, 128);
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[127 - threadIdx.x];
}
#include "corpus_main.h"
