#!/usr/bin/env bash
# On the GPU machine: records the CUTLASS cases of tests/realworld/cutlass/run/.
#
#   tools/gpu-cutlass/record.sh BIN_DIR CORPUS_DIR OUT.tar
#
# BIN_DIR holds gemm_params built by build.sh for the default kernel (the cooperative bf16
# GEMM) and gemm_params_pingpong built for sm90_f16_pingpong_64x128x64_c2x1.cu
# (pg_sm90_f16_pingpong_64x128x64_c2x1::GemmKernel). Each case runs once; what the program
# wrote is packed into OUT.tar (unpack it into tests/realworld/cutlass/run/).
set -euo pipefail
BIN=$1 PTX=$2 TAR=$3
DIR=$(mktemp -d)
# CASE M N K ALPHA BETA int|frac SEED
"$BIN/gemm_params" "$PTX/sm90_bf16_coop_tma_128x128x64_c1.ptx" "$DIR" \
  bf16_coop_int 256 256 128 1 1 int 1
"$BIN/gemm_params" "$PTX/sm90_bf16_coop_tma_128x128x64_c1.ptx" "$DIR" \
  bf16_coop_frac 256 256 128 1 0 frac 2
"$BIN/gemm_params_pingpong" "$PTX/sm90_f16_pingpong_64x128x64_c2x1.ptx" "$DIR" \
  f16_pingpong_int 128 256 128 1 1 int 3
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
tar -C "$DIR" -cf "$TAR" .
