// The consumers wait on full[s] with the parity of the previous round: in the first round the
// wait returns before the data arrived.
// expect: mbarrier_parity_mismatch
#define KERNEL pm_consumer_flipped
#define GRID 1
#define BLOCK 160
#define CONSUMER_FLIP 1
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS pm_consumer_flipped(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
