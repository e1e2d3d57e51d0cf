// The producer refills a stage without waiting for the consumers to free it (no wait on
// empty[s]): its next arrive on full[s] is not ordered after their wait.
// expect: mbarrier_missing_wait
#define KERNEL mw_producer_no_empty_wait
#define GRID 1
#define BLOCK 160
#define PRODUCER_WAIT 0
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS mw_producer_no_empty_wait(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
