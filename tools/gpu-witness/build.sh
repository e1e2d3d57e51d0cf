#!/usr/bin/env bash
# Builds the gpu-witness programs into OUT_DIR (default .device/gpu-witness under the repository
# root) with CUDA 13 nvcc for sm_90a, static CUDA runtime (the binaries run on the GPU machine
# as they are). CUTLASS_HEADERS: CUTLASS 4.2.0's headers (a folder holding include/ and
# tools/util/include), needed for the two CUTLASS programs; without it they are skipped.
# NVCC may name the compiler; CUDA_LIBDIR the folder holding libcudart_static.a.
#   tools/gpu-witness/build.sh [OUT_DIR] [all|small|cutlass]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${1:-$ROOT/.device/gpu-witness}
WHAT=${2:-all}
NVCC=${NVCC:-nvcc}
LIBS=${CUDA_LIBDIR:+-L$CUDA_LIBDIR}
mkdir -p "$OUT"
FLAGS=(-std=c++17 -gencode=arch=compute_90a,code=sm_90a -lineinfo -cudart static $LIBS
       -Xcompiler -static-libstdc++,-static-libgcc)
status=0
if [ "$WHAT" != cutlass ]; then
  for p in epilogue_double_arrive uninit_other_warpgroup; do
    "$NVCC" -O2 "${FLAGS[@]}" "$HERE/$p.cu" -o "$OUT/$p" || { echo "build of $p failed"; status=1; }
  done
fi
if [ "$WHAT" != small ]; then
  H=${CUTLASS_HEADERS:-$ROOT/.device/cutlass-headers}
  if [ ! -d "$H/include/cutlass" ]; then
    echo "no CUTLASS headers at $H: the CUTLASS programs are not built"; exit 1
  fi
  for v in 1:cutlass_cpasync_epilogue 0:cutlass_tma_control; do
    "$NVCC" -O2 "${FLAGS[@]}" --expt-relaxed-constexpr -DNDEBUG -DPGW_CPASYNC=${v%%:*} \
      -I"$H/include" -I"$H/tools/util/include" -I"$ROOT/tests/realworld/cutlass/src" -I"$HERE" \
      "$HERE/cutlass_cpasync_epilogue.cu" -o "$OUT/${v#*:}" &
  done
  for j in $(jobs -p); do wait "$j" || { echo "a CUTLASS build failed"; status=1; }; done
fi
exit $status
