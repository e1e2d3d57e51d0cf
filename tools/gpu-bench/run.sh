#!/usr/bin/env bash
# phasegate vs hand-written CUDA C++, side by side, on the GPU of this machine.
#   bash tools/gpu-bench/run.sh
# Builds latency_ref.cu to PTX (nvcc -ptx -arch=sm_90a) and bench.cu (host program), assembles
# both pipelines and all latency kernels with ptxas -arch=sm_90a and dumps their SASS
# (cuobjdump -sass) and ptxas resource lines to $OUT (or $BUILD_DIR/out), then runs bench; its
# table is the last thing printed.
# Inputs (defaults in parentheses; the .device folder is git-ignored, see book/src/performance/pipeline.md):
#   PG_LATENCY    phasegate's latency PTX, one NAME.ptx per kernel   (.device/latency)
#   PG_PIPELINE   phasegate's pipeline PTX                           (.device/latency/scale_pipeline.ptx)
#   CUDA_PIPELINE nvcc's pipeline PTX                                (tests/fixtures/ptx/pipeline_ref.ptx)
# Environment: BUILD_DIR (default /tmp/gpu-bench); BENCH_SEED; BENCH_TIMEOUT_S (default 30);
#   BENCH_BW_ROUNDS (default 9: rounds of the three pipeline sides phasegate, CUDA, CUDA-again);
#   BENCH_BANDWIDTH_ONLY=1 skips the latency rows; BENCH_LATENCY_ONLY=1 the bandwidth rows.
# The PTX inputs are written here by `bash tools/device-ptx.sh`. Pool the per-round pipeline
# ratios of several runs with `python3 tools/gpu-bench/ratios.py LOG...`.
# Exit status: non-zero if a build, a check or a launch failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-/tmp/gpu-bench}"
out="${OUT:-$build/out}"
pg_lat="${PG_LATENCY:-$repo/.device/latency}"
pg_pipe="${PG_PIPELINE:-$repo/.device/latency/scale_pipeline.ptx}"
cu_pipe="${CUDA_PIPELINE:-$repo/tests/fixtures/ptx/pipeline_ref.ptx}"
kernels="bar_sync_latency bar_red_popc_latency mbarrier_phase_latency ping_pong_latency cluster_latency"
mkdir -p "$build" "$out"

{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || echo "nvidia-smi failed"
    nvcc --version | tail -n 2
} 2>&1 | tee "$out/bench.log"
bindir="$(dirname "$(command -v nvcc)")"
ptxas="$bindir/ptxas"
cuobjdump="$bindir/cuobjdump"

if ! nvcc -ptx -arch=sm_90a -o "$build/latency_ref.ptx" "$here/latency_ref.cu"; then
    echo "FAIL nvcc -ptx latency_ref.cu"
    exit 2
fi
cp "$build/latency_ref.ptx" "$out/latency_ref.ptx"
if ! nvcc -O2 -o "$build/bench" "$here/bench.cu" -lcuda; then
    echo "FAIL build bench"
    exit 2
fi

# SASS: ptxas each PTX to a cubin for sm_90a, then cuobjdump -sass. What the driver's JIT runs
# is compiled by the driver's own copy of the same compiler; this is the offline view of it.
status=0
: > "$out/ptxas_info.txt"
sass() {   # sass FILE.ptx NAME OUTFILE
    echo "== $2 ($1)" >> "$out/ptxas_info.txt"
    if "$ptxas" -v -arch=sm_90a "$1" -o "$build/$2.cubin" >> "$out/ptxas_info.txt" 2>&1; then
        { echo "==== $2 ($1)"; "$cuobjdump" -sass "$build/$2.cubin"; } >> "$3"
    else
        echo "FAIL ptxas $1"
        status=1
    fi
}
: > "$out/sass_pipeline_phasegate.txt"
: > "$out/sass_pipeline_cuda.txt"
: > "$out/sass_latency_phasegate.txt"
: > "$out/sass_latency_cuda.txt"
sass "$pg_pipe" pipeline_phasegate "$out/sass_pipeline_phasegate.txt"
sass "$cu_pipe" pipeline_cuda "$out/sass_pipeline_cuda.txt"
for k in $kernels; do
    sass "$pg_lat/$k.ptx" "latency_phasegate_$k" "$out/sass_latency_phasegate.txt"
done
sass "$build/latency_ref.ptx" latency_cuda "$out/sass_latency_cuda.txt"
grep -E "^==|entry function|Used" "$out/ptxas_info.txt"

set -o pipefail
"$build/bench" "$pg_lat" "$build/latency_ref.ptx" "$pg_pipe" "$cu_pipe" 2>&1 | tee -a "$out/bench.log"
rc=$?
if [ $rc -ne 0 ]; then echo "FAIL bench exited with $rc"; status=1; fi
exit $status
