// The producer waits on empty[s] for the phase of its own round: the consumers complete it
// only after the producer has filled that round, so both sides wait for each other.
// expect: mbarrier_parity_mismatch
#define KERNEL pm_producer_same_round
#define GRID 1
#define BLOCK 160
#define PRODUCER_FLIP 0
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS pm_producer_same_round(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
