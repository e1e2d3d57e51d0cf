// The producer expects twice the bytes its copy delivers: the phase never completes.
// expect: mbarrier_tx_mismatch
#define KERNEL tx_mismatch
#define GRID 1
#define BLOCK 160
#define EXPECT_BYTES (2 * TILE_BYTES)
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS tx_mismatch(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
