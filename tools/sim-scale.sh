#!/usr/bin/env bash
# The simulator's parallel launches on a many-core machine (issue 20), as book/src/performance/
# cpu.md reports them: each binary given (stripped profiling builds, `cargo build --profile
# profiling --bin phasegate`), race detection on, the long launches of four classes (Triton
# softmax and layernorm over 8192 rows, its mma.sync and wgmma matmuls at 2048^3) and two
# shorter ones (softmax over 1024 rows, the mma.sync matmul at 1024^3), on THREADS threads
# (default the machine's) in ROUNDS rounds (default 3) with the binaries alternating, then on
# one thread once each; then, with the first binary, the machine's own ceiling: the same
# one-thread launch alone and as 2, 4, 8 and 16 independent processes at once.
#   bash tools/sim-scale.sh OLD_BINARY NEW_BINARY
# Run from the repository's root. Prints `NAME BINARY t=THREADS time=WALL USER SYS tinstr=N`
# lines and, for the ceiling, each process's wall time.
set -u
R=tests/realworld/triton
threads=${THREADS:-$(nproc)}
lscpu | grep -E "Model name|^CPU\(s\)|Thread\(s\) per core"
srun() { b=$1; t=$2; name=$3; shift 3
  /usr/bin/time -o /tmp/sim-scale-time.txt -f "%e %U %S" env RAYON_NUM_THREADS=$t "$b" sim "$@" > /tmp/sim-scale-out.txt 2>&1
  n=$(grep -o "[0-9]* thread-instructions" /tmp/sim-scale-out.txt | tail -1 | cut -d' ' -f1)
  echo "$name $(basename "$b") t=$t time=$(tail -1 /tmp/sim-scale-time.txt) tinstr=${n:-FAILED}"; }
softmax() { echo "$R/softmax_sm90a.ptx --kernel softmax_rows --grid $1 --block 256 --dynamic-shared 12320 --arg buf:$(($1 * 4096)) --arg buf:$(($1 * 4096)):60 --arg u32:1024 --arg u32:1024 --arg u32:$1 --arg u32:1024 --arg buf:0 --arg buf:0"; }
mma() { echo "$R/matmul_sm80.ptx --grid $(($1 * $1 / 16384)) --block 256 --dynamic-shared 98304 --arg buf:$(($1 * $1 * 2)):60 --arg buf:$(($1 * $1 * 2)):60 --arg buf:$(($1 * $1 * 4)) $(for i in 1 2 3 4 5 6; do echo -n "--arg u32:$1 "; done)--arg buf:0 --arg buf:0"; }
wgmma() { echo "$R/matmul_bf16_sm90a.ptx --grid $(($1 * $1 / 32768)) --block 256 --dynamic-shared 147456 --arg buf:$(($1 * $1 * 2)):60 --arg buf:$(($1 * $1 * 2)):60 --arg buf:$(($1 * $1 * 2)) $(for i in 1 2 3 4 5 6; do echo -n "--arg u32:$1 "; done)--arg buf:0 --arg buf:0"; }
layernorm() { echo "$R/layernorm_fwd_sm80.ptx --grid $1 --block 256 --dynamic-shared 32 --arg buf:$(($1 * 2048)):60 --arg buf:$(($1 * 2048)) --arg buf:4096:60 --arg buf:4096:60 --arg buf:$(($1 * 4)) --arg buf:$(($1 * 4)) --arg u32:1024 --arg u32:1024 --arg f32:0.00001 --arg buf:0 --arg buf:0"; }
all() { b=$1; t=$2
  # shellcheck disable=SC2046
  { srun "$b" "$t" softmax8192 $(softmax 8192); srun "$b" "$t" layernorm8192 $(layernorm 8192)
    srun "$b" "$t" mma2k $(mma 2048); srun "$b" "$t" wgmma2k $(wgmma 2048)
    srun "$b" "$t" softmax1024 $(softmax 1024); srun "$b" "$t" mma1k $(mma 1024); }
}
for _ in $(seq "${ROUNDS:-3}"); do for b in "$@"; do all "$b" "$threads"; done; done
for b in "$@"; do all "$b" 1; done
first=$1
for k in softmax mma; do
  if [ $k = softmax ]; then launch=$(softmax 2048); else launch=$(mma 1024); fi
  for n in 1 1 2 4 8 16 1; do
    for i in $(seq $n); do
      # shellcheck disable=SC2086
      /usr/bin/time -f "%e" env RAYON_NUM_THREADS=1 "$first" sim $launch 2>&1 >/dev/null | tail -1 > /tmp/sim-scale-c.$i &
    done
    wait
    echo "$k x$n: $(cat $(seq -f /tmp/sim-scale-c.%g $n) | tr '\n' ' ')"
  done
done
