#!/bin/bash
# The simulator's speed on larger shapes of the corpus's kernel classes, in time: each binary
# given (say the profiling builds of two commits, `cargo build --profile profiling --bin
# phasegate`, stripped and carried to the GPU machine) runs each launch on 1 thread and on 16,
# race detection on, two rounds; prints M thread-instructions a second (the thread-instruction
# count `phasegate sim` reports over /usr/bin/time's elapsed seconds).
#   bash tools/sim-time.sh OLD_BINARY NEW_BINARY
# Run from the repository's root (the kernels are tests/realworld/triton's).
R=tests/realworld/triton
run() { bin=$1; name=$2; shift 2
  /usr/bin/time -o /tmp/time.txt -f "%e" env RAYON_NUM_THREADS=${THREADS:-1} $bin sim "$@" > /tmp/out.txt 2>/tmp/err.txt
  s=$(tail -1 /tmp/time.txt)
  n=$(grep -o "[0-9]* thread-instructions" /tmp/out.txt | tail -1 | cut -d' ' -f1)
  [ -z "$n" ] && { echo "$name $(basename $bin) FAILED: $(tail -2 /tmp/out.txt)"; return; }
  echo "$name $(basename $bin) threads=${THREADS:-1} secs=$s tinstr=$n Mps=$(python3 -c "print(round($n/$s/1e6,1))")"; }
big() { b=$1
  run $b softmax1024 $R/softmax_sm90a.ptx --kernel softmax_rows --grid 1024 --block 256 --dynamic-shared 12320 --arg buf:4194304 --arg buf:4194304:60 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg buf:0 --arg buf:0
  run $b layernorm1024 $R/layernorm_fwd_sm80.ptx --grid 1024 --block 256 --dynamic-shared 32 --arg buf:2097152:60 --arg buf:2097152 --arg buf:4096:60 --arg buf:4096:60 --arg buf:4096 --arg buf:4096 --arg u32:1024 --arg u32:1024 --arg f32:0.00001 --arg buf:0 --arg buf:0
  run $b mma_sync_matmul1k $R/matmul_sm80.ptx --grid 64 --block 256 --dynamic-shared 98304 --arg buf:2097152:60 --arg buf:2097152:60 --arg buf:4194304 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg buf:0 --arg buf:0
  run $b wgmma_matmul1k $R/matmul_bf16_sm90a.ptx --grid 32 --block 256 --dynamic-shared 147456 --arg buf:2097152:60 --arg buf:2097152:60 --arg buf:2097152 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg u32:1024 --arg buf:0 --arg buf:0
}
for round in 1 2; do for t in 1 16; do for b in "$@"; do THREADS=$t big $b; done; done; done
