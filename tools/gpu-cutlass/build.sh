#!/usr/bin/env bash
# Builds tools/gpu-cutlass/gemm_params for one corpus kernel (x86-64 Linux, CUDA 13 nvcc).
#
#   tools/gpu-cutlass/build.sh HEADERS_DIR OUT_BINARY [SOURCE.cu GEMM_TYPE]
#
# HEADERS_DIR: CUTLASS 4.2.0's headers as for tests/realworld/cutlass/build.sh. SOURCE.cu is a
# file of tests/realworld/cutlass/src (default: the cooperative TMA bf16 GEMM) and GEMM_TYPE its
# kernel type. The runtime is linked statically and the driver is loaded at run time, so the
# binary runs on the GPU machine without a CUDA toolkit. NVCC may name the compiler.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
H=$(cd "${1:?usage: build.sh HEADERS_DIR OUT_BINARY [SOURCE.cu GEMM_TYPE]}" && pwd)
OUT=${2:?usage: build.sh HEADERS_DIR OUT_BINARY [SOURCE.cu GEMM_TYPE]}
SRC=${3:-sm90_bf16_coop_tma_128x128x64_c1.cu}
TYPE=${4:-pg_bf16_coop::GemmKernel}
NVCC=${NVCC:-nvcc}
# CUDA_LIBDIR: where libcudart_static.a is, when nvcc does not know (the PyPI nvcc wheel).
LIBS=${CUDA_LIBDIR:+-L$CUDA_LIBDIR}
"$NVCC" -O1 -std=c++17 --expt-relaxed-constexpr -DNDEBUG \
  -gencode=arch=compute_90a,code=sm_90a \
  -I"$H/include" -I"$H/tools/util/include" -I"$HERE/../../tests/realworld/cutlass/src" \
  "-DPG_KERNEL_SOURCE=\"$SRC\"" "-DPG_GEMM_KERNEL=$TYPE" \
  $LIBS -cudart static -ldl -lpthread -lrt \
  "$HERE/gemm_params.cu" -o "$OUT"
