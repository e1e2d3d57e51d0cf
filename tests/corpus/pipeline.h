// The warp-specialised bulk-copy pipeline shared by the pipeline kernels of the corpus: warp 0's
// lane 0 fills STAGES shared stages with cp.async.bulk (full[s]: count 1 + transaction bytes),
// warps 1..4 consume them (empty[s]: count 128). Stage s = t % STAGES, round t / STAGES.
// The switches below make the variants:
//   PRODUCER_WAIT      0: the producer never waits on empty[s]
//   PRODUCER_ALL_ROUNDS 1: the producer waits in every round (CUTLASS), 0: from the second round
//   PRODUCER_FLIP      parity of the producer's wait: ((t / STAGES) & 1) ^ PRODUCER_FLIP
//   CONSUMER_FLIP      parity of the consumers' wait: ((t / STAGES) & 1) ^ CONSUMER_FLIP
//   EXPECT_BYTES       what the producer expects per stage (the copy moves TILE_BYTES)
//   PRODUCER_FIRST_WAIT the first tile t before which the producer waits on empty[s]
//                      (when it does not wait in every round): STAGES
//   CONSUMER_PARITY_PER_ITER 1: the consumers wait with parity t & 1 (not the round's)
//   CONSUMER_IGNORE_WAIT 1: the consumers try_wait once and go on whatever it returns
#pragma once
#define STAGES 4
#define TILE_BYTES 4096u
#define TILE_FLOATS (TILE_BYTES / 4)
#ifndef PRODUCER_WAIT
#define PRODUCER_WAIT 1
#endif
#ifndef PRODUCER_ALL_ROUNDS
#define PRODUCER_ALL_ROUNDS 0
#endif
#ifndef PRODUCER_FLIP
#define PRODUCER_FLIP 1
#endif
#ifndef CONSUMER_FLIP
#define CONSUMER_FLIP 0
#endif
#ifndef EXPECT_BYTES
#define EXPECT_BYTES TILE_BYTES
#endif
#ifndef PRODUCER_FIRST_WAIT
#define PRODUCER_FIRST_WAIT STAGES
#endif
#ifndef CONSUMER_PARITY_PER_ITER
#define CONSUMER_PARITY_PER_ITER 0
#endif
#ifndef CONSUMER_IGNORE_WAIT
#define CONSUMER_IGNORE_WAIT 0
#endif

__device__ __forceinline__ void pipeline_body(float* out, const float* in, unsigned n)
{
    __shared__ __align__(128) unsigned char tiles[STAGES * TILE_BYTES];
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    const unsigned ntiles = n / TILE_FLOATS;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(smem_u32(&full[s]), 1);
            mbar_init(smem_u32(&empty[s]), 128);
        }
        fence_mbar_init();
    }
    __syncthreads();
    if (threadIdx.x / 32 == 0) {
        if (threadIdx.x == 0) {
            for (unsigned t = 0; t < ntiles; ++t) {
                const unsigned s = t % STAGES;
#if PRODUCER_WAIT
                if (PRODUCER_ALL_ROUNDS || t >= PRODUCER_FIRST_WAIT) {
                    mbar_wait_parity(smem_u32(&empty[s]), ((t / STAGES) & 1) ^ PRODUCER_FLIP);
                }
#endif
                mbar_arrive_expect_tx(smem_u32(&full[s]), EXPECT_BYTES);
                bulk_load(smem_u32(tiles + s * TILE_BYTES), in + t * TILE_FLOATS, TILE_BYTES, smem_u32(&full[s]));
            }
        }
    } else {
        const unsigned ct = threadIdx.x - 32;
        for (unsigned t = 0; t < ntiles; ++t) {
            const unsigned s = t % STAGES;
            const unsigned parity = CONSUMER_PARITY_PER_ITER ? (t & 1) : (((t / STAGES) & 1) ^ CONSUMER_FLIP);
#if CONSUMER_IGNORE_WAIT
            mbar_try_wait_once(smem_u32(&full[s]), parity);
#else
            mbar_wait_parity(smem_u32(&full[s]), parity);
#endif
            const float* tile = reinterpret_cast<const float*>(tiles + s * TILE_BYTES);
            for (unsigned j = ct; j < TILE_FLOATS; j += 128) {
                out[t * TILE_FLOATS + j] = 2.0f * tile[j];
            }
            mbar_arrive(smem_u32(&empty[s]));
        }
    }
}
