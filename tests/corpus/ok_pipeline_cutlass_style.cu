// The full/empty bulk-copy pipeline; the producer waits on empty[s] in every round with the
// flipped parity, so its first-round waits pass at once (CUTLASS' producer start state).
// expect: clean
#define KERNEL ok_pipeline_cutlass_style
#define GRID 1
#define BLOCK 160
#define PRODUCER_ALL_ROUNDS 1
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_pipeline_cutlass_style(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
