#!/usr/bin/env bash
# Rebuild the CUTLASS part of phasegate's real-world PTX corpus.
#
#   tests/realworld/cutlass/build.sh HEADERS_DIR [OUT_DIR] [JOBS]
#
# HEADERS_DIR holds a copy of CUTLASS 4.2.0's headers as shipped in the
# nvidia-cutlass==4.2.0.0 wheel (cutlass_library/source/...):
#   HEADERS_DIR/include/{cute,cutlass}
#   HEADERS_DIR/tools/util/include/cutlass
#   HEADERS_DIR/examples/88_hopper_fmha      (only for the FMHA kernel)
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
sm90_bf16_coop_tma_128x128x64_c1|SM90||sm90_bf16_coop_tma_128x128x64_c1.cu
sm90_f16_pingpong_64x128x64_c2x1|SM90||sm90_f16_pingpong_64x128x64_c2x1.cu
sm90_f16_ws_basic_128x128x64_nosmem|SM90||sm90_f16_ws_basic_128x128x64_nosmem.cu
sm90_f16_tma_nows_128x128x64_c1|SM90||sm90_f16_tma_nows_128x128x64_c1.cu
sm90_f16_auto_128x256x64_c1x2|SM90||sm90_f16_auto_128x256x64_c1x2.cu
sm90_e4m3_coop_128x128x128_c1|SM90||sm90_e4m3_coop_128x128x128_c1.cu
sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1|SM90||sm90_e4m3xe5m2_coop_fastaccum_128x256x128_c2x1.cu
sm90_e4m3_coop_scaled_bias_amax_aux_128x128x128_c1|SM90||sm90_e4m3_coop_scaled_bias_amax_aux_128x128x128_c1.cu
sm90_bf16_coop_streamk_128x128x64_c1|SM90||sm90_bf16_coop_streamk_128x128x64_c1.cu
sm90_bf16_persistent_coop_256x128x64_c2x2|SM90||sm90_bf16_persistent_coop_256x128x64_c2x2.cu
sm90_f16_grouped_ptrarray_coop_128x128x64_c2x1|SM90||sm90_f16_grouped_ptrarray_coop_128x128x64_c2x1.cu
sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1|SM90||sm90_e4m3_grouped_ptrarray_pingpong_fastaccum_64x128x128_c1.cu
sm90_bf16_coop_bias_relu_128x128x64_c1|SM90||sm90_bf16_coop_bias_relu_128x128x64_c1.cu
sm90_bf16_coop_bias_relu_128x128x64_c1_lineinfo|SM90|-lineinfo|sm90_bf16_coop_bias_relu_128x128x64_c1.cu
sm90_bf16_pingpong_bias_gelu_aux_64x128x64_c1x2|SM90||sm90_bf16_pingpong_bias_gelu_aux_64x128x64_c1x2.cu
sm90_tf32_coop_128x128x32_c1|SM90||sm90_tf32_coop_128x128x32_c1.cu
sm90_s8_coop_128x128x128_noc_c1|SM90||sm90_s8_coop_128x128x128_noc_c1.cu
sm90_s4xbf16_mixed_coop_128x128x64_c1|SM90||sm90_s4xbf16_mixed_coop_128x128x64_c1.cu
sm90_bf16_cpasync_coop_128x128x64_c1|SM90||sm90_bf16_cpasync_coop_128x128x64_c1.cu
sm90_f16_fmha_fwd_causal_coop_128x128x128|SM90|FMHA|sm90_f16_fmha_fwd_causal_coop_128x128x128.cu
sm90_f16_fmha_fwd_causal_coop_128x128x128_lineinfo|SM90|FMHA -lineinfo|sm90_f16_fmha_fwd_causal_coop_128x128x128.cu
sm90_f16_fmha_fwd_pingpong_128x128x128|SM90|FMHA|sm90_f16_fmha_fwd_pingpong_128x128x128.cu
sm90_e4m3_fmha_fwd_causal_coop_128x256x128|SM90|FMHA|sm90_e4m3_fmha_fwd_causal_coop_128x256x128.cu
sm90_f16_fmha_fwd_residual_tma_64x128x64|SM90|FMHA|sm90_f16_fmha_fwd_residual_tma_64x128x64.cu
sm90_bf16_fmha_fwd_causal_coop_128x64x256|SM90|FMHA|sm90_bf16_fmha_fwd_causal_coop_128x64x256.cu
sm90_f16_fmha_bwd_causal_coop_64x128x128|SM90|FMHA|sm90_f16_fmha_bwd_causal_coop_64x128x128.cu
sm90_f16_fmha_bwd_coop_128x128x64|SM90|FMHA|sm90_f16_fmha_bwd_coop_128x128x64.cu
sm90_f16_fmha_bwd_helpers_d128|SM90|FMHA|sm90_f16_fmha_bwd_helpers_d128.cu
sm80_f16_gemm_multistage_128x128x32_s3|SM80||sm80_f16_gemm_multistage_128x128x32_s3.cu
sm80_f16_gemm_multistage_128x128x32_s3_lineinfo|SM80|-lineinfo|sm80_f16_gemm_multistage_128x128x32_s3.cu
sm80_bf16_gemm_relu_splitk_128x256x64_s3|SM80||sm80_bf16_gemm_relu_splitk_128x256x64_s3.cu
sm80_f16_cute_cpasync_128x128x64_s3|SM80||sm80_f16_cute_cpasync_128x128x64_s3.cu
sm80_f32_simt_gemm_32x32x8_s2_G|SM80|-G|sm80_f32_simt_gemm_32x32x8_s2.cu
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
