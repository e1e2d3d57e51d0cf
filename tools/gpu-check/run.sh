#!/usr/bin/env bash
# Build ptx_check and run it over PTX files.
#   bash tools/gpu-check/run.sh MODE=FILE.ptx[:ENTRY] ...
#   e.g. bash tools/gpu-check/run.sh scale=out/scale.ptx transpose=out/t.ptx:my_transpose dot=out/dot.ptx
#        bash tools/gpu-check/run.sh pipeline=tests/fixtures/ptx/pipeline_ref.ptx
# MODE is scale, transpose, dot or pipeline (see ptx_check.cu); ENTRY defaults to MODE.
# Environment: BUILD_DIR (default /tmp/gpu-check) for the binary; PTX_CHECK_SEED to repeat a run;
# PTX_CHECK_TIMEOUT_S (default 30) before a launch counts as hung; PTX_CHECK_MAX_TILES to limit
# pipeline mode to small sizes (e.g. 64 under compute-sanitizer; skips the bandwidth run).
# Exit status: non-zero if the build or any check failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${BUILD_DIR:-/tmp/gpu-check}"
mkdir -p "$build"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "nvidia-smi failed"
nvcc --version | tail -n 2

if ! nvcc -O2 -o "$build/ptx_check" "$here/ptx_check.cu" -lcuda; then
    echo "FAIL build ptx_check"
    exit 2
fi

if [ $# -eq 0 ]; then
    echo "usage: $0 MODE=FILE.ptx[:ENTRY] ...   (MODE: scale|transpose|dot|pipeline)"
    exit 2
fi

status=0
for arg in "$@"; do
    mode="${arg%%=*}"
    rest="${arg#*=}"
    if [ "$mode" = "$arg" ] || [ -z "$rest" ]; then
        echo "FAIL bad argument '$arg' (want MODE=FILE.ptx[:ENTRY])"
        status=1
        continue
    fi
    file="${rest%%:*}"
    entry="$mode"
    if [ "$file" != "$rest" ]; then entry="${rest#*:}"; fi
    if ! "$build/ptx_check" "$mode" "$file" "$entry"; then
        echo "FAIL ptx_check $mode $file $entry"
        status=1
    fi
done
exit $status
