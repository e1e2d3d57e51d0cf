// The full/empty bulk-copy pipeline; the producer waits on empty[s] from the second round on.
// expect: clean
#define KERNEL ok_pipeline_nvcc_style
#define GRID 1
#define BLOCK 160
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS ok_pipeline_nvcc_style(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
