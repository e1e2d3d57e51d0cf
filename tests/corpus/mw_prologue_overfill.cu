// The producer starts waiting on empty[s] one tile too late (from t = STAGES + 1): its prologue
// fills STAGES + 1 tiles of a STAGES-deep ring, so the fill of tile STAGES re-arms full[0] before
// any consumer waited on full[0]'s first phase.
// expect: mbarrier_missing_wait
#define KERNEL mw_prologue_overfill
#define GRID 1
#define BLOCK 160
#define PRODUCER_FIRST_WAIT (STAGES + 1)
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS mw_prologue_overfill(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
