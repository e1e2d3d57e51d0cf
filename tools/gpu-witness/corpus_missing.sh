#!/usr/bin/env bash
# tests/corpus/run_gpu.sh's synccheck procedure for the corpus kernels that have no row in
# tests/corpus/synccheck.tsv yet (or for the names given), on a machine with nvcc and a GPU:
# for each NAME, `nvcc -arch=sm_90a -lineinfo -DCORPUS_MAIN NAME.cu`, then
# `timeout -s KILL 25 compute-sanitizer --tool synccheck --print-limit 20` on the executable.
#
#   bash tools/gpu-witness/corpus_missing.sh WORK_DIR [NAME...]      # build, then run
#   bash tools/gpu-witness/corpus_missing.sh build WORK_DIR [NAME...] # build only
#   bash tools/gpu-witness/corpus_missing.sh run WORK_DIR [NAME...]   # run (built earlier)
#
# WORK_DIR gets names, bin/NAME, log/NAME.build.err, log/NAME.synccheck (ending with the line
# "exit status N"), log/versions and rows.tsv: one synccheck.tsv row per kernel (kernel,
# synccheck error count, the first message synccheck reported (its trailing period dropped, as
# in synccheck.tsv) or -, how the run ended:
# completed / the CUDA error the program reported / hung (killed after 25 s)).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CORPUS=$(cd "$HERE/../../tests/corpus" && pwd)
MODE=all
case "${1:-}" in build|run) MODE=$1; shift ;; esac
W=${1:?usage: corpus_missing.sh [build|run] WORK_DIR [NAME...]}
shift
mkdir -p "$W/bin" "$W/log"
if [ $# -gt 0 ]; then
  printf '%s\n' "$@" > "$W/names"
elif [ "$MODE" != run ] || [ ! -s "$W/names" ]; then
  comm -23 <(cd "$CORPUS" && ls *.cu | sed 's/\.cu$//' | sort) \
           <(grep -v '^#' "$CORPUS/synccheck.tsv" | cut -f1 | sort) > "$W/names"
fi
cd "$CORPUS"
if [ "$MODE" != run ]; then
  xargs -P 16 -I{} sh -c "nvcc -arch=sm_90a -lineinfo -DCORPUS_MAIN {}.cu -o $W/bin/{} 2> $W/log/{}.build.err" < "$W/names"
  [ "$MODE" = build ] && exit 0
fi
{ nvcc --version; compute-sanitizer --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > "$W/log/versions" 2>&1
xargs -P 4 -I{} sh -c "if [ -x $W/bin/{} ]; then timeout -s KILL 25 compute-sanitizer --tool synccheck --print-limit 20 $W/bin/{} > $W/log/{}.synccheck 2>&1; echo \"exit status \$?\" >> $W/log/{}.synccheck; else echo 'not built' > $W/log/{}.synccheck; fi" < "$W/names"

# One row per kernel, in synccheck.tsv's format.
: > "$W/rows.tsv"
while read -r n; do
  f="$W/log/$n.synccheck"
  st=$(sed -n 's/^exit status \([0-9]*\)$/\1/p' "$f" | tail -n 1)
  if grep -q '^not built' "$f"; then
    printf '%s\t-\t-\tnot built\n' "$n" >> "$W/rows.tsv"; continue
  fi
  if [ "$st" = 137 ]; then
    printf '%s\t-\t-\thung (killed after 25 s)\n' "$n" >> "$W/rows.tsv"; continue
  fi
  # "ERROR SUMMARY: N errors" (not "ERROR SUMMARY: M errors were not printed")
  errs=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors*[[:space:]]*$/\1/p' "$f" | head -n 1)
  # the first error header synccheck printed ("========= Barrier error detected. X" -> "X")
  msg=$(grep -E '^========= [^ ]' "$f" | grep -vE 'COMPUTE-SANITIZER|ERROR SUMMARY|Program hit|Target application|Saved host backtrace|Error: process didn|LEAK SUMMARY' \
        | head -n 1 | sed -e 's/^========= //' -e 's/^Barrier error detected\. *//' -e 's/[[:space:]]*$//' -e 's/\.$//')
  # how the run ended: corpus_main.h prints "KERNEL: launch X, sync Y"
  line=$(grep -E "^$n: launch " "$f" | tail -n 1)
  if [ -n "$line" ]; then
    l=$(echo "$line" | sed 's/^[^:]*: launch \(.*\), sync .*/\1/')
    s=$(echo "$line" | sed 's/.*, sync //')
    if [ "$l" = "no error" ] && [ "$s" = "no error" ]; then end=completed
    elif [ "$l" != "no error" ]; then end="$l"
    else end="$s"; fi
  else
    end="no report (exit status $st)"
  fi
  printf '%s\t%s\t%s\t%s\n' "$n" "${errs:--}" "${msg:--}" "$end" >> "$W/rows.tsv"
done < "$W/names"
cat "$W/rows.tsv"
