// The consumers try_wait on full[s] once and go on whatever it returns: when the copy is late
// they read the stage early and free it, and the producer re-arms full[s] for the next round
// with no successful wait on the phase the copy completed.
// expect: mbarrier_missing_wait
#define KERNEL mw_ignored_try_wait
#define GRID 1
#define BLOCK 160
#define CONSUMER_IGNORE_WAIT 1
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS mw_ignored_try_wait(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
