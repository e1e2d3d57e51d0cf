// The producer warp fills tiles 0 .. ntiles-2 (an off-by-one: `t + 1 < ntiles`); the consumer
// warps wait for every tile, so the last tile's phase of `full` never gets its arrival and
// they wait forever. No parity or byte count is wrong: an arrival never comes.
// expect: mbarrier_deadlock
#define KERNEL md_last_tile_unsignalled
#define GRID 1
#define BLOCK 160
#include "corpus.h"

extern "C" __global__ void LAUNCH_BOUNDS md_last_tile_unsignalled(float* out, const float* in, unsigned n)
{
    __shared__ __align__(8) unsigned long long full, empty;
    __shared__ float s[128];
    if (threadIdx.x == 0) {
        mbar_init(smem_u32(&full), 1);
        mbar_init(smem_u32(&empty), 128);
    }
    __syncthreads();
    const unsigned ntiles = n / 128;
    if (threadIdx.x < 32) {
        for (unsigned t = 0; t + 1 < ntiles; ++t) {
            mbar_wait_parity(smem_u32(&empty), (t & 1) ^ 1);
            for (unsigned i = threadIdx.x; i < 128; i += 32) {
                s[i] = in[t * 128 + i];
            }
            __syncwarp();
            if (threadIdx.x == 0) {
                mbar_arrive(smem_u32(&full));
            }
        }
    } else {
        const unsigned c = threadIdx.x - 32;
        float acc = 0.0f;
        for (unsigned t = 0; t < ntiles; ++t) {
            mbar_wait_parity(smem_u32(&full), t & 1);
            acc += s[c];
            mbar_arrive(smem_u32(&empty));
        }
        out[c] = acc;
    }
}
#include "corpus_main.h"
