#!/usr/bin/env bash
# Rebuild the FlashAttention-2 part of phasegate's real-world PTX corpus.
#
#   tests/realworld/flash-attn/build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]
#
# SDIST_DIR is the unpacked PyPI sdist flash_attn-2.8.3.tar.gz (we use its
# csrc/flash_attn/src headers and its bundled csrc/cutlass/include); TORCH_INCLUDE
# is torch/include from the PyPI wheel torch==2.9.0 (flash-attn's headers include
# c10/ATen headers for the Philox state and error checks).  OUT_DIR defaults to this
# script's directory; JOBS to nproc.  NVCC may name the compiler (default: nvcc).
# The flags are flash-attn 2.8.3's setup.py nvcc flags (without -lineinfo and the
# host-only torch extension defines).  A failed job is reported; exit non-zero.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
S=$(cd "${1:?usage: build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]}" && pwd)
T=$(cd "${2:?usage: build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]}" && pwd)
OUT=$(mkdir -p "${3:-$HERE}" && cd "${3:-$HERE}" && pwd)
JOBS=${4:-$(nproc)}
NVCC=${NVCC:-nvcc}
export S T OUT NVCC HERE

COMMON="-O3 -std=c++17 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math -DNDEBUG -I$S/csrc/flash_attn -I$S/csrc/flash_attn/src -I$S/csrc/cutlass/include -I$T -I$T/torch/csrc/api/include"
SM80="-gencode=arch=compute_80,code=sm_80"
SM90="-gencode=arch=compute_90,code=sm_90"
export COMMON SM80 SM90

# output-name | target | source
JOBLIST=$(cd "$HERE/src" && for f in *.cu; do n=${f%.cu}; case $n in *_sm90) t=SM90;; *) t=SM80;; esac; echo "$n|$t|$f"; done)
if [ -n "${ONLY:-}" ]; then JOBLIST=$(printf '%s\n' "$JOBLIST" | grep -E "^(${ONLY})\|"); fi

one() {
  IFS='|' read -r name target src <<<"$1"
  local arch
  if [ "$target" = SM90 ]; then arch=$SM90; else arch=$SM80; fi
  local cmd="$NVCC -ptx $arch $COMMON src/$src -o $OUT/$name.ptx"
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
