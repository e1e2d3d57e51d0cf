#!/usr/bin/env bash
# Rebuild the FlashInfer part of phasegate's real-world PTX corpus.
#
#   tests/realworld/flashinfer/build.sh SDIST_DIR [OUT_DIR] [JOBS]
#
# SDIST_DIR is the unpacked PyPI sdist flashinfer_python-0.7.2.post1.tar.gz: we use
# its include/ (flashinfer headers) and the third-party headers it bundles under
# 3rdparty/ (cutlass 4.5.0 include + tools/util/include, spdlog include, and its CCCL
# cub/libcudacxx/thrust, which come before the toolkit's own CCCL), the include
# paths FlashInfer's JIT passes.  Flags follow flashinfer/jit/core.py and cpp_ext.py
# for an sm90a (resp. default sm80) module: -std=c++17 -use_fast_math
# --expt-relaxed-constexpr, -DFLASHINFER_ENABLE_{F16,BF16,FP8_E4M3,FP8_E5M2}, and for
# sm90a -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DFLASHINFER_ENABLE_FP8_E8M0
# -DFLASHINFER_ENABLE_FP4_E2M1.  OUT_DIR defaults to this script's directory; JOBS to
# nproc; NVCC may name the compiler.  A failed job is reported; exit non-zero.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
S=$(cd "${1:?usage: build.sh SDIST_DIR [OUT_DIR] [JOBS]}" && pwd)
OUT=$(mkdir -p "${2:-$HERE}" && cd "${2:-$HERE}" && pwd)
JOBS=${3:-$(nproc)}
NVCC=${NVCC:-nvcc}
export S OUT NVCC HERE

COMMON="-std=c++17 -use_fast_math --expt-relaxed-constexpr -DNDEBUG -DFLASHINFER_ENABLE_F16 -DFLASHINFER_ENABLE_BF16 -DFLASHINFER_ENABLE_FP8_E4M3 -DFLASHINFER_ENABLE_FP8_E5M2 -I$S/include -I$S/3rdparty/cutlass/include -I$S/3rdparty/cutlass/tools/util/include -I$S/3rdparty/spdlog/include -I$S/3rdparty/cccl/cub -I$S/3rdparty/cccl/libcudacxx/include -I$S/3rdparty/cccl/thrust"
SM90="-gencode=arch=compute_90a,code=sm_90a -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED -DFLASHINFER_ENABLE_FP8_E8M0 -DFLASHINFER_ENABLE_FP4_E2M1"
SM80="-gencode=arch=compute_80,code=sm_80"
export COMMON SM80 SM90

# output-name | target | source
JOBLIST=$(cd "$HERE/src" && for f in *.cu; do n=${f%.cu}; case $n in fi_sm80_*) t=SM80;; *) t=SM90;; esac; echo "$n|$t|$f"; done)
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
