// epilogue_double_arrive.cu: FlashInfer 0.7.2's Hopper prefill epilogue
// (include/flashinfer/attention/hopper/epilogue.cuh, CollectiveEpilogue::store) on the GPU.
//
// There, all 384 MMA threads (12 warps) write their part of sO to shared memory, then
// `bar.arrive 1, 384` (NamedBarrier::arrive(NUM_MMA_THREADS, EpilogueBarrier)), store the LSE,
// then `bar.sync 1, 384`, then read all of sO. Every warp arrives twice on barrier 1 whose phase
// completes after 12 warp arrivals, so the 11 arrives of 11 fast warps plus the bar.sync of one
// of them complete phase 0 and release that warp while a slow warp has not yet written its part
// (PTX ISA 9.7.13.1: a warp must not execute barrier.arrive followed by another barrier
// instruction on the same barrier before the barrier's reset).
//
// Kernel "bug": 12 warps; warp SLOW (default 5) first spins DELAY µs on %globaltimer; each warp
// writes a value unique to (launch, warp, lane) into its slot (32 words) of shared memory; then
// bar.arrive 1,384; bar.sync 1,384; then every thread reads its lane's word of all 12 slots and
// counts the words that do not hold their value yet ("stale reads"). Kernel "ctrl" is the same
// without the bar.arrive (only bar.sync 1,384): it must never read a stale word.
// Before every launch a kernel writes 0xff over all shared memory, so an unwritten slot holds
// 0xffffffff (and a leftover from an earlier launch has another launch's tag: stale either way).
//
//   epilogue_double_arrive bug|ctrl [LAUNCHES=1000] [DELAY_US=30] [SLOW=5] [CTAS=4*SMs]
#include "common.cuh"

#include <vector>

constexpr int kWarps = 12;
constexpr int kThreads = kWarps * 32;
// Per launch: [0] stale reads, [1] warps that read a stale word, [2] CTAs that did,
// [3] a stale value seen, [4..15] stale reads per slot (the warp whose slot it was).
constexpr int kStats = 4 + kWarps;

__device__ __forceinline__ unsigned expected(unsigned tag, unsigned w, unsigned lane)
{
  return (tag << 16) | (w << 8) | lane;
}

template <bool kDoubleArrive>
__global__ void __launch_bounds__(kThreads) epilogue(unsigned tag, int slow_warp, unsigned long long delay_ns,
                                                     unsigned* stats)
{
  __shared__ unsigned slot[kWarps * 32];
  __shared__ unsigned cta_stale;
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) cta_stale = 0;
  __syncthreads();  // barrier 0: all warps start together (and see cta_stale = 0)
  if ((int)warp == slow_warp) spin_ns(delay_ns);
  // "write their part of sO"
  asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&slot[warp * 32 + lane])),
               "r"(expected(tag, warp, lane))
               : "memory");
  if (kDoubleArrive) asm volatile("bar.arrive 1, 384;" ::: "memory");  // NamedBarrier::arrive
  asm volatile("bar.sync 1, 384;" ::: "memory");                        // NamedBarrier::sync
  // "read all of sO"
  unsigned stale = 0, stale_mask = 0, seen = 0;
#pragma unroll
  for (unsigned w = 0; w < kWarps; ++w) {
    unsigned v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];"
                 : "=r"(v)
                 : "r"((unsigned)__cvta_generic_to_shared(&slot[w * 32 + lane]))
                 : "memory");
    if (v != expected(tag, w, lane)) {
      ++stale;
      stale_mask |= 1u << w;
      seen = v;
    }
  }
  unsigned* s = stats + size_t(tag - 1) * kStats;
  const unsigned warp_stale = __reduce_add_sync(0xffffffffu, stale);
  if (stale) atomicExch(&s[3], seen);
  if (lane == 0 && warp_stale) {
    atomicAdd(&s[0], warp_stale);
    atomicAdd(&s[1], 1u);
    atomicOr(&cta_stale, 1u);
  }
  for (unsigned w = 0; w < kWarps; ++w) {
    unsigned n = __reduce_add_sync(0xffffffffu, (stale_mask >> w) & 1u);
    if (lane == 0 && n) atomicAdd(&s[4 + w], n);
  }
  __syncthreads();  // barrier 0: no bearing on barrier 1
  if (threadIdx.x == 0 && cta_stale) atomicAdd(&s[2], 1u);
}

int main(int argc, char** argv)
{
  if (argc < 2 || (std::strcmp(argv[1], "bug") && std::strcmp(argv[1], "ctrl"))) {
    std::printf("usage: %s bug|ctrl [LAUNCHES] [DELAY_US] [SLOW_WARP] [CTAS]\n", argv[0]);
    return 2;
  }
  const bool bug = !std::strcmp(argv[1], "bug");
  const int launches = argc > 2 ? std::atoi(argv[2]) : 1000;
  const double delay_us = argc > 3 ? std::atof(argv[3]) : 30.0;
  const int slow = argc > 4 ? std::atoi(argv[4]) : 5;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int ctas = argc > 5 ? std::atoi(argv[5]) : 4 * sms;
  if (launches < 1 || launches > 60000) {
    std::printf("LAUNCHES must be 1..60000\n");
    return 2;
  }
  auto kern = bug ? epilogue<true> : epilogue<false>;
  CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  unsigned* d_stats = nullptr;
  const size_t nstats = size_t(launches) * kStats;
  CHECK(cudaMalloc(&d_stats, nstats * sizeof(unsigned)));
  CHECK(cudaMemset(d_stats, 0, nstats * sizeof(unsigned)));
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  for (int i = 0; i < launches; ++i) {
    fill_all_smem_ff(st);
    kern<<<ctas, kThreads, 0, st>>>(unsigned(i + 1), slow, (unsigned long long)(delay_us * 1000.0), d_stats);
    CHECK(cudaGetLastError());
  }
  CHECK(wait_or_die(st, 30.0, bug ? "epilogue bug" : "epilogue ctrl"));
  std::vector<unsigned> h(nstats);
  CHECK(cudaMemcpy(h.data(), d_stats, nstats * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long reads = 0, warps = 0, ctas_stale = 0, launches_stale = 0, per_slot[kWarps] = {};
  unsigned sample = 0;
  bool have_sample = false;
  for (int i = 0; i < launches; ++i) {
    const unsigned* s = &h[size_t(i) * kStats];
    reads += s[0];
    warps += s[1];
    ctas_stale += s[2];
    if (s[0]) {
      ++launches_stale;
      if (!have_sample) sample = s[3], have_sample = true;
    }
    for (int w = 0; w < kWarps; ++w) per_slot[w] += s[4 + w];
  }
  const unsigned long long total_reads = (unsigned long long)launches * ctas * kThreads * kWarps;
  const unsigned long long total_warps = (unsigned long long)launches * ctas * kWarps;
  std::printf("epilogue_double_arrive %s: %s, slow warp %d delayed %.1f us, %d CTAs x %d launches\n", argv[1],
              bug ? "bar.arrive 1,384 then bar.sync 1,384" : "bar.sync 1,384 only", slow, delay_us, ctas, launches);
  std::printf("  launches with stale reads: %llu of %d\n", launches_stale, launches);
  std::printf("  CTAs with stale reads: %llu of %llu\n", ctas_stale, (unsigned long long)launches * ctas);
  std::printf("  warps that read a stale word: %llu of %llu\n", warps, total_warps);
  std::printf("  stale reads: %llu of %llu\n", reads, total_reads);
  std::printf("  stale reads by slot (warp 0..11):");
  for (int w = 0; w < kWarps; ++w) std::printf(" %llu", per_slot[w]);
  std::printf("\n");
  if (have_sample) std::printf("  a stale value read: 0x%08x\n", sample);
  std::printf("RESULT epilogue %s: stale reads in %llu of %d launches (%llu of %llu CTAs)\n", argv[1], launches_stale,
              launches, ctas_stale, (unsigned long long)launches * ctas);
  return 0;
}
