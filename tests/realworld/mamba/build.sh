#!/usr/bin/env bash
# Rebuild the Mamba selective-scan part of phasegate's real-world PTX corpus.
#
#   tests/realworld/mamba/build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]
#
# SDIST_DIR is the unpacked PyPI sdist mamba_ssm-2.3.2.post1.tar.gz (we use its
# csrc/selective_scan headers); TORCH_INCLUDE is torch/include from the PyPI wheel
# torch==2.9.0 (the kernels use c10::BFloat16/Half/complex and ATen's atomics).
# Flags are mamba-ssm's setup.py nvcc flags without -lineinfo/--ptxas-options; CUB comes
# from the CUDA toolkit.  OUT_DIR defaults to this script's directory; JOBS to nproc;
# NVCC may name the compiler.  A failed job is reported; exit non-zero.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
S=$(cd "${1:?usage: build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]}" && pwd)
T=$(cd "${2:?usage: build.sh SDIST_DIR TORCH_INCLUDE [OUT_DIR] [JOBS]}" && pwd)
OUT=$(mkdir -p "${3:-$HERE}" && cd "${3:-$HERE}" && pwd)
JOBS=${4:-$(nproc)}
NVCC=${NVCC:-nvcc}
export S T OUT NVCC HERE

COMMON="-O3 -std=c++17 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ -U__CUDA_NO_BFLOAT16_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ -U__CUDA_NO_BFLOAT162_OPERATORS__ -U__CUDA_NO_BFLOAT162_CONVERSIONS__ --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math -DNDEBUG -I$S/csrc/selective_scan -I$T -I$T/torch/csrc/api/include"
SM80="-gencode=arch=compute_80,code=sm_80"
SM90="-gencode=arch=compute_90,code=sm_90"
export COMMON SM80 SM90

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
