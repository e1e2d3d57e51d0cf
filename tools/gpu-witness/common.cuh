// common.cuh: helpers shared by the gpu-witness programs (runtime API, header-only).
//  - CHECK: every CUDA call's status, the failing call printed, exit status 2.
//  - fill_smem_ff: a kernel that writes 0xff over as much shared memory as a CTA may have, on
//    every multiprocessor, so that a later kernel's shared memory starts out holding 0xff.
//  - spin_ns: a %globaltimer spin (the delay that realises a witness's schedule).
//  - wait_or_die: polls the stream for at most `seconds`; if the work has not finished it prints
//    "RESULT <what>: HANG" and _exits (status 3) so that the process, and with it the CUDA context, dies.
#pragma once
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

#define CHECK(x)                                                                            \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::printf("CUDA error: %s (%s) at %s:%d: %s\n", cudaGetErrorString(e_),             \
                  cudaGetErrorName(e_), __FILE__, __LINE__, #x);                            \
      std::fflush(stdout);                                                                  \
      std::exit(2);                                                                         \
    }                                                                                       \
  } while (0)

__device__ __forceinline__ unsigned long long globaltimer_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void spin_ns(unsigned long long ns)
{
  const unsigned long long t0 = globaltimer_ns();
  while (globaltimer_ns() - t0 < ns) {
  }
}

__global__ void fill_smem_ff(unsigned words)
{
  extern __shared__ unsigned fill_smem_buf[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"((unsigned)__cvta_generic_to_shared(&fill_smem_buf[i])),
                 "r"(0xffffffffu)
                 : "memory");
  }
}

// Writes 0xff over the shared memory of every multiprocessor (two CTAs per SM, one at a time
// since each takes the most dynamic shared memory a CTA may have).
static void fill_all_smem_ff(cudaStream_t stream = 0)
{
  static int smem = 0, sms = 0;
  if (smem == 0) {
    int dev = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(cudaFuncSetAttribute(fill_smem_ff, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaFuncSetAttribute(fill_smem_ff, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  }
  fill_smem_ff<<<2 * sms, 1024, smem, stream>>>(unsigned(smem / 4));
  CHECK(cudaGetLastError());
}

// Waits for `stream`; returns its status once done. Past `seconds`: prints HANG and _exits(3).
static cudaError_t wait_or_die(cudaStream_t stream, double seconds, const char* what)
{
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t e = cudaStreamQuery(stream);
    if (e != cudaErrorNotReady) return e;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s > seconds) {
      std::printf("RESULT %s: HANG (not finished after %.1f s; the process exits)\n", what, seconds);
      std::fflush(stdout);
      _exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}
