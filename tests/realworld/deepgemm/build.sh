#!/usr/bin/env bash
# Rebuild the DeepGEMM part of phasegate's real-world PTX corpus.
#
#   tests/realworld/deepgemm/build.sh DEEPGEMM_INCLUDE [OUT_DIR] [JOBS]
#
# DEEPGEMM_INCLUDE is deep_gemm/include from the PyPI wheel
# sgl_kernel-0.3.21-cp310-abi3-manylinux2014_x86_64.whl (DeepGEMM's JIT headers
# deep_gemm/{impls,common} and the cute/cutlass 4.2 headers they ship with).  The flags
# are those DeepGEMM's JIT passes (strings of deep_gemm/deep_gemm_cpp.abi3.so in the same
# wheel: -std=c++20 -O3 --expt-relaxed-constexpr --expt-extended-lambda
# --diag-suppress=39,161,174,177,186,940), with -ptx instead of -cubin and without the
# ptxas-only options.  OUT_DIR defaults to this script's directory; JOBS to nproc; NVCC
# may name the compiler.  A failed job is reported; exit non-zero.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
I=$(cd "${1:?usage: build.sh DEEPGEMM_INCLUDE [OUT_DIR] [JOBS]}" && pwd)
OUT=$(mkdir -p "${2:-$HERE}" && cd "${2:-$HERE}" && pwd)
JOBS=${3:-$(nproc)}
NVCC=${NVCC:-nvcc}
export I OUT NVCC HERE

COMMON="-std=c++20 -O3 --expt-relaxed-constexpr --expt-extended-lambda --diag-suppress=39,161,174,177,186,940 -I$I"
SM90="--gpu-architecture=sm_90a"
export COMMON SM90

JOBLIST=$(cd "$HERE/src" && for f in *.cu; do echo "${f%.cu}|SM90|$f"; done)
if [ -n "${ONLY:-}" ]; then JOBLIST=$(printf '%s\n' "$JOBLIST" | grep -E "^(${ONLY})\|"); fi

one() {
  IFS='|' read -r name target src <<<"$1"
  local cmd="$NVCC -ptx $SM90 $COMMON src/$src -o $OUT/$name.ptx"
  if (cd "$HERE" && $cmd) >"$OUT/$name.log" 2>&1; then
    echo "ok   $name"
    [ -s "$OUT/$name.log" ] || rm -f "$OUT/$name.log"
  else
    echo "FAIL $name (see $OUT/$name.log)"
    return 1
  fi
}
export -f one

printf '%s\n' "$JOBLIST" | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
