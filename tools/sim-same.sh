#!/bin/bash
# The simulator rounds' output check: every buffer argument (raw, `--out`) and the stdout (with
# the exit status) of `phasegate sim` on the corpus launches of `benches/sim.rs` (softmax with
# 256 rows): the eight with constant inputs, the six Triton ones with random inputs, those again
# under --policy random --seed 3, and the two CUTLASS GEMMs under --policy random --seed 3 (146
# files). Run it with two binaries into two folders and compare them with `diff -r`:
#   bash tools/sim-same.sh OLD_BINARY /tmp/old; bash tools/sim-same.sh NEW_BINARY /tmp/new
#   diff -r /tmp/old /tmp/new && echo identical
# Run from the repository's root; the random inputs are made once (seeded) in $INPUTS.
BIN=$1; O=$2; mkdir -p "$O"
T=tests/realworld/triton; C=tests/realworld/cutlass; K=${INPUTS:-/tmp/sim-same-inputs}
if [ ! -f "$K/r65536c.bin" ]; then
  mkdir -p "$K"
  python3 - "$K" <<'PY'
import random, sys
r = random.Random(9)
for name, n in [("r131072a", 131072), ("r131072b", 131072), ("r131072c", 131072),
                ("r1048576", 1048576), ("r4096a", 4096), ("r4096b", 4096),
                ("r65536a", 65536), ("r65536b", 65536), ("r65536c", 65536)]:
    open(f"{sys.argv[1]}/{name}.bin", "wb").write(bytes(r.getrandbits(8) for _ in range(n)))
PY
fi
one() { tag=$1; nbuf=$2; shift 2
  outs=(); for i in $nbuf; do outs+=(--out "$i:$O/$tag.$i.bin"); done
  RAYON_NUM_THREADS=${THREADS:-1} $BIN sim "$@" "${outs[@]}" > "$O/$tag.stdout" 2>&1; echo "exit $?" >> "$O/$tag.stdout"; }
cut() { tag=$1; shift
  outs=(); for b in A B C D; do outs+=(--out "0.$b:$O/$tag.$b.bin"); done
  RAYON_NUM_THREADS=${THREADS:-1} $BIN sim "$@" "${outs[@]}" > "$O/$tag.stdout" 2>&1; echo "exit $?" >> "$O/$tag.stdout"; }
triton() { m=$1; shift  # m: c (constant inputs) or r (random); the rest: extra flags
  if [ "$m" = c ]; then I1=buf:1048576:60; A=buf:131072:60; B=buf:131072:60; G=buf:4096:60; H=buf:4096:60; Q=buf:65536:60; KK=buf:65536:60; V=buf:65536:60
  else I1=file:$K/r1048576.bin; A=file:$K/r131072a.bin; B=file:$K/r131072b.bin; G=file:$K/r4096a.bin; H=file:$K/r4096b.bin; Q=file:$K/r65536a.bin; KK=file:$K/r65536b.bin; V=file:$K/r65536c.bin; fi
  p=$m$(echo "$@" | tr -d ' -')
  one softmax.$p "0 1 6 7" $T/softmax_sm90a.ptx --kernel softmax_rows --grid 64 --block 256 --dynamic-shared 12320 --arg buf:1048576 --arg $I1 --arg u32:1024 --arg u32:1024 --arg u32:256 --arg u32:1024 --arg buf:0 --arg buf:0 "$@"
  one layernorm.$p "0 1 2 3 4 5 9 10" $T/layernorm_fwd_sm80.ptx --grid 64 --block 256 --dynamic-shared 32 --arg $A --arg buf:131072 --arg $G --arg $H --arg buf:256 --arg buf:256 --arg u32:1024 --arg u32:1024 --arg f32:0.00001 --arg buf:0 --arg buf:0 "$@"
  one mma.$p "0 1 2 9 10" $T/matmul_sm80.ptx --grid 4 --block 256 --dynamic-shared 98304 --arg $A --arg $B --arg buf:131072 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg buf:0 --arg buf:0 "$@"
  one wgmma.$p "0 1 2 9 10" $T/matmul_bf16_sm90a.ptx --grid 2 --block 256 --dynamic-shared 147456 --arg $A --arg $B --arg buf:131072 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg u32:256 --arg buf:0 --arg buf:0 "$@"
  one attn80.$p "0 1 2 3 4 11 12" $T/attn_fwd_sm80.ptx --grid 2,2,1 --block 128 --dynamic-shared 49152 --arg $Q --arg $KK --arg $V --arg buf:65536 --arg buf:2048 --arg f32:0.125 --arg u32:32768 --arg u32:16384 --arg u32:64 --arg u32:2 --arg u32:256 --arg buf:0 --arg buf:0 "$@"
  one attn90.$p "0 1 2 3 4 11 12" $T/attn_fwd_sm90a.ptx --grid 2,2,1 --block 128 --dynamic-shared 65536 --arg $Q --arg $KK --arg $V --arg buf:65536 --arg buf:2048 --arg f32:0.125 --arg u32:32768 --arg u32:16384 --arg u32:64 --arg u32:2 --arg u32:256 --arg buf:0 --arg buf:0 "$@"
}
cutlass() { p=$(echo "$@" | tr -d ' -')
  cut coop.c$p $C/sm90_bf16_coop_tma_128x128x64_c1.ptx --grid 1,4,1 --block 384 --cluster 1,1,1 --dynamic-shared 230400 --arg struct:$C/run/bf16_coop_int.struct "$@"
  cut pingpong.c$p $C/sm90_f16_pingpong_64x128x64_c2x1.ptx --grid 2,2,1 --block 384 --cluster 2,1,1 --dynamic-shared 214016 --arg struct:$C/run/f16_pingpong_int.struct "$@"
}
triton c; cutlass
triton r; triton r --policy random --seed 3
cutlass --policy random --seed 3
# The output paths `phasegate sim` reports, made relative so that two folders compare.
sed -i "s|$O/||g" "$O"/*.stdout
echo "$(ls "$O" | wc -l) files in $O"
