// The consumers of a four-stage ring wait on full[s] with parity t & 1, the parity of the
// iteration, not of the round (t / STAGES): in the first round stages 1 and 3 return at once
// (parity 1 names the phase before the first), and from the second round waits name phases that
// completed a round ago. The producer's next arrive on full[s] then follows no successful wait on
// the phase it completed.
// expect: mbarrier_parity_mismatch
#define KERNEL pm_parity_per_iteration
#define GRID 1
#define BLOCK 160
#define CONSUMER_PARITY_PER_ITER 1
#include "corpus.h"
#include "pipeline.h"

extern "C" __global__ void LAUNCH_BOUNDS pm_parity_per_iteration(float* out, const float* in, unsigned n) { pipeline_body(out, in, n); }
#include "corpus_main.h"
