// cutlass_cpasync_epilogue.cu: CUTLASS 4.2's KernelCpAsyncWarpSpecializedCooperative GEMM with a
// TMA epilogue that loads C, on the GPU.
//
// include/cutlass/gemm/kernel/sm90_gemm_warpspecialized_cooperative.hpp builds the epilogue's
// load pipeline (PipelineTransactionAsync) without setting transaction_bytes (the TMA kernel,
// sm90_gemm_tma_warpspecialized_cooperative.hpp, sets it from
// params.epilogue.tma_transaction_bytes). When C is loaded (beta != 0) each of the 4 producer
// warps' elected thread issues a TMA load of the C subtile and `mbarrier.expect_tx` with 0 bytes
// on the full barrier that the 128 producer threads also arrive on: the transaction count is
// never raised for the bytes the TMA delivers, so the phase completes before C lands (consumers
// read stale C) or the tx-count goes negative and a phase never completes (hang).
//
// Built twice from this file (see run.sh / build.sh):
//   -DPGW_CPASYNC=1: tests/realworld/cutlass/src/sm90_bf16_cpasync_coop_128x128x64_c1.cu's
//                    GemmKernel (the corpus kernel), in a GemmUniversalAdapter;
//   -DPGW_CPASYNC=0: tests/realworld/cutlass/src/sm90_bf16_coop_tma_128x128x64_c1.cu's
//                    GemmKernel (KernelTmaWarpSpecializedCooperative, same tile and epilogue),
//                    the control.
//
//   cutlass_cpasync_epilogue M N K ALPHA BETA [SEED=1] [TIMEOUT_S=5]
// Prints "RESULT ...: PASS|MISMATCH|HANG|ERROR". D is poisoned (NaN) before the run and compared
// with a float64 host reference; a hang past TIMEOUT_S _exits the process (status 3).
#include <cuda_runtime.h>

#if PGW_CPASYNC
#include "sm90_bf16_cpasync_coop_128x128x64_c1.cu"
using GemmKernel = pg_sm90_bf16_cpasync_coop_128x128x64_c1::GemmKernel;
static const char* kName = "KernelCpAsyncWarpSpecializedCooperative (sm90_bf16_cpasync_coop_128x128x64_c1)";
static const char* kTag = "cpasync";
#else
#include "sm90_bf16_coop_tma_128x128x64_c1.cu"
using GemmKernel = pg_bf16_coop::GemmKernel;
static const char* kName = "KernelTmaWarpSpecializedCooperative (sm90_bf16_coop_tma_128x128x64_c1)";
static const char* kTag = "tma";
#endif

#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/util/packed_stride.hpp>

#include "common.cuh"

#include <cmath>
#include <cstdint>
#include <vector>

using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

struct Lcg {
  uint64_t s;
  uint32_t next()
  {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  int range(int lo, int hi) { return lo + static_cast<int>(next() % uint32_t(hi - lo + 1)); }
};

int main(int argc, char** argv)
{
  if (argc < 6) {
    std::printf("usage: %s M N K ALPHA BETA [SEED] [TIMEOUT_S]\n", argv[0]);
    return 2;
  }
  const int M = std::atoi(argv[1]), N = std::atoi(argv[2]), K = std::atoi(argv[3]);
  const float alpha = std::strtof(argv[4], nullptr), beta = std::strtof(argv[5], nullptr);
  Lcg g{argc > 6 ? std::strtoull(argv[6], nullptr, 0) : 1ull};
  const double timeout = argc > 7 ? std::atof(argv[7]) : 5.0;

  using EA = typename Gemm::ElementA;
  using EB = typename Gemm::ElementB;
  using EC = typename Gemm::ElementC;
  using ED = typename Gemm::ElementD;
  // Small integers: every product and partial sum is exact in f32, and C in [-64, 64] makes a
  // missing or stale C visible in D.
  std::vector<EA> A(size_t(M) * K);
  std::vector<EB> B(size_t(N) * K);
  std::vector<EC> C(size_t(M) * N);
  for (auto& x : A) x = EA(float(g.range(-2, 2)));
  for (auto& x : B) x = EB(float(g.range(-2, 2)));
  for (auto& x : C) x = EC(float(g.range(-64, 64)));

  CHECK(cudaSetDevice(0));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  EA* dA;
  EB* dB;
  EC* dC;
  ED* dD;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(EA)));
  CHECK(cudaMalloc(&dB, B.size() * sizeof(EB)));
  CHECK(cudaMalloc(&dC, C.size() * sizeof(EC)));
  CHECK(cudaMalloc(&dD, size_t(M) * N * sizeof(ED)));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(EA), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(EB), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dC, C.data(), C.size() * sizeof(EC), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dD, 0xff, size_t(M) * N * sizeof(ED)));  // bf16 0xffff: NaN

  auto sA = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, cute::make_shape(M, K, 1));
  auto sB = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, cute::make_shape(N, K, 1));
  auto sC = cutlass::make_cute_packed_stride(typename GemmKernel::StrideC{}, cute::make_shape(M, N, 1));
  auto sD = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, cute::make_shape(M, N, 1));
  cutlass::KernelHardwareInfo hw;
  hw.device_id = 0;
  hw.sm_count = prop.multiProcessorCount;
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {M, N, K, 1},
                                {dA, sA, dB, sB},
                                {{alpha, beta}, dC, sC, dD, sD},
                                hw};
  Gemm gemm;
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) {
    std::printf("RESULT %s beta=%g: ERROR (CUTLASS cannot implement %dx%dx%d)\n", kTag, beta, M, N, K);
    return 1;
  }
  size_t ws_bytes = Gemm::get_workspace_size(args);
  void* ws = nullptr;
  if (ws_bytes) CHECK(cudaMalloc(&ws, ws_bytes));
  cudaStream_t st;
  CHECK(cudaStreamCreate(&st));
  if (gemm.initialize(args, ws, st) != cutlass::Status::kSuccess) {
    std::printf("RESULT %s beta=%g: ERROR (initialize failed)\n", kTag, beta);
    return 1;
  }
  std::printf("%s on %s: M=%d N=%d K=%d alpha=%g beta=%g, %d threads/CTA, %d bytes smem\n", kName, prop.name, M, N, K,
              alpha, beta, int(GemmKernel::MaxThreadsPerBlock), int(GemmKernel::SharedStorageSize));
  std::fflush(stdout);
  cutlass::Status s = gemm.run(st);
  if (s != cutlass::Status::kSuccess) {
    std::printf("RESULT %s beta=%g: ERROR (run: %s; %s)\n", kTag, beta, cutlassGetStatusString(s),
                cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  char what[128];
  std::snprintf(what, sizeof what, "%s GEMM beta=%g", kTag, beta);
  cudaError_t e = cudaStreamQuery(st);
  auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    e = cudaStreamQuery(st);
    if (e != cudaErrorNotReady) break;
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (sec > timeout) {
      std::printf("RESULT %s beta=%g: HANG (kernel not finished after %.0f s)\n", kTag, beta, timeout);
      std::fflush(stdout);
      _exit(3);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (e != cudaSuccess) {
    std::printf("RESULT %s beta=%g: ERROR (%s)\n", kTag, beta, cudaGetErrorString(e));
    return 1;
  }
  std::vector<ED> D(size_t(M) * N);
  CHECK(cudaMemcpy(D.data(), dD, D.size() * sizeof(ED), cudaMemcpyDeviceToHost));

  double max_err = 0, max_ref = 0;
  size_t bad = 0, unwritten = 0;
  int first_m = -1, first_n = -1;
  double first_got = 0, first_want = 0;
  std::vector<char> tile_bad(size_t((M + 127) / 128) * ((N + 127) / 128), 0);
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k) acc += double(float(A[size_t(m) * K + k])) * double(float(B[size_t(n) * K + k]));
      double ref = double(alpha) * acc + double(beta) * double(float(C[size_t(m) * N + n]));
      double got = double(float(D[size_t(m) * N + n]));
      // D is bf16: allow its rounding (8 significant bits) of the exact result.
      double tol = std::fabs(ref) * (1.0 / 128.0) + 1e-6;
      if (std::isnan(got)) ++unwritten;
      double err = std::isnan(got) ? INFINITY : std::fabs(got - ref);
      if (err > max_err) max_err = err;
      if (std::fabs(ref) > max_ref) max_ref = std::fabs(ref);
      if (!(err <= tol)) {
        if (bad == 0) first_m = m, first_n = n, first_got = got, first_want = ref;
        ++bad;
        tile_bad[size_t(m / 128) * ((N + 127) / 128) + n / 128] = 1;
      }
    }
  }
  size_t tiles_bad = 0;
  for (char c : tile_bad) tiles_bad += c;
  std::printf("  max |D - ref| = %g (max |ref| = %g); %zu of %zu elements out of tolerance (%zu NaN/unwritten), "
              "in %zu of %zu 128x128 tiles\n",
              max_err, max_ref, bad, D.size(), unwritten, tiles_bad, tile_bad.size());
  if (bad)
    std::printf("  first: D[%d][%d] = %g, want %g (alpha*AB = %g, C = %g)\n", first_m, first_n, first_got, first_want,
                first_want - double(beta) * double(float(C[size_t(first_m) * N + first_n])),
                double(float(C[size_t(first_m) * N + first_n])));
  std::printf("RESULT %s beta=%g: %s (max error %g, %zu of %zu elements wrong)\n", kTag, beta,
              bad ? "MISMATCH" : "PASS", max_err, bad, D.size());
  return bad ? 4 : 0;
}
