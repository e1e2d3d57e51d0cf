// The producer warp elects one lane with elect.sync; the leader arms full[s] with expect_tx and
// issues the bulk copy, round after round, waiting on empty[s] from the second round; four
// consumer warps wait on full[s] and arrive on empty[s].
// expect: clean
#define KERNEL ok_elected_leader
#define GRID 1
#define BLOCK 160
#include "corpus.h"

#define LSTAGES 2
#define LTILE 4096u
extern "C" __global__ void LAUNCH_BOUNDS ok_elected_leader(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) unsigned char tiles[LSTAGES * LTILE];
    __shared__ __align__(8) unsigned long long full[LSTAGES];
    __shared__ __align__(8) unsigned long long empty[LSTAGES];
    const unsigned ntiles = n / (LTILE / 4);
    if (threadIdx.x == 0) {
        for (int s = 0; s < LSTAGES; ++s) {
            mbar_init(smem_u32(&full[s]), 1);
            mbar_init(smem_u32(&empty[s]), 128);
        }
        fence_mbar_init();
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        const unsigned leader = elect_one();
        for (unsigned t = 0; t < ntiles; ++t) {
            const unsigned s = t % LSTAGES;
            if (t >= LSTAGES) {
                mbar_wait_parity(smem_u32(&empty[s]), ((t / LSTAGES) & 1) ^ 1);
            }
            if (leader) {
                mbar_arrive_expect_tx(smem_u32(&full[s]), LTILE);
                bulk_load(smem_u32(tiles + s * LTILE), in + t * (LTILE / 4), LTILE, smem_u32(&full[s]));
            }
            __syncwarp();
        }
    } else {
        const unsigned ct = threadIdx.x - 32;
        for (unsigned t = 0; t < ntiles; ++t) {
            const unsigned s = t % LSTAGES;
            mbar_wait_parity(smem_u32(&full[s]), (t / LSTAGES) & 1);
            const float* tile = reinterpret_cast<const float*>(tiles + s * LTILE);
            for (unsigned j = ct; j < LTILE / 4; j += 128) {
                out[t * (LTILE / 4) + j] = tile[j] + 1.0f;
            }
            mbar_arrive(smem_u32(&empty[s]));
        }
    }
}
#include "corpus_main.h"
