// uninit_other_warpgroup.cu: tests/corpus/uninit_other_warpgroup.cu (the ThunderKittens-style
// uninitialised mbarrier) on the GPU, with the analyzer's witness schedule forced.
//
// Kernel "bug" (the corpus kernel, 256 threads): warp 0 of warp group 0 initialises an mbarrier
// (count 128) and fences the init; warp group 0 syncs on bar 1,128, writes s[] and arrives on the
// mbarrier; warp group 1 syncs on bar 2,128 and waits for the mbarrier's phase 0, then reads s[].
// Nothing orders the init before warp group 1's wait. The witness: warp 0 is delayed (DELAY µs
// of %globaltimer spin, default 2000) before mbarrier.init, and the shared memory holds 0xff
// from an earlier kernel, so warp group 1 waits on a never-initialised mbarrier.
// Kernel "ctrl": the same, with a __syncthreads() (bar.sync 0) between the init + fence and
// both warp groups' barriers, so every wait comes after the init.
//
// Each CTA records the %globaltimer of the init (after its fence) and of the moment warp group
// 1's wait returned; out[] must hold in[] + 1 (s[] read after warp group 0 wrote it).
// One launch per process (a launch failure kills the context), watchdog 10 s.
//
//   uninit_other_warpgroup bug|ctrl [DELAY_US=2000] [CTAS=2*SMs]
// Prints one line "RESULT uninit VARIANT: ..." (completed / CUDA error / HANG).
#include "common.cuh"

#include <vector>

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
template <unsigned ID, unsigned COUNT>
__device__ __forceinline__ void bar_sync_n() { asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(COUNT) : "memory"); }
__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
  asm volatile("{\n\t.reg .b64 st;\n\tmbarrier.arrive.shared::cta.b64 st, [%0];\n\t}" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait_parity(unsigned bar, unsigned parity)
{
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  } while (!done);
}

// times[2*cta] = init time (after the fence), times[2*cta+1] = when warp group 1's wait returned
template <bool kControl>
__global__ void __launch_bounds__(256) uninit_other_warpgroup(float* out, const float* in, unsigned long long delay_ns,
                                                              unsigned long long* times)
{
  __shared__ __align__(8) unsigned long long bar;
  __shared__ float s[128];
  const unsigned b = smem_u32(&bar);
  const unsigned wg = threadIdx.x / 128;
  const size_t base = size_t(blockIdx.x) * 256;
  if (kControl) {
    if (threadIdx.x == 0) {
      spin_ns(delay_ns);
      mbar_init(b, 128);
      fence_mbar_init();
      times[2 * blockIdx.x] = globaltimer_ns();
    }
    __syncthreads();
  }
  if (wg == 0) {
    if (!kControl && threadIdx.x == 0) {
      spin_ns(delay_ns);  // the witness: warp 0 is late to initialise
      mbar_init(b, 128);
      fence_mbar_init();
      times[2 * blockIdx.x] = globaltimer_ns();
    }
    bar_sync_n<1, 128>();
    s[threadIdx.x] = in[base + threadIdx.x] + 1.0f;
    mbar_arrive(b);
  } else {
    bar_sync_n<2, 128>();
    mbar_wait_parity(b, 0);
    if (threadIdx.x == 128) times[2 * blockIdx.x + 1] = globaltimer_ns();
    out[base + threadIdx.x] = s[threadIdx.x - 128];
  }
}

int main(int argc, char** argv)
{
  if (argc < 2 || (std::strcmp(argv[1], "bug") && std::strcmp(argv[1], "ctrl"))) {
    std::printf("usage: %s bug|ctrl [DELAY_US] [CTAS]\n", argv[0]);
    return 2;
  }
  const bool bug = !std::strcmp(argv[1], "bug");
  const double delay_us = argc > 2 ? std::atof(argv[2]) : 2000.0;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ctas = argc > 3 ? std::atoi(argv[3]) : 2 * sms;
  const size_t n = size_t(ctas) * 256;
  std::vector<float> h_in(n), h_out(n);
  for (size_t i = 0; i < n; ++i) h_in[i] = float(int(i % 61) - 30);
  float *d_in, *d_out;
  unsigned long long* d_t;
  CHECK(cudaMalloc(&d_in, n * sizeof(float)));
  CHECK(cudaMalloc(&d_out, n * sizeof(float)));
  CHECK(cudaMalloc(&d_t, size_t(ctas) * 2 * sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d_in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_out, 0, n * sizeof(float)));
  CHECK(cudaMemset(d_t, 0, size_t(ctas) * 2 * sizeof(unsigned long long)));
  auto kern = bug ? uninit_other_warpgroup<false> : uninit_other_warpgroup<true>;
  CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  fill_all_smem_ff(st);
  CHECK(cudaStreamSynchronize(st));
  kern<<<ctas, 256, 0, st>>>(d_out, d_in, (unsigned long long)(delay_us * 1000.0), d_t);
  cudaError_t le = cudaGetLastError();
  if (le != cudaSuccess) {
    std::printf("RESULT uninit %s: launch error: %s (%s)\n", argv[1], cudaGetErrorString(le), cudaGetErrorName(le));
    return 1;
  }
  char what[32];
  std::snprintf(what, sizeof what, "uninit %s", argv[1]);
  cudaError_t e = wait_or_die(st, 10.0, what);
  if (e != cudaSuccess) {
    std::printf("RESULT uninit %s: error: %s (%s)\n", argv[1], cudaGetErrorString(e), cudaGetErrorName(e));
    return 1;
  }
  std::vector<unsigned long long> t(size_t(ctas) * 2);
  CHECK(cudaMemcpy(h_out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(t.data(), d_t, t.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
  int bad_ctas = 0, early_ctas = 0;
  size_t bad = 0;
  unsigned sample = 0;
  bool have = false;
  double max_early_us = 0;
  for (int c = 0; c < ctas; ++c) {
    int bad_here = 0;
    for (int i = 128; i < 256; ++i) {
      size_t k = size_t(c) * 256 + i;
      float want = h_in[size_t(c) * 256 + i - 128] + 1.0f;
      if (!(h_out[k] == want)) {
        ++bad_here;
        if (!have) std::memcpy(&sample, &h_out[k], 4), have = true;
      }
    }
    bad += bad_here;
    bad_ctas += bad_here != 0;
    if (t[2 * c + 1] < t[2 * c]) {
      ++early_ctas;
      double us = double(t[2 * c] - t[2 * c + 1]) / 1000.0;
      if (us > max_early_us) max_early_us = us;
    }
  }
  std::printf("uninit_other_warpgroup %s: %s, warp 0 delayed %.0f us before mbarrier.init, %d CTAs\n", argv[1],
              bug ? "no barrier between init and warp group 1's wait" : "__syncthreads between init and the waits",
              delay_us, ctas);
  std::printf("  CTAs whose warp group 1 wait returned before the init: %d of %d (up to %.1f us before)\n", early_ctas,
              ctas, max_early_us);
  std::printf("  CTAs with wrong out[]: %d of %d (%zu wrong values)", bad_ctas, ctas, bad);
  if (have) std::printf(", e.g. bits 0x%08x", sample);
  std::printf("\n");
  std::printf("RESULT uninit %s: completed; wait returned before init in %d of %d CTAs; wrong output in %d of %d CTAs\n",
              argv[1], early_ctas, ctas, bad_ctas, ctas);
  return 0;
}
