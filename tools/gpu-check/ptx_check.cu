// ptx_check: load a PTX file through the CUDA driver API and check one kernel against a CPU
// reference. Used to validate PTX that phasegate writes (and nvcc's reference PTX).
//
//   ptx_check scale|transpose|dot|pipeline FILE.ptx [ENTRY]   (ENTRY defaults to the mode name)
//
// Kernel signatures and launch shapes (see tests/fixtures/cuda/*_ref.cu):
//   scale(const float* x, float* y, float a, unsigned n)           block 256, grid ceil(n/256)
//       y[i] = a * x[i]; checked bit-exactly (f32 multiply).
//   transpose(const float* in, float* out, unsigned width, unsigned height)
//       block (32,8,1), grid (ceil(width/32), ceil(height/32)); out[c*height + r] = in[r*width + c];
//       checked bit-exactly.
//   dot(const float* x, const float* y, float* partial, unsigned n) block 256, grid 264
//       the sum of the partials against a double-precision reference, relative error < 1e-4;
//       every partial must have been written. Inputs in [0, 1) (no cancellation).
//   pipeline(const float* x, float* y, float a, unsigned tiles)    (tests/fixtures/cuda/pipeline_ref.cu)
//       one tile = 4096 floats (16 KB), n = tiles * 4096; y[i] = a * x[i], checked bit-exactly.
//       block (160,1,1): warp 0 producer, warps 1..4 consumers; grid (min(tiles, SMs),1,1);
//       65536 bytes of dynamic shared memory (4 stages of 16 KB): the function's
//       CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES is raised to 65536 and every launch
//       passes sharedMemBytes = 65536. Checks tiles = 1, 7, 64, 1000, then a bandwidth run at
//       tiles = 65536 (1 GiB in, 1 GiB out; median of 20 launches after 3 warm-ups, timed with
//       events, output checked afterwards) next to cuMemcpyDtoDAsync of the same 1 GiB.
//       PTX_CHECK_MAX_TILES=N skips every size above N (e.g. 64 under compute-sanitizer).
// Inputs are fresh random floats (the seed, from the clock, is printed; set PTX_CHECK_SEED to
// repeat a run); outputs are poisoned with NaN before each launch. One line per check:
// `PASS ...` or `FAIL ...`; the exit status is non-zero on any failure. A launch still running
// after PTX_CHECK_TIMEOUT_S seconds (default 30) prints `FAIL ... still running` and exits with
// status 3 (a deadlocked kernel: a wrong parity, an expect_tx that is never completed, ...).
//
// Build: nvcc -O2 -o ptx_check ptx_check.cu -lcuda      (host code only; no kernels in here)
#include "../cuda_host.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

// uniform in [0, 1), 24 random bits
static float rand_unit() { return (float)(next_u32() >> 8) / (float)(1 << 24); }

static void fill_random(std::vector<float>& v) { for (auto& e : v) e = rand_float(); }
static void fill_random_unit(std::vector<float>& v) { for (auto& e : v) e = rand_unit(); }

struct DevBuf {
    CUdeviceptr p = 0;
    size_t bytes = 0;
    explicit DevBuf(size_t b) : bytes(b) { CK(cuMemAlloc(&p, b)); }
    ~DevBuf() { if (p) cuMemFree(p); }
    void upload(const std::vector<float>& h) { CK(cuMemcpyHtoD(p, h.data(), bytes)); }
    void download(std::vector<float>& h) { CK(cuMemcpyDtoH(h.data(), p, bytes)); }
    void poison() { CK(cuMemsetD32(p, 0x7FC00000u, bytes / 4)); }   // quiet NaN
};

static CUfunction load_function(CUmodule* mod, const char* path, const char* entry)
{
    *mod = jit_load(path, "");
    return entry_of(*mod, path, entry, true);
}

static void launch(CUfunction fn, unsigned gx, unsigned gy, unsigned bx, unsigned by, void** args,
                   unsigned shared_bytes = 0)
{
    CK(cuLaunchKernel(fn, gx, gy, 1, bx, by, 1, shared_bytes, nullptr, args, nullptr));
    sync_or_timeout("kernel launch");
}

static int check_scale(CUfunction fn, unsigned n)
{
    std::vector<float> hx(n), hy(n);
    fill_random(hx);
    float a = rand_float() * 4.0f;
    DevBuf dx(n * 4ull), dy(n * 4ull);
    dx.upload(hx);
    dy.poison();
    CUdeviceptr px = dx.p, py = dy.p;
    void* args[] = {&px, &py, &a, &n};
    launch(fn, (n + 255) / 256, 1, 256, 1, args);
    dy.download(hy);
    size_t bad = 0;
    double max_err = 0;
    for (unsigned i = 0; i < n; ++i) {
        float ref = a * hx[i];
        if (!bits_equal(hy[i], ref)) {
            if (bad++ < 5) fprintf(stderr, "  y[%u] = %.9g, expected %.9g\n", i, hy[i], ref);
            double e = std::isnan(hy[i]) ? INFINITY : fabs((double)hy[i] - ref);
            if (e > max_err) max_err = e;
        }
    }
    printf("%s scale n=%u a=%.9g (max abs err %g, %zu wrong)\n", bad ? "FAIL" : "PASS", n, a, max_err, bad);
    return bad ? 1 : 0;
}

static int check_transpose(CUfunction fn, unsigned width, unsigned height)
{
    size_t count = (size_t)width * height;
    std::vector<float> hin(count), hout(count);
    fill_random(hin);
    DevBuf din(count * 4), dout(count * 4);
    din.upload(hin);
    dout.poison();
    CUdeviceptr pi = din.p, po = dout.p;
    void* args[] = {&pi, &po, &width, &height};
    launch(fn, (width + 31) / 32, (height + 31) / 32, 32, 8, args);
    dout.download(hout);
    size_t bad = 0;
    double max_err = 0;
    for (unsigned r = 0; r < height; ++r) {
        for (unsigned c = 0; c < width; ++c) {
            float got = hout[(size_t)c * height + r], ref = hin[(size_t)r * width + c];
            if (!bits_equal(got, ref)) {
                if (bad++ < 5) fprintf(stderr, "  output[%u*%u+%u] = %.9g, expected %.9g\n", c, height, r, got, ref);
                double e = std::isnan(got) ? INFINITY : fabs((double)got - ref);
                if (e > max_err) max_err = e;
            }
        }
    }
    printf("%s transpose %ux%u (max abs err %g, %zu wrong)\n", bad ? "FAIL" : "PASS", width, height, max_err, bad);
    return bad ? 1 : 0;
}

static int check_dot(CUfunction fn, unsigned n, unsigned grid)
{
    std::vector<float> hx(n), hy(n), hp(grid);
    // Non-negative inputs: no cancellation, so the relative error measures the kernel's f32
    // accumulation, not the conditioning of a random sum.
    fill_random_unit(hx);
    fill_random_unit(hy);
    DevBuf dx(n * 4ull), dy(n * 4ull), dp(grid * 4ull);
    dx.upload(hx);
    dy.upload(hy);
    dp.poison();
    CUdeviceptr px = dx.p, py = dy.p, pp = dp.p;
    void* args[] = {&px, &py, &pp, &n};
    launch(fn, grid, 1, 256, 1, args);
    dp.download(hp);
    double ref = 0, mag = 0, got = 0;
    for (unsigned i = 0; i < n; ++i) {
        ref += (double)hx[i] * (double)hy[i];
        mag += fabs((double)hx[i] * (double)hy[i]);
    }
    unsigned unwritten = 0;
    for (unsigned b = 0; b < grid; ++b) {
        if (!std::isfinite(hp[b])) { if (unwritten++ < 5) fprintf(stderr, "  partial[%u] = %g (not written?)\n", b, hp[b]); }
        got += hp[b];
    }
    double rel = fabs(got - ref) / fabs(ref);
    double rel_mag = fabs(got - ref) / mag;   // equals rel for non-negative inputs
    bool ok = unwritten == 0 && rel < 1e-4;
    printf("%s dot n=%u grid=%u (rel err %.3g, err/sum|xy| %.3g, got %.9g, ref %.9g, %u partials unwritten)\n",
           ok ? "PASS" : "FAIL", n, grid, rel, rel_mag, got, ref, unwritten);
    return ok ? 0 : 1;
}

// ---- pipeline -----------------------------------------------------------------------------
static const unsigned PIPE_TILE_FLOATS = 4096;
static const unsigned PIPE_BLOCK = 160;
static const unsigned PIPE_SHARED = 4 * 16384;

static unsigned pipe_grid(unsigned tiles, unsigned sms) { return tiles < sms ? tiles : sms; }

static size_t count_wrong(const std::vector<float>& hx, const std::vector<float>& hy, float a, double* max_err)
{
    size_t bad = 0;
    *max_err = 0;
    for (size_t i = 0; i < hx.size(); ++i) {
        float ref = a * hx[i];
        if (!bits_equal(hy[i], ref)) {
            if (bad++ < 5) fprintf(stderr, "  y[%zu] = %.9g, expected %.9g\n", i, hy[i], ref);
            double e = std::isnan(hy[i]) ? INFINITY : fabs((double)hy[i] - ref);
            if (e > *max_err) *max_err = e;
        }
    }
    return bad;
}

static int check_pipeline(CUfunction fn, unsigned tiles, unsigned sms)
{
    size_t n = (size_t)tiles * PIPE_TILE_FLOATS;
    std::vector<float> hx(n), hy(n);
    fill_random(hx);
    float a = rand_float() * 4.0f;
    DevBuf dx(n * 4), dy(n * 4);
    dx.upload(hx);
    dy.poison();
    CUdeviceptr px = dx.p, py = dy.p;
    void* args[] = {&px, &py, &a, &tiles};
    unsigned grid = pipe_grid(tiles, sms);
    launch(fn, grid, 1, PIPE_BLOCK, 1, args, PIPE_SHARED);
    dy.download(hy);
    double max_err;
    size_t bad = count_wrong(hx, hy, a, &max_err);
    printf("%s pipeline tiles=%u grid=%u (max abs err %g, %zu wrong)\n", bad ? "FAIL" : "PASS", tiles, grid, max_err, bad);
    fflush(stdout);
    return bad ? 1 : 0;
}

struct Timing { double median_ms, min_ms, max_ms; };

// Times `reps` back-to-back calls of issue() on the default stream with events (one event
// between consecutive calls) after `warmup` untimed ones.
template <class F> static Timing time_events(F issue, int warmup, int reps)
{
    for (int i = 0; i < warmup; ++i) issue();
    sync_or_timeout("warm-up");
    std::vector<CUevent> ev(reps + 1);
    for (auto& e : ev) CK(cuEventCreate(&e, CU_EVENT_DEFAULT));
    CK(cuEventRecord(ev[0], nullptr));
    for (int i = 0; i < reps; ++i) {
        issue();
        CK(cuEventRecord(ev[i + 1], nullptr));
    }
    sync_or_timeout("timed runs");
    std::vector<double> ms(reps);
    for (int i = 0; i < reps; ++i) {
        float t;
        CK(cuEventElapsedTime(&t, ev[i], ev[i + 1]));
        ms[i] = t;
    }
    for (auto& e : ev) CK(cuEventDestroy(e));
    std::sort(ms.begin(), ms.end());
    Timing r;
    r.median_ms = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
    r.min_ms = ms.front();
    r.max_ms = ms.back();
    return r;
}

static int bench_pipeline(CUfunction fn, unsigned tiles, unsigned sms)
{
    const int warmup = 3, reps = 20;
    size_t n = (size_t)tiles * PIPE_TILE_FLOATS, bytes = n * 4;
    std::vector<float> hx(n), hy(n);
    fill_random(hx);
    float a = rand_float() * 4.0f;
    DevBuf dx(bytes), dy(bytes);
    dx.upload(hx);
    CUdeviceptr px = dx.p, py = dy.p;
    void* args[] = {&px, &py, &a, &tiles};
    unsigned grid = pipe_grid(tiles, sms);
    auto run_kernel = [&] { CK(cuLaunchKernel(fn, grid, 1, 1, PIPE_BLOCK, 1, 1, PIPE_SHARED, nullptr, args, nullptr)); };

    for (int i = 0; i < warmup; ++i) run_kernel();
    sync_or_timeout("warm-up");
    dy.poison();   // every element must be written by the timed launches
    Timing tk = time_events(run_kernel, 0, reps);
    dy.download(hy);
    double max_err;
    size_t bad = count_wrong(hx, hy, a, &max_err);
    printf("%s pipeline tiles=%u grid=%u (max abs err %g, %zu wrong)\n", bad ? "FAIL" : "PASS", tiles, grid, max_err, bad);

    auto run_copy = [&] { CK(cuMemcpyDtoDAsync(py, px, bytes, nullptr)); };
    Timing tc = time_events(run_copy, warmup, reps);

    double gbk = 2.0 * bytes / (tk.median_ms * 1e-3) / 1e9;
    double gbc = 2.0 * bytes / (tc.median_ms * 1e-3) / 1e9;
    printf("BW pipeline tiles=%u: %.1f GB/s (read+write)\n", tiles, gbk);
    printf("BW memcpy %gGiB: %.1f GB/s (read+write)\n", bytes / 1073741824.0, gbc);
    printf("  pipeline ms: median %.4f min %.4f max %.4f; memcpy ms: median %.4f min %.4f max %.4f; "
           "pipeline/memcpy %.1f%%\n", tk.median_ms, tk.min_ms, tk.max_ms, tc.median_ms, tc.min_ms, tc.max_ms,
           100.0 * gbk / gbc);
    fflush(stdout);
    return bad ? 1 : 0;
}

int main(int argc, char** argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s scale|transpose|dot|pipeline FILE.ptx [ENTRY]\n", argv[0]);
        return 2;
    }
    std::string mode = argv[1];
    const char* path = argv[2];
    const char* entry = argc == 4 ? argv[3] : argv[1];
    if (mode != "scale" && mode != "transpose" && mode != "dot" && mode != "pipeline") {
        fprintf(stderr, "unknown mode '%s' (scale|transpose|dot|pipeline)\n", mode.c_str());
        return 2;
    }
    if (const char* t = getenv("PTX_CHECK_TIMEOUT_S")) g_timeout_s = atof(t);
    const char* env_max = getenv("PTX_CHECK_MAX_TILES");
    unsigned max_tiles = env_max ? (unsigned)strtoul(env_max, nullptr, 0) : ~0u;

    const char* env_seed = getenv("PTX_CHECK_SEED");
    uint64_t seed = env_seed ? strtoull(env_seed, nullptr, 0)
                             : ((uint64_t)time(nullptr) * 1000003ull) ^ (uint64_t)clock();
    g_rng = seed;
    printf("ptx_check %s %s entry=%s seed=%llu\n", mode.c_str(), path, entry, (unsigned long long)seed);

    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CUfunction fn = load_function(&mod, path, entry);

    int fails = 0;
    if (mode == "scale") {
        fails += check_scale(fn, (1u << 20) + 37);
        fails += check_scale(fn, 1000);
    } else if (mode == "transpose") {
        fails += check_transpose(fn, 1000, 777);
        fails += check_transpose(fn, 1024, 1024);
        fails += check_transpose(fn, 33, 65);
        fails += check_transpose(fn, 1, 100);
    } else if (mode == "dot") {
        fails += check_dot(fn, (1u << 22) + 5, 264);
        fails += check_dot(fn, 1000, 264);   // fewer elements than threads: some partials are 0
    } else {
        int sms = 0;
        CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
        CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)PIPE_SHARED));
        int regs = 0, static_smem = 0, max_threads = 0;
        CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
        CK(cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
        CK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
        printf("%s: %d registers, %d bytes static shared, max %d threads per block; %d SMs\n",
               entry, regs, static_smem, max_threads, sms);
        const unsigned sizes[] = {1, 7, 64, 1000};
        for (unsigned t : sizes) {
            if (t > max_tiles) { printf("SKIP pipeline tiles=%u (PTX_CHECK_MAX_TILES=%u)\n", t, max_tiles); continue; }
            fails += check_pipeline(fn, t, (unsigned)sms);
        }
        const unsigned bw_tiles = 65536;   // 1 GiB in, 1 GiB out
        if (bw_tiles > max_tiles) printf("SKIP BW pipeline tiles=%u (PTX_CHECK_MAX_TILES=%u)\n", bw_tiles, max_tiles);
        else fails += bench_pipeline(fn, bw_tiles, (unsigned)sms);
    }

    CK(cuModuleUnload(mod));
    CK(cuDevicePrimaryCtxRelease(dev));
    return fails ? 1 : 0;
}
