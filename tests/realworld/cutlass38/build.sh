#!/usr/bin/env bash
# Rebuild the CUTLASS 3.8 part of phasegate's real-world PTX corpus.
#
#   tests/realworld/cutlass38/build.sh HEADERS_DIR [OUT_DIR] [JOBS]
#
# HEADERS_DIR holds a copy of CUTLASS 3.8.0's headers as shipped in the
# nvidia-cutlass==3.8.0.0 wheel (cutlass_library/source/...):
#   HEADERS_DIR/include/{cute,cutlass}
#   HEADERS_DIR/tools/util/include/cutlass
# OUT_DIR defaults to this script's directory; JOBS to nproc.
# NVCC may name the compiler (default: nvcc on PATH).  The corpus was made with
# CUDA 13.0; host compiler g++.  Each job is independent; a failed job is
# reported and the script exits non-zero at the end.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
H=$(cd "${1:?usage: build.sh HEADERS_DIR [OUT_DIR] [JOBS]}" && pwd)
OUT=$(mkdir -p "${2:-$HERE}" && cd "${2:-$HERE}" && pwd)
JOBS=${3:-$(nproc)}
NVCC=${NVCC:-nvcc}
export H OUT NVCC HERE

COMMON="-std=c++17 --expt-relaxed-constexpr -DNDEBUG -I$H/include -I$H/tools/util/include"
SM90="-gencode=arch=compute_90a,code=sm_90a"
SM80="-arch=sm_80"
export COMMON SM90 SM80

# output-name | target | extra flags | source
JOBLIST=$(cat <<'LIST'
sm80_bf16_gemm_grouped_128x128x32_s4|SM80||sm80_bf16_gemm_grouped_128x128x32_s4.cu
sm80_f16_conv2d_fprop_optimized_128x128x32_s3|SM80||sm80_f16_conv2d_fprop_optimized_128x128x32_s3.cu
sm80_f16_gemm_universal_streamk_128x128x32_s4|SM80||sm80_f16_gemm_universal_streamk_128x128x32_s4.cu
sm80_f16_sparse_gemm_128x128x64_s3|SM80||sm80_f16_sparse_gemm_128x128x64_s3.cu
sm90_bf16_coop_dgelu_128x128x64_c1|SM90||sm90_bf16_coop_dgelu_128x128x64_c1.cu
sm90_bf16_cpasync_pingpong_64x128x64_c1|SM90||sm90_bf16_cpasync_pingpong_64x128x64_c1.cu
sm90_bf16_grouped_ptrarray_pingpong_64x128x64_c1x2|SM90||sm90_bf16_grouped_ptrarray_pingpong_64x128x64_c1x2.cu
sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2|SM90||sm90_bf16_pingpong_colbias_gelu_64x256x64_c2x2.cu
sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1|SM90||sm90_bf16xs4_grouped_mixed_scale_coop_128x16x128_c1.cu
sm90_bf16xs4_mixed_scale_pingpong_64x128x128_c1|SM90||sm90_bf16xs4_mixed_scale_pingpong_64x128x128_c1.cu
sm90_e4m3_blockwise_coop_128x128x128_c1x2|SM90||sm90_e4m3_blockwise_coop_128x128x128_c1x2.cu
sm90_e4m3_groupwise_1x128_coop_128x128x128_c1x2|SM90||sm90_e4m3_groupwise_1x128_coop_128x128x128_c1x2.cu
sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2|SM90||sm90_e4m3_pingpong_fastaccum_64x128x128_c1x2.cu
sm90_e4m3_sparse_coop_128x128x256_c2x1|SM90||sm90_e4m3_sparse_coop_128x128x256_c2x1.cu
sm90_f16_coop_streamk_128x256x64_c2x1|SM90||sm90_f16_coop_streamk_128x256x64_c2x1.cu
sm90_f16_coop_topk_softmax_128x16x64_c1|SM90||sm90_f16_coop_topk_softmax_128x16x64_c1.cu
sm90_f16_ptrarray_batched_coop_128x128x64_c1|SM90||sm90_f16_ptrarray_batched_coop_128x128x64_c1.cu
sm90_f16_sparse_auto_128x128x128_c1x2|SM90||sm90_f16_sparse_auto_128x128x128_c1x2.cu
sm90_f16_tma_nows_64x128x64_c2x1|SM90||sm90_f16_tma_nows_64x128x64_c2x1.cu
sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1|SM90||sm90_f16xe4m3_mixed_scale_zero_coop_128x128x64_c1.cu
sm90_s8_pingpong_64x128x128_c2x1|SM90||sm90_s8_pingpong_64x128x128_c2x1.cu
sm90_tf32_pingpong_colmajorA_64x128x32_c1|SM90||sm90_tf32_pingpong_colmajorA_64x128x32_c1.cu
LIST
)

one() {
  IFS='|' read -r name target extra src <<<"$1"
  local arch
  if [ "$target" = SM90 ]; then arch=$SM90; else arch=$SM80; fi
  extra=${extra//FMHA/-I$H/examples/88_hopper_fmha}
  # Paths are given relative to HERE so that the command recorded is stable.
  local cmd="$NVCC -ptx $arch $COMMON $extra src/$src -o $OUT/$name.ptx"
  if (cd "$HERE" && $cmd) >"$OUT/$name.log" 2>&1; then
    echo "ok   $name"
    [ -s "$OUT/$name.log" ] || rm -f "$OUT/$name.log"
  else
    echo "FAIL $name (see $OUT/$name.log)"
    return 1
  fi
}
export -f one

if [ -n "${ONLY:-}" ]; then JOBLIST=$(printf '%s\n' "$JOBLIST" | grep -E "^(${ONLY})\|"); fi
printf '%s\n' "$JOBLIST" | xargs -P "$JOBS" -I{} bash -c 'one "$@"' _ {}
