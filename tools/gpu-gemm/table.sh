#!/usr/bin/env bash
# The GEMM table of book/src/performance/gemm.md ("Every shape, with what the host code takes
# now"): each shape with the kernel examples/gemm_hopper.rs's host code takes for it (the
# tiling, and the parts of K or stream-K's whole tiles, span and pieces), against cuBLAS, one
# gemm-bench run per shape, 5 rounds of 10 launches a side, interleaved.
#   cargo run --release --example gemm_hopper -- --emit DIR                              # here
#   cargo run --release --example gemm_hopper -- --choose SIZES > DIR/plan.txt            # here
#   cargo build --release -p phasegate-gemm-bench --features cuda; cp the binary to DIR   # here
#   bash tools/gpu-gemm/table.sh DIR                                             # GPU machine
# Prints one line a shape: the plan's kernel and parameters, then gemm-bench's summary line and
# the number of failed checks. GEMM_EXTRA: further gemm-bench options for every shape (e.g.
# "--l2-promotion 256").
set -u
D=${1:?the folder with the PTX, plan.txt and gemm-bench}
export PG_CUBLASLT=/usr/local/cuda/lib64/libcublasLt.so.13 PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
common="--block 384 --cluster 2 --grid persistent --swizzle-ab 128"
c64="--box-c 64,64 --swizzle-c 128"
while read -r size entry a b c d e f; do
  case $entry in
    gemm_hopper|gemm_hopper_stream) box="--box-a 64,128 --box-b 64,128 --smem 196608 $c64" ;;
    gemm_hopper_n192|gemm_hopper_n192_stream) box="--box-a 64,128 --box-b 64,96 --smem 204800 $c64" ;;
    gemm_hopper_n160) box="--box-a 64,128 --box-b 64,80 --smem 184320 --box-c 32,64 --swizzle-c 64" ;;
    gemm_hopper_n144) box="--box-a 64,128 --box-b 64,72 --smem 174080 --box-c 16,64 --swizzle-c 32" ;;
    gemm_hopper_n128|gemm_hopper_n128_split) box="--box-a 64,128 --box-b 64,64 --smem 196608 $c64" ;;
    gemm_hopper_n64) box="--box-a 64,128 --box-b 64,32 --smem 196608 $c64" ;;
    gemm_skinny|gemm_skinny_split) box="--box-a 64,32 --box-b 64,128 --smem 196608 $c64" ;;
    gemm_skinny_n128|gemm_skinny_n128_split) box="--box-a 64,64 --box-b 64,128 --smem 196608 $c64" ;;
    gemm_skinny16|gemm_skinny16_split) box="--box-a 64,8 --box-b 64,128 --smem 221184 --box-c 64,16 --swizzle-c 128" ;;
    gemm_skinny32|gemm_skinny32_split) box="--box-a 64,16 --box-b 64,128 --smem 204800 --box-c 64,32 --swizzle-c 128" ;;
    *) echo "$size: no launch shape for kernel \`$entry\` (plan.txt from another version?)"; continue ;;
  esac
  case $entry in
    gemm_skinny|gemm_skinny_n128|gemm_skinny16|gemm_skinny32) p="--params tmap_b,tmap_a,tmap_c,n,m,k" ;;
    gemm_skinny_split|gemm_skinny_n128_split|gemm_skinny16_split|gemm_skinny32_split) p="--params tmap_b,tmap_a,tmap_c,n,m,k,partials,arrivals,splits --splits $a" ;;
    gemm_hopper_n128_split) p="--params tmap_a,tmap_b,tmap_c,m,n,k,partials,arrivals,splits --splits $a" ;;
    *_stream) p="--params tmap_a,tmap_b,tmap_c,m,n,k,partials,arrivals,whole,span --whole $b --span $d --splits $f" ;;
    *) p="--params tmap_a,tmap_b,tmap_c,m,n,k" ;;
  esac
  o=${OUT:-/tmp}/gemm-table; rm -rf $o
  OUT=$o GEMM_BENCH=$D/gemm-bench NCU=0 TORCH=0 SIZES=$size ROUNDS=5 REPS=10 \
    bash tools/gpu-gemm/run.sh $D/$entry.ptx $entry $common $box $p ${GEMM_EXTRA:-} > /dev/null 2>&1
  echo "$entry $a $b $c $d $e $f | $(grep -hE "^[0-9]+x[0-9]+x[0-9]+ +\|" $o/run.log | tail -1) $(grep -hcE "FAIL|SOME CHECKS" $o/run.log)"
done < $D/plan.txt
