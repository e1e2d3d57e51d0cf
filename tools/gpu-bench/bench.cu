// bench: phasegate's PTX beside hand-written CUDA C++ (nvcc's PTX), on one GPU, in one run.
//
//   bench PG_LATENCY CUDA_LATENCY PG_PIPELINE[:ENTRY] CUDA_PIPELINE[:ENTRY]
//
// PG_LATENCY / CUDA_LATENCY: a directory holding NAME.ptx for each latency kernel (phasegate
// writes one module per kernel), or one PTX file holding every kernel (nvcc's latency_ref.ptx).
// The kernels and their contracts: examples/latency.rs and tools/gpu-bench/latency_ref.cu.
// PG_PIPELINE defaults to entry scale_pipeline, CUDA_PIPELINE to entry pipeline.
//
// 1. Latency. For each kernel and block size: grid 1 (cluster_latency: grid 2, clusters of 2),
//    iters = 10000, one warm-up launch of each side, then 20 launches of each, alternating
//    phasegate / CUDA C++ / CUDA C++ `_unroll1` (the same kernel with `#pragma unroll 1`, a
//    diagnostic; skipped where the CUDA module lacks it). Each launch poisons its outputs first
//    and checks that every block wrote its cycles (and, for bar_red_popc_latency, that
//    counts[0] == iters * block / 2). Reported: the median over the 20 launches of
//    cycles[0] / iters, in SM clock cycles per barrier round.
// 2. Bandwidth. y = a*x through the warp-specialised bulk-copy pipelines (blocks of 160 threads,
//    grid min(tiles, SMs), 65536 bytes of dynamic shared memory, tiles = 65536: 1 GiB in, 1 GiB
//    out) and cuMemcpyDtoDAsync of the same 1 GiB. 3 rounds; each round runs phasegate, CUDA C++
//    and memcpy (the two pipelines in swapped order on odd rounds), each as 1 warm-up launch and
//    20 launches timed back to back with events; the output is poisoned after the warm-up and
//    checked bit-exactly against a*x on the CPU after the timed launches. Reported: each side's
//    median over its 60 launches, as GB/s counting bytes read plus bytes written.
// The last thing printed is the table `what | phasegate | CUDA C++ | ratio`.
// BENCH_LATENCY_ONLY=1 skips part 2 (for experiments on the latency kernels alone); BENCH_ITERS=N
// sets iters (default 10000).
//
// Every driver call is checked; a module that does not JIT prints the JIT error log; a launch
// still running after BENCH_TIMEOUT_S seconds (default 30) prints FAIL and exits with status 3.
// Exit status: 0 when every check passed, 1 when a check failed, 2 on a driver error.
//
// Build: nvcc -O2 -o bench bench.cu -lcuda      (host code only; no kernels in here)
#include "../cuda_host.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

static double median(std::vector<double> v)
{
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
static double vmin(const std::vector<double>& v) { return v.empty() ? NAN : *std::min_element(v.begin(), v.end()); }
static double vmax(const std::vector<double>& v) { return v.empty() ? NAN : *std::max_element(v.begin(), v.end()); }

// ---- modules --------------------------------------------------------------------------------
static std::map<std::string, CUmodule> g_modules;

static CUmodule load_module(const std::string& path)
{
    auto it = g_modules.find(path);
    if (it != g_modules.end()) return it->second;
    CUmodule mod = jit_load(path.c_str(), "  ");
    printf("loaded %s\n", path.c_str());
    g_modules[path] = mod;
    return mod;
}

// nullptr when the module has no such entry and `required` is false.
static CUfunction get_function(const std::string& path, const char* entry, bool required)
{
    return entry_of(load_module(path), path.c_str(), entry, required);
}

static bool is_directory(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A latency source is a directory of NAME.ptx files or one PTX file with every entry.
static std::string latency_path(const std::string& source, const std::string& kernel)
{
    return is_directory(source) ? source + "/" + kernel + ".ptx" : source;
}

static int func_regs(CUfunction fn)
{
    int regs = 0;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    return regs;
}

// ---- latency --------------------------------------------------------------------------------
struct LatCase {
    const char* kernel;
    const char* what;
    unsigned block;
    unsigned grid;
    bool counts;   // bar_red_popc_latency: (cycles, counts, iters)
    double arch_ref;   // ARCHITECTURE.md's hand-written figure, cycles (0: none)
};

static const LatCase LAT_CASES[] = {
    {"bar_sync_latency", "bar.sync 0, 128 threads", 128, 1, false, 20.7},
    {"bar_sync_latency", "bar.sync 0, 1024 threads", 1024, 1, false, 76.7},
    {"bar_red_popc_latency", "bar.red.popc, 128 threads", 128, 1, true, 45.5},
    {"bar_red_popc_latency", "bar.red.popc, 1024 threads", 1024, 1, true, 162},
    {"mbarrier_phase_latency", "mbarrier arrive+try_wait, 128 thr", 128, 1, false, 58.5},
    {"mbarrier_phase_latency", "mbarrier arrive+try_wait, 1024 thr", 1024, 1, false, 200},
    {"ping_pong_latency", "bar.arrive/bar.sync round, 2+2 warps", 128, 1, false, 140},
    {"cluster_latency", "barrier.cluster arrive+wait, 2 CTAs", 128, 2, false, 756},
};
static unsigned LAT_ITERS = 10000;   // BENCH_ITERS overrides (e.g. an odd count, to run remainder loops)
static const int LAT_REPS = 20;

struct LatBuffers {
    CUdeviceptr cycles = 0, counts = 0;
    LatBuffers() { CK(cuMemAlloc(&cycles, 8 * 8)); CK(cuMemAlloc(&counts, 8 * 4)); }
    ~LatBuffers() { cuMemFree(cycles); cuMemFree(counts); }
};

// One launch; returns cycles[0] / iters, or NAN (with a FAIL line) when the launch or a check failed.
static double lat_launch(CUfunction fn, const LatCase& c, LatBuffers& b, unsigned iters, const char* side)
{
    CK(cuMemsetD8(b.cycles, 0xFF, 8 * 8));
    CK(cuMemsetD8(b.counts, 0xFF, 8 * 4));
    CUdeviceptr pc = b.cycles, pn = b.counts;
    void* args2[] = {&pc, &iters};
    void* args3[] = {&pc, &pn, &iters};
    CUresult r = cuLaunchKernel(fn, c.grid, 1, 1, c.block, 1, 1, 0, nullptr, c.counts ? args3 : args2, nullptr);
    if (r != CUDA_SUCCESS) {
        printf("FAIL %s %s block %u grid %u: cuLaunchKernel: %s\n", side, c.kernel, c.block, c.grid, cu_err_name(r));
        return NAN;
    }
    sync_or_timeout(c.kernel);
    unsigned long long cyc[8];
    unsigned cnt[8];
    CK(cuMemcpyDtoH(cyc, b.cycles, 8 * 8));
    CK(cuMemcpyDtoH(cnt, b.counts, 8 * 4));
    for (unsigned blk = 0; blk < c.grid; ++blk) {
        if (cyc[blk] == ~0ull || cyc[blk] == 0) {
            printf("FAIL %s %s block %u: cycles[%u] not written (%llu)\n", side, c.kernel, c.block, blk, cyc[blk]);
            return NAN;
        }
    }
    if (c.counts) {
        unsigned long long want = (unsigned long long)iters * (c.block / 2);
        if (cnt[0] != want) {
            printf("FAIL %s %s block %u: counts[0] = %u, expected %llu\n", side, c.kernel, c.block, cnt[0], want);
            return NAN;
        }
    }
    return (double)cyc[0] / iters;
}

struct LatResult { double pg, cu, cu1; };

static LatResult run_latency(const LatCase& c, const std::string& pg_src, const std::string& cu_src, int* fails)
{
    CUfunction pg = get_function(latency_path(pg_src, c.kernel), c.kernel, true);
    CUfunction cu = get_function(latency_path(cu_src, c.kernel), c.kernel, true);
    std::string k1 = std::string(c.kernel) + "_unroll1";
    CUfunction cu1 = get_function(latency_path(cu_src, k1), k1.c_str(), false);
    LatBuffers b;
    // Warm-up: one launch of each.
    bool ok = !std::isnan(lat_launch(pg, c, b, LAT_ITERS, "phasegate"));
    ok = !std::isnan(lat_launch(cu, c, b, LAT_ITERS, "CUDA")) && ok;
    if (cu1) ok = !std::isnan(lat_launch(cu1, c, b, LAT_ITERS, "CUDA-unroll1")) && ok;
    std::vector<double> vp, vc, v1;
    for (int i = 0; ok && i < LAT_REPS; ++i) {
        double p = lat_launch(pg, c, b, LAT_ITERS, "phasegate");
        double q = lat_launch(cu, c, b, LAT_ITERS, "CUDA");
        double q1 = cu1 ? lat_launch(cu1, c, b, LAT_ITERS, "CUDA-unroll1") : 0;
        if (std::isnan(p) || std::isnan(q) || std::isnan(q1)) { ok = false; break; }
        vp.push_back(p);
        vc.push_back(q);
        if (cu1) v1.push_back(q1);
    }
    LatResult res{NAN, NAN, NAN};
    if (!ok) { ++*fails; return res; }
    res.pg = median(vp);
    res.cu = median(vc);
    res.cu1 = cu1 ? median(v1) : NAN;
    printf("LAT %-22s block %4u grid %u: phasegate median %8.2f (min %8.2f max %8.2f, %2d regs) | "
           "CUDA median %8.2f (min %8.2f max %8.2f, %2d regs)",
           c.kernel, c.block, c.grid, res.pg, vmin(vp), vmax(vp), func_regs(pg), res.cu, vmin(vc), vmax(vc), func_regs(cu));
    if (cu1) printf(" | CUDA unroll1 median %8.2f (min %8.2f max %8.2f)", res.cu1, vmin(v1), vmax(v1));
    printf("  cycles/iter\n");
    fflush(stdout);
    return res;
}

// ---- bandwidth ------------------------------------------------------------------------------
static const unsigned PIPE_TILE_FLOATS = 4096;
static const unsigned PIPE_BLOCK = 160;
static const unsigned PIPE_SHARED = 4 * 16384;
static const unsigned PIPE_TILES = 65536;   // 1 GiB in, 1 GiB out
static int BW_ROUNDS = 9;   // a multiple of 3: each side is timed first, second and third equally often; BENCH_BW_ROUNDS overrides
static const int BW_REPS = 20;

static unsigned pipe_grid(unsigned tiles, unsigned sms) { return tiles < sms ? tiles : sms; }

static size_t count_wrong(const float* hx, const float* hy, size_t n, float a, const char* side)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        float ref = a * hx[i];
        if (!bits_equal(hy[i], ref)) {
            if (bad++ < 5) printf("  %s: y[%zu] = %.9g, expected %.9g\n", side, i, hy[i], ref);
        }
    }
    return bad;
}

static void poison(CUdeviceptr p, size_t bytes) { CK(cuMemsetD32(p, 0x7FC00000u, bytes / 4)); }   // quiet NaN

// Launches issue() `reps` times back to back with an event between consecutive launches; appends
// each launch's milliseconds to `ms`.
template <class F> static void time_events(F issue, int reps, std::vector<double>& ms)
{
    std::vector<CUevent> ev(reps + 1);
    for (auto& e : ev) CK(cuEventCreate(&e, CU_EVENT_DEFAULT));
    CK(cuEventRecord(ev[0], nullptr));
    for (int i = 0; i < reps; ++i) {
        issue();
        CK(cuEventRecord(ev[i + 1], nullptr));
    }
    sync_or_timeout("timed launches");
    for (int i = 0; i < reps; ++i) {
        float t;
        CK(cuEventElapsedTime(&t, ev[i], ev[i + 1]));
        ms.push_back(t);
    }
    for (auto& e : ev) CK(cuEventDestroy(e));
}

struct Pipe {
    const char* side;
    CUfunction fn;
    std::vector<double> ms;
    size_t wrong = 0;
};

static void prepare_pipeline(CUfunction fn, const char* side)
{
    CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)PIPE_SHARED));
    int static_smem = 0;
    CK(cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
    printf("pipeline %s: %d registers, %d bytes static shared\n", side, func_regs(fn), static_smem);
}

// A small correctness check (tiles that do not divide evenly over the grid).
static int check_pipeline_small(CUfunction fn, const char* side, unsigned tiles, unsigned sms)
{
    size_t n = (size_t)tiles * PIPE_TILE_FLOATS, bytes = n * 4;
    std::vector<float> hx(n), hy(n);
    for (auto& e : hx) e = rand_float();
    float a = rand_float() * 4.0f;
    CUdeviceptr dx, dy;
    CK(cuMemAlloc(&dx, bytes));
    CK(cuMemAlloc(&dy, bytes));
    CK(cuMemcpyHtoD(dx, hx.data(), bytes));
    poison(dy, bytes);
    void* args[] = {&dx, &dy, &a, &tiles};
    CK(cuLaunchKernel(fn, pipe_grid(tiles, sms), 1, 1, PIPE_BLOCK, 1, 1, PIPE_SHARED, nullptr, args, nullptr));
    sync_or_timeout("pipeline check");
    CK(cuMemcpyDtoH(hy.data(), dy, bytes));
    size_t bad = count_wrong(hx.data(), hy.data(), n, a, side);
    printf("%s pipeline %s tiles=%u grid=%u (%zu wrong)\n", bad ? "FAIL" : "PASS", side, tiles, pipe_grid(tiles, sms), bad);
    CK(cuMemFree(dx));
    CK(cuMemFree(dy));
    return bad ? 1 : 0;
}

// The diagnostic table (the CUDA kernels with `#pragma unroll 1`, ARCHITECTURE.md's figures), then
// the head and the latency rows of the final table.
static void print_latency_tables(const char* name, int sms, const std::vector<LatResult>& lat)
{
    const size_t ncases = lat.size();   // 0 with BENCH_BANDWIDTH_ONLY
    printf("\nlatency, diagnostic (cycles/iter): CUDA C++ with `#pragma unroll 1` (one barrier round per loop trip,\n"
           "as in phasegate's loops), and the hand-written figures recorded in ARCHITECTURE.md\n");
    printf("%-38s | %9s | %9s | %12s | %9s\n", "what", "phasegate", "CUDA C++", "CUDA unroll1", "ARCH.md");
    for (size_t i = 0; i < ncases; ++i) {
        printf("%-38s | %9.2f | %9.2f | %12.2f | %9.1f\n", LAT_CASES[i].what, lat[i].pg, lat[i].cu, lat[i].cu1,
               LAT_CASES[i].arch_ref);
    }

    printf("\n== phasegate vs hand-written CUDA C++: %s, %d SMs ==\n", name, sms);
    printf("latency rows: SM cycles per barrier round, median of %d launches of %u rounds; ratio = phasegate / CUDA "
           "(> 1: phasegate slower)\n", LAT_REPS, LAT_ITERS);
    printf("bandwidth rows: GB/s counting bytes read + written, median of %d launches; ratio = phasegate / CUDA "
           "(< 1: phasegate slower)\n", BW_ROUNDS * BW_REPS);
    printf("%-38s | %9s | %9s | %6s\n", "what", "phasegate", "CUDA C++", "ratio");
    printf("%-38s-|-%9s-|-%9s-|-%6s\n", std::string(38, '-').c_str(), "---------", "---------", "------");
    for (size_t i = 0; i < ncases; ++i) {
        printf("%-38s | %9.2f | %9.2f | %6.3f\n", LAT_CASES[i].what, lat[i].pg, lat[i].cu, lat[i].pg / lat[i].cu);
    }
}

static std::pair<std::string, std::string> split_entry(const std::string& arg, const char* dflt)
{
    size_t colon = arg.rfind(':');
    if (colon == std::string::npos || is_directory(arg)) return {arg, dflt};
    return {arg.substr(0, colon), arg.substr(colon + 1)};
}

int main(int argc, char** argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s PG_LATENCY CUDA_LATENCY PG_PIPELINE[:ENTRY] CUDA_PIPELINE[:ENTRY]\n", argv[0]);
        return 2;
    }
    const std::string pg_lat = argv[1], cu_lat = argv[2];
    auto pg_pipe = split_entry(argv[3], "scale_pipeline");
    auto cu_pipe = split_entry(argv[4], "pipeline");
    if (const char* t = getenv("BENCH_TIMEOUT_S")) g_timeout_s = atof(t);
    if (const char* t = getenv("BENCH_ITERS")) LAT_ITERS = (unsigned)strtoul(t, nullptr, 0);
    if (const char* t = getenv("BENCH_BW_ROUNDS")) BW_ROUNDS = atoi(t) > 0 ? atoi(t) : BW_ROUNDS;
    const char* env_seed = getenv("BENCH_SEED");
    uint64_t seed = env_seed ? strtoull(env_seed, nullptr, 0)
                             : ((uint64_t)time(nullptr) * 1000003ull) ^ (uint64_t)clock();
    g_rng = seed;

    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    char name[256] = {0};
    CK(cuDeviceGetName(name, sizeof name - 1, dev));
    int sms = 0, driver = 0, clock_khz = 0;
    CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
    CK(cuDeviceGetAttribute(&clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev));
    CK(cuDriverGetVersion(&driver));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    printf("bench: %s, %d SMs, max SM clock %d MHz, driver API %d, seed %llu\n", name, sms, clock_khz / 1000, driver,
           (unsigned long long)seed);
    printf("phasegate latency: %s; CUDA latency: %s\n", pg_lat.c_str(), cu_lat.c_str());
    printf("phasegate pipeline: %s:%s; CUDA pipeline: %s:%s\n", pg_pipe.first.c_str(), pg_pipe.second.c_str(),
           cu_pipe.first.c_str(), cu_pipe.second.c_str());
    fflush(stdout);

    int fails = 0;

    // 1. latency (BENCH_BANDWIDTH_ONLY=1 skips it, for repeated bandwidth runs)
    const size_t ncases = sizeof LAT_CASES / sizeof LAT_CASES[0];
    const bool bandwidth_only = getenv("BENCH_BANDWIDTH_ONLY") && atoi(getenv("BENCH_BANDWIDTH_ONLY")) != 0;
    std::vector<LatResult> lat(bandwidth_only ? 0 : ncases);
    for (size_t i = 0; i < lat.size(); ++i) lat[i] = run_latency(LAT_CASES[i], pg_lat, cu_lat, &fails);

    const bool latency_only = getenv("BENCH_LATENCY_ONLY") && atoi(getenv("BENCH_LATENCY_ONLY")) != 0;
    if (latency_only) {
        print_latency_tables(name, sms, lat);
        printf("(BENCH_LATENCY_ONLY: no bandwidth rows)\n%s\n", fails ? "SOME CHECKS FAILED" : "all checks passed");
        return fails ? 1 : 0;
    }

    // 2. bandwidth
    // The third side is the CUDA C++ kernel again, timed as a side of its own: its ratio to the
    // CUDA side is what the harness reports for two identical kernels, the resolution of the
    // phasegate/CUDA ratio.
    Pipe pipes[3] = {{"phasegate", get_function(pg_pipe.first, pg_pipe.second.c_str(), true), {}, 0},
                     {"CUDA", get_function(cu_pipe.first, cu_pipe.second.c_str(), true), {}, 0},
                     {"CUDA-again", get_function(cu_pipe.first, cu_pipe.second.c_str(), true), {}, 0}};
    for (auto& p : pipes) prepare_pipeline(p.fn, p.side);
    for (int k = 0; k < 2; ++k) fails += check_pipeline_small(pipes[k].fn, pipes[k].side, 1000, (unsigned)sms);

    const size_t n = (size_t)PIPE_TILES * PIPE_TILE_FLOATS, bytes = n * 4;
    std::vector<float> hx(n), hy(n);
    for (auto& e : hx) e = rand_float();
    float a = rand_float() * 4.0f;
    CUdeviceptr dx, dy;
    CK(cuMemAlloc(&dx, bytes));
    CK(cuMemAlloc(&dy, bytes));
    CK(cuMemcpyHtoD(dx, hx.data(), bytes));
    unsigned tiles = PIPE_TILES;
    const unsigned grid = pipe_grid(tiles, (unsigned)sms);
    void* args[] = {&dx, &dy, &a, &tiles};
    std::vector<double> copy_ms;
    for (int round = 0; round < BW_ROUNDS; ++round) {
        for (int k = 0; k < 3; ++k) {
            Pipe& p = pipes[(k + round) % 3];   // each side goes first, second and third in turn
            auto launch = [&] { CK(cuLaunchKernel(p.fn, grid, 1, 1, PIPE_BLOCK, 1, 1, PIPE_SHARED, nullptr, args, nullptr)); };
            launch();
            sync_or_timeout("pipeline warm-up");
            poison(dy, bytes);
            size_t before = p.ms.size();
            time_events(launch, BW_REPS, p.ms);
            CK(cuMemcpyDtoH(hy.data(), dy, bytes));
            size_t bad = count_wrong(hx.data(), hy.data(), n, a, p.side);
            p.wrong += bad;
            std::vector<double> r(p.ms.begin() + before, p.ms.end());
            printf("%s BW round %d %-10s tiles=%u grid=%u: median %.4f ms (min %.4f max %.4f) = %.1f GB/s, %zu wrong\n",
                   bad ? "FAIL" : "PASS", round, p.side, tiles, grid, median(r), vmin(r), vmax(r),
                   2.0 * bytes / (median(r) * 1e-3) / 1e9, bad);
            fflush(stdout);
        }
        auto copy = [&] { CK(cuMemcpyDtoDAsync(dy, dx, bytes, nullptr)); };
        copy();
        sync_or_timeout("memcpy warm-up");
        size_t before = copy_ms.size();
        time_events(copy, BW_REPS, copy_ms);
        std::vector<double> r(copy_ms.begin() + before, copy_ms.end());
        printf("     BW round %d memcpy     1 GiB: median %.4f ms (min %.4f max %.4f) = %.1f GB/s\n", round, median(r),
               vmin(r), vmax(r), 2.0 * bytes / (median(r) * 1e-3) / 1e9);
        fflush(stdout);
    }
    for (auto& p : pipes) fails += p.wrong ? 1 : 0;
    CK(cuMemFree(dx));
    CK(cuMemFree(dy));

    auto gbs = [&](const std::vector<double>& ms) { return 2.0 * bytes / (median(ms) * 1e-3) / 1e9; };
    const double bw_pg = gbs(pipes[0].ms), bw_cu = gbs(pipes[1].ms), bw_again = gbs(pipes[2].ms), bw_copy = gbs(copy_ms);
    // Per-round ratios (each round's median against the same round's): their spread.
    std::vector<double> round_ratio, round_again;
    for (int r = 0; r < BW_ROUNDS; ++r) {
        auto slice = [&](const Pipe& p) { return std::vector<double>(p.ms.begin() + r * BW_REPS, p.ms.begin() + (r + 1) * BW_REPS); };
        round_ratio.push_back(median(slice(pipes[1])) / median(slice(pipes[0])));
        round_again.push_back(median(slice(pipes[1])) / median(slice(pipes[2])));
        // One line per round for tools/gpu-bench/ratios.py, which pools them over runs.
        printf("ROUND %d ratio %.5f again %.5f\n", r, round_ratio.back(), round_again.back());
    }
    printf("BW all rounds: phasegate median %.4f ms (min %.4f max %.4f, %zu launches); CUDA median %.4f ms "
           "(min %.4f max %.4f, %zu launches); memcpy median %.4f ms (min %.4f max %.4f, %zu copies)\n",
           median(pipes[0].ms), vmin(pipes[0].ms), vmax(pipes[0].ms), pipes[0].ms.size(), median(pipes[1].ms),
           vmin(pipes[1].ms), vmax(pipes[1].ms), pipes[1].ms.size(), median(copy_ms), vmin(copy_ms), vmax(copy_ms),
           copy_ms.size());

    // The table (its latency rows, then the bandwidth rows).
    print_latency_tables(name, sms, lat);
    printf("%-38s | %9.1f | %9.1f | %6.4f\n", "pipeline y=a*x, 1 GiB in + 1 GiB out", bw_pg, bw_cu, bw_pg / bw_cu);
    printf("%-38s | %8.1f%% | %8.1f%% |\n", "pipeline, % of memcpy", 100.0 * bw_pg / bw_copy, 100.0 * bw_cu / bw_copy);
    printf("%-38s | %9.1f (one figure, both sides)\n", "memcpy DtoD 1 GiB", bw_copy);
    printf("%-38s | %9.1f | %9.1f | %6.4f\n", "pipeline, CUDA C++ against itself", bw_again, bw_cu, bw_again / bw_cu);
    printf("per-round ratios over %d rounds: phasegate/CUDA min %.4f median %.4f max %.4f; CUDA-again/CUDA min %.4f "
           "median %.4f max %.4f\n", BW_ROUNDS, vmin(round_ratio), median(round_ratio), vmax(round_ratio),
           vmin(round_again), median(round_again), vmax(round_again));
    printf("%s\n", fails ? "SOME CHECKS FAILED" : "all checks passed");

    for (auto& m : g_modules) CK(cuModuleUnload(m.second));
    CK(cuDevicePrimaryCtxRelease(dev));
    return fails ? 1 : 0;
}
