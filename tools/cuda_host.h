// cuda_host.h: the host-side helpers that tools/gpu-check/ptx_check.cu and
// tools/gpu-bench/bench.cu share, so that both check driver calls, load PTX, draw inputs and
// catch deadlocked launches the same way. Header-only; every function is `static`.
#pragma once
#include <cuda.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <unistd.h>

// ---- driver errors --------------------------------------------------------------------------
// Prints the failing call with the error's name and text and exits with status 2.
static void die_cu(CUresult r, const char* what, int line)
{
    const char* name = nullptr;
    const char* msg = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &msg);
    fprintf(stderr, "FAIL %s (line %d): %s: %s\n", what, line, name ? name : "?", msg ? msg : "unknown error");
    fflush(stdout);
    exit(2);
}
#define CK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) die_cu(r_, #call, __LINE__); } while (0)

static const char* cu_err_name(CUresult r)
{
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    return name ? name : "?";
}

// ---- random inputs --------------------------------------------------------------------------
// splitmix64, seeded by the caller (which prints the seed so that a run can be repeated).
static uint64_t g_rng;
static uint32_t next_u32()
{
    uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}
// uniform in [-1, 1), 24 random bits
static float rand_float() { return (float)((int32_t)(next_u32() >> 8) - (1 << 23)) / (float)(1 << 23); }

static bool bits_equal(float a, float b) { uint32_t x, y; memcpy(&x, &a, 4); memcpy(&y, &b, 4); return x == y; }

// ---- modules --------------------------------------------------------------------------------
// JIT-compiles a PTX file; on failure prints the JIT error (and info) log and exits with
// status 2. The info log of a successful load is printed after `prefix`.
static CUmodule jit_load(const char* path, const char* prefix)
{
    FILE* f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "FAIL cannot open %s\n", path); exit(2); }
    std::string ptx;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) ptx.append(buf, n);
    fclose(f);

    static char error_log[1 << 16];
    static char info_log[1 << 16];
    error_log[0] = info_log[0] = 0;
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                           CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_LOG_VERBOSE};
    void* vals[] = {error_log, (void*)(uintptr_t)sizeof error_log,
                    info_log, (void*)(uintptr_t)sizeof info_log, (void*)(uintptr_t)1};
    CUmodule mod;
    CUresult r = cuModuleLoadDataEx(&mod, ptx.c_str(), 5, opts, vals);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "JIT error log for %s:\n%s\n", path, error_log);
        if (info_log[0]) fprintf(stderr, "JIT info log:\n%s\n", info_log);
        die_cu(r, "cuModuleLoadDataEx", __LINE__);
    }
    if (info_log[0]) printf("%sJIT info: %s\n", prefix, info_log);
    return mod;
}

// The entry `entry` of `mod`; nullptr when there is none and `required` is false, otherwise
// a missing entry exits with status 2.
static CUfunction entry_of(CUmodule mod, const char* path, const char* entry, bool required)
{
    CUfunction fn = nullptr;
    CUresult r = cuModuleGetFunction(&fn, mod, entry);
    if (r == CUDA_ERROR_NOT_FOUND && !required) return nullptr;
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "no entry '%s' in %s\n", entry, path);
        die_cu(r, "cuModuleGetFunction", __LINE__);
    }
    return fn;
}

// ---- launch watchdog ------------------------------------------------------------------------
static double g_timeout_s = 30.0;

// Waits for all work on the default stream, giving up (exit 3) after g_timeout_s: a deadlocked
// kernel never finishes, and the driver ends it when the process exits.
static void sync_or_timeout(const char* what)
{
    auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        CUresult r = cuStreamQuery(nullptr);
        if (r == CUDA_SUCCESS) break;
        if (r != CUDA_ERROR_NOT_READY) die_cu(r, what, __LINE__);
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > g_timeout_s) {
            printf("FAIL %s: still running after %.0f s (deadlock?)\n", what, g_timeout_s);
            fflush(stdout);
            fflush(stderr);
            _exit(3);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    CK(cuCtxSynchronize());
}
