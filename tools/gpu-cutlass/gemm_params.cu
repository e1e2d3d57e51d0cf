// phasegate: records a CUTLASS 3.x (SM90) GEMM launch so that phasegate's simulator can run
// the same PTX with the same by-value parameter block, and runs that PTX on the GPU.
//
//   gemm_params CORPUS.ptx OUT_DIR CASE M N K ALPHA BETA int|frac SEED
//
// The kernel type comes from the corpus instantiation file included below (the same .cu that
// made the corpus PTX, so `GemmKernel::Params` has the layout the PTX's `_param_0` has). The
// program
//   1. allocates A (M x K), B (N x K), C and D (M x N) and fills A, B, C with deterministic
//      values (`int`: integers in [-4, 4], C in [-8, 8]; `frac`: random values in [-1, 1);
//      C zeros when BETA is 0),
//   2. builds the kernel's Params with CUTLASS's own host code
//      (GemmKernel::to_underlying_arguments: tensor maps by cuTensorMapEncodeTiled, scheduler
//      parameters, fast divmods),
//   3. launches the corpus PTX through the driver (cuModuleLoadData + cuLaunchKernelEx with the
//      cluster attribute, the Params bytes as the one parameter) and reads D back,
//   4. clears D, launches the nvcc-compiled kernel of this program with the same Params and
//      checks that D is the same,
//   5. writes OUT_DIR/CASE.params (the Params bytes), CASE.{A,B[,C]}.bin (inputs), CASE.D.bin
//      (the corpus PTX's output) and CASE.struct: phasegate's description of the parameter
//      (`--arg struct:CASE.struct`: the bytes, the buffers, and where the Params hold their
//      addresses), and prints the launch shape.
//
// Written for phasegate; the CUTLASS API use (Arguments, to_underlying_arguments,
// get_grid_shape) follows CUTLASS's documented device-side GEMM interface.
#include PG_KERNEL_SOURCE

#include <cuda.h>
#include <cuda_runtime.h>
#include <cutlass/util/packed_stride.hpp>
#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using Gemm = PG_GEMM_KERNEL;

#define CHECK_RT(x)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x,                 \
                   cudaGetErrorString(e_));                                           \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

// The driver API, loaded at run time (the program links only the static runtime).
struct Driver {
  CUresult (*moduleLoadData)(CUmodule*, const void*);
  CUresult (*moduleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*funcSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*launchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**);
  CUresult (*ctxSynchronize)();
  CUresult (*getErrorString)(CUresult, const char**);

  static void* sym(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    if (!p) {
      std::fprintf(stderr, "libcuda.so.1 has no %s\n", name);
      std::exit(1);
    }
    return p;
  }
  Driver() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
      std::fprintf(stderr, "cannot load libcuda.so.1: %s\n", dlerror());
      std::exit(1);
    }
    moduleLoadData = (decltype(moduleLoadData))sym(lib, "cuModuleLoadData");
    moduleGetFunction = (decltype(moduleGetFunction))sym(lib, "cuModuleGetFunction");
    funcSetAttribute = (decltype(funcSetAttribute))sym(lib, "cuFuncSetAttribute");
    launchKernelEx = (decltype(launchKernelEx))sym(lib, "cuLaunchKernelEx");
    ctxSynchronize = (decltype(ctxSynchronize))sym(lib, "cuCtxSynchronize");
    getErrorString = (decltype(getErrorString))sym(lib, "cuGetErrorString");
  }
  void check(CUresult r, const char* what) const {
    if (r != CUDA_SUCCESS) {
      const char* s = "?";
      getErrorString(r, &s);
      std::fprintf(stderr, "%s: %s\n", what, s);
      std::exit(1);
    }
  }
};

static void write_file(const std::string& path, const void* data, size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!f) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

static std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The .entry name and the byte size of its one parameter, from the PTX text.
static void entry_of(const std::string& ptx, std::string& name, size_t& param_bytes) {
  size_t at = ptx.find(".entry ");
  if (at == std::string::npos) {
    std::fprintf(stderr, "the PTX has no .entry\n");
    std::exit(1);
  }
  at += 7;
  size_t end = ptx.find('(', at);
  name = ptx.substr(at, end - at);
  size_t open = ptx.find("_param_0[", end);
  param_bytes = std::strtoul(ptx.c_str() + open + 9, nullptr, 10);
}

// A deterministic generator (64-bit LCG, high bits).
struct Lcg {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  // An integer in [lo, hi].
  int range(int lo, int hi) { return lo + static_cast<int>(next() % uint32_t(hi - lo + 1)); }
  // A float in [-1, 1) with 24 random bits (rounded to the element type by the caller).
  float unit() { return static_cast<float>(next() & 0xffffff) / 8388608.0f - 1.0f; }
};

template <class T>
static std::vector<T> fill(size_t n, bool integers, int bound, Lcg& g) {
  std::vector<T> v(n);
  for (auto& x : v) {
    x = T(integers ? static_cast<float>(g.range(-bound, bound)) : g.unit());
  }
  return v;
}

struct Buffer {
  std::string name;
  void* dev;
  size_t bytes;
};

int main(int argc, char** argv) {
  if (argc != 11) {
    std::fprintf(stderr,
                 "usage: %s CORPUS.ptx OUT_DIR CASE M N K ALPHA BETA int|frac SEED\n", argv[0]);
    return 2;
  }
  std::string ptx_path = argv[1], out = argv[2], name = argv[3];
  int M = std::atoi(argv[4]), N = std::atoi(argv[5]), K = std::atoi(argv[6]);
  float alpha = std::strtof(argv[7], nullptr), beta = std::strtof(argv[8], nullptr);
  bool integers = std::string(argv[9]) == "int";
  Lcg g{std::strtoull(argv[10], nullptr, 0)};

  using EA = typename Gemm::ElementA;
  using EB = typename Gemm::ElementB;
  using EC = typename Gemm::ElementC;
  using ED = typename Gemm::ElementD;
  auto A = fill<EA>(size_t(M) * K, integers, 4, g);
  auto B = fill<EB>(size_t(N) * K, integers, 4, g);
  // With beta 0 CUTLASS does not read C: it is zeros and not recorded (`buffer C zero:N`).
  auto C = beta == 0.0f ? std::vector<EC>(size_t(M) * N, EC(0.0f))
                        : fill<EC>(size_t(M) * N, integers, 8, g);
  std::vector<ED> D(size_t(M) * N, ED(0.0f)), D2(D.size());

  CHECK_RT(cudaSetDevice(0));
  CHECK_RT(cudaFree(nullptr));
  Buffer bufs[4] = {{"A", nullptr, A.size() * sizeof(EA)},
                    {"B", nullptr, B.size() * sizeof(EB)},
                    {"C", nullptr, C.size() * sizeof(EC)},
                    {"D", nullptr, D.size() * sizeof(ED)}};
  const void* host[4] = {A.data(), B.data(), C.data(), D.data()};
  for (int i = 0; i < 4; ++i) {
    CHECK_RT(cudaMalloc(&bufs[i].dev, bufs[i].bytes));
    CHECK_RT(cudaMemcpy(bufs[i].dev, host[i], bufs[i].bytes, cudaMemcpyHostToDevice));
  }

  auto sA = cutlass::make_cute_packed_stride(typename Gemm::StrideA{}, cute::make_shape(M, K, 1));
  auto sB = cutlass::make_cute_packed_stride(typename Gemm::StrideB{}, cute::make_shape(N, K, 1));
  auto sC = cutlass::make_cute_packed_stride(typename Gemm::StrideC{}, cute::make_shape(M, N, 1));
  auto sD = cutlass::make_cute_packed_stride(typename Gemm::StrideD{}, cute::make_shape(M, N, 1));
  cutlass::KernelHardwareInfo hw;
  hw.device_id = 0;
  hw.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(0);
  typename Gemm::Arguments args{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {M, N, K, 1},
      {static_cast<EA const*>(bufs[0].dev), sA, static_cast<EB const*>(bufs[1].dev), sB},
      {{alpha, beta}, static_cast<EC const*>(bufs[2].dev), sC, static_cast<ED*>(bufs[3].dev), sD},
      hw};
  if (Gemm::can_implement(args) != true) {
    std::fprintf(stderr, "CUTLASS cannot implement %dx%dx%d with this kernel\n", M, N, K);
    return 1;
  }
  size_t ws_bytes = Gemm::get_workspace_size(args);
  if (ws_bytes != 0) {
    // A workspace would be one more buffer the Params address; this harness records none.
    std::fprintf(stderr, "the kernel wants a %zu-byte workspace; not supported here\n", ws_bytes);
    return 1;
  }
  typename Gemm::Params params = Gemm::to_underlying_arguments(args, nullptr);
  dim3 grid = Gemm::get_grid_shape(params);
  dim3 block = Gemm::get_block_shape();
  int smem = Gemm::SharedStorageSize;
  dim3 cluster(cute::size<0>(typename Gemm::DispatchPolicy::ClusterShape{}),
               cute::size<1>(typename Gemm::DispatchPolicy::ClusterShape{}),
               cute::size<2>(typename Gemm::DispatchPolicy::ClusterShape{}));

  // The corpus PTX through the driver, with these Params bytes.
  std::string ptx = read_text(ptx_path);
  std::string entry;
  size_t param_bytes = 0;
  entry_of(ptx, entry, param_bytes);
  if (param_bytes != sizeof(params)) {
    std::fprintf(stderr, "the PTX's parameter has %zu bytes, this program's Params %zu\n",
                 param_bytes, sizeof(params));
    return 1;
  }
  Driver drv;
  CUmodule mod;
  CUfunction fn;
  drv.check(drv.moduleLoadData(&mod, ptx.c_str()), "cuModuleLoadData");
  drv.check(drv.moduleGetFunction(&fn, mod, entry.c_str()), "cuModuleGetFunction");
  drv.check(drv.funcSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
            "cuFuncSetAttribute");
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = cluster.x;
  attr.value.clusterDim.y = cluster.y;
  attr.value.clusterDim.z = cluster.z;
  CUlaunchConfig cfg;
  std::memset(&cfg, 0, sizeof(cfg));
  cfg.gridDimX = grid.x, cfg.gridDimY = grid.y, cfg.gridDimZ = grid.z;
  cfg.blockDimX = block.x, cfg.blockDimY = block.y, cfg.blockDimZ = block.z;
  cfg.sharedMemBytes = smem;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  void* kparams[] = {&params};
  drv.check(drv.launchKernelEx(&cfg, fn, kparams, nullptr), "cuLaunchKernelEx");
  drv.check(drv.ctxSynchronize(), "the corpus PTX's run");
  CHECK_RT(cudaMemcpy(D.data(), bufs[3].dev, bufs[3].bytes, cudaMemcpyDeviceToHost));

  // The nvcc-compiled kernel with the same Params, as a check on the launch above.
  CHECK_RT(cudaMemset(bufs[3].dev, 0, bufs[3].bytes));
  auto kernel = cutlass::device_kernel<Gemm>;
  CHECK_RT(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  cudaLaunchAttribute rattr;
  rattr.id = cudaLaunchAttributeClusterDimension;
  rattr.val.clusterDim.x = cluster.x;
  rattr.val.clusterDim.y = cluster.y;
  rattr.val.clusterDim.z = cluster.z;
  cudaLaunchConfig_t rcfg = {};
  rcfg.gridDim = grid;
  rcfg.blockDim = block;
  rcfg.dynamicSmemBytes = smem;
  rcfg.attrs = &rattr;
  rcfg.numAttrs = 1;
  CHECK_RT(cudaLaunchKernelEx(&rcfg, kernel, params));
  CHECK_RT(cudaDeviceSynchronize());
  CHECK_RT(cudaMemcpy(D2.data(), bufs[3].dev, bufs[3].bytes, cudaMemcpyDeviceToHost));
  bool same = std::memcmp(D.data(), D2.data(), bufs[3].bytes) == 0;

  // A float64 reference, to report how far the GPU is from exact.
  double worst = 0, largest = 0;
  for (int m = 0; m < M; ++m) {
    for (int n = 0; n < N; ++n) {
      double acc = 0;
      for (int k = 0; k < K; ++k) {
        acc += double(float(A[size_t(m) * K + k])) * double(float(B[size_t(n) * K + k]));
      }
      double want = double(alpha) * acc + double(beta) * double(float(C[size_t(m) * N + n]));
      double got = double(float(D[size_t(m) * N + n]));
      worst = std::fmax(worst, std::fabs(got - want));
      largest = std::fmax(largest, std::fabs(want));
    }
  }

  // The relocations: every 8-byte word of the Params that holds an address inside one of the
  // buffers. A word at the start of one of the four tensor maps is that map's global address.
  const unsigned char* raw = reinterpret_cast<const unsigned char*>(&params);
  const void* maps[4] = {params.mainloop.tma_load_a.get_tma_descriptor(),
                         params.mainloop.tma_load_b.get_tma_descriptor(),
                         params.epilogue.tma_load_c.get_tma_descriptor(),
                         params.epilogue.tma_store_d.get_tma_descriptor()};
  std::ostringstream desc;
  desc << "# " << name << ": the Params of " << entry.substr(0, 40) << "...\n"
       << "# made by tools/gpu-cutlass/gemm_params.cu: " << M << "x" << N << "x" << K
       << " alpha=" << alpha << " beta=" << beta << " " << argv[9] << " seed " << argv[10]
       << "\n# launch: grid " << grid.x << "," << grid.y << "," << grid.z << " block " << block.x
       << "," << block.y << "," << block.z << " cluster " << cluster.x << "," << cluster.y << ","
       << cluster.z << " dynamic shared " << smem << "\n"
       << "bytes " << name << ".params\n";
  for (int i = 0; i < 4; ++i) {
    if (bufs[i].name == "D" || (bufs[i].name == "C" && beta == 0.0f)) {
      desc << "buffer " << bufs[i].name << " zero:" << bufs[i].bytes << "\n";
    } else {
      desc << "buffer " << bufs[i].name << " file:" << name << "." << bufs[i].name << ".bin\n";
    }
  }
  int relocs = 0;
  for (size_t off = 0; off + 8 <= sizeof(params); off += 8) {
    uint64_t v;
    std::memcpy(&v, raw + off, 8);
    // The buffer the word points into; else one it points just past (buffers can be
    // adjacent: the end of A is then the start of B, which is meant).
    int hit = -1;
    for (int i = 0; i < 4; ++i) {
      uint64_t base = reinterpret_cast<uint64_t>(bufs[i].dev);
      if (v >= base && v < base + bufs[i].bytes) hit = i;
    }
    for (int i = 0; i < 4 && hit < 0; ++i) {
      if (v == reinterpret_cast<uint64_t>(bufs[i].dev) + bufs[i].bytes) hit = i;
    }
    if (hit < 0) continue;
    uint64_t base = reinterpret_cast<uint64_t>(bufs[hit].dev);
    bool map = false;
    for (auto m : maps) map |= static_cast<const void*>(raw + off) == m;
    desc << (map ? "tmap " : "ptr ") << "0x" << std::hex << off << std::dec << " "
         << bufs[hit].name;
    if (v != base) desc << "+" << (v - base);
    desc << "\n";
    ++relocs;
  }

  write_file(out + "/" + name + ".params", raw, sizeof(params));
  write_file(out + "/" + name + ".A.bin", A.data(), bufs[0].bytes);
  write_file(out + "/" + name + ".B.bin", B.data(), bufs[1].bytes);
  if (beta != 0.0f) write_file(out + "/" + name + ".C.bin", C.data(), bufs[2].bytes);
  write_file(out + "/" + name + ".D.bin", D.data(), bufs[3].bytes);
  std::string d = desc.str();
  write_file(out + "/" + name + ".struct", d.data(), d.size());
  std::printf(
      "%s: %dx%dx%d %s, params %zu bytes, %d relocations, grid %u,%u,%u block %u,%u,%u "
      "cluster %u,%u,%u smem %d; corpus PTX vs nvcc kernel: %s; |D - f64 reference| <= %g "
      "(largest |D| %g)\n",
      name.c_str(), M, N, K, argv[9], sizeof(params), relocs, grid.x, grid.y, grid.z, block.x,
      block.y, block.z, cluster.x, cluster.y, cluster.z, smem, same ? "identical" : "DIFFERENT",
      worst, largest);
  for (auto& b : bufs) CHECK_RT(cudaFree(b.dev));
  return same ? 0 : 1;
}
