#!/usr/bin/env bash
# Runs every gpu-witness program on a machine with an sm_90 GPU (H100/H200), nvcc and
# compute-sanitizer, from anywhere:   bash tools/gpu-witness/run.sh
# `bash tools/gpu-witness/run.sh extra` runs the follow-up checks instead (README.md).
#
# Programs are taken from BIN (default .device/gpu-witness, made by build.sh on a machine with
# nvcc and no GPU); any missing one is built here (the CUTLASS ones need CUTLASS 4.2.0's headers
# in CUTLASS_HEADERS, default .device/cutlass-headers). Logs go to OUT (default
# /tmp/gpu-witness-out): versions.txt, epilogue.log, uninit.log, cutlass.log, corpus_rows.tsv,
# corpus_logs.tar.gz, summary.txt. Every program runs under a time limit; the whole script takes
# about 1-5 minutes (65 s on an H200; hung corpus kernels take 25 s each).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-/tmp/gpu-witness-out}
BIN=${BIN:-$ROOT/.device/gpu-witness}
W=${WORK:-/tmp/gpu-witness}
mkdir -p "$OUT" "$W"
export PATH="$PATH:/usr/local/cuda/bin"
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 )) s] $*"; }

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  nvcc --version | tail -n 2; compute-sanitizer --version | grep -i version; date -u; uname -r; } > "$OUT/versions.txt" 2>&1
cat "$OUT/versions.txt"

# ---- follow-ups (bash tools/gpu-witness/run.sh extra): run after the main run's results -----
if [ "${1:-}" = extra ]; then
  X="$OUT/extra.log"
  {
    stamp "extra: corpus builds"
    R="abd_data_dependent abd_lane_counted abd_tid_branch mw_double_arrive mw_loop_no_wait mw_producer_no_empty_wait uninit_after_inval uninit_no_barrier uninit_use_before_init"
    bash "$HERE/corpus_missing.sh" build "$W/extra" ok_tail_duplicated_sync $R > "$W/extra_build.log" 2>&1
    echo "## ok_tail_duplicated_sync: SASS barriers"
    cuobjdump --dump-sass "$W/extra/bin/ok_tail_duplicated_sync" | grep -E 'BAR|EXIT' | sed 's@/\* 0x[0-9a-f]* \*/@@'
    echo "## ok_tail_duplicated_sync: 5 runs without compute-sanitizer"
    for i in 1 2 3 4 5; do timeout -s KILL 25 "$W/extra/bin/ok_tail_duplicated_sync"; echo "exit status $?"; done
    echo "## uninit_other_warpgroup bug, no forced delay: 5 trials, own process each"
    for i in 1 2 3 4 5; do timeout -s KILL 15 "$BIN/uninit_other_warpgroup" bug 0; echo "exit status $?"; done
    echo "## uninit_other_warpgroup bug, 2000 us delay, one CTA (the corpus launch): 5 trials"
    for i in 1 2 3 4 5; do timeout -s KILL 15 "$BIN/uninit_other_warpgroup" bug 2000 1; echo "exit status $?"; done
    echo "## uninit_other_warpgroup bug, 2000 us delay, 8 CTAs, under compute-sanitizer synccheck"
    timeout -s KILL 60 compute-sanitizer --tool synccheck --print-limit 3 "$BIN/uninit_other_warpgroup" bug 2000 8 > "$W/uninit_sc.log" 2>&1
    echo "exit status $?"; grep -vE 'Host Frame|^=========[[:space:]]*$' "$W/uninit_sc.log" | head -n 30
    echo "## cutlass_cpasync_epilogue M=N=128 K=64 (one CTA, one k-tile) beta=1, then beta=0"
    timeout -s KILL 60 "$BIN/cutlass_cpasync_epilogue" 128 128 64 1 1 1 5; echo "exit status $?"
    timeout -s KILL 60 "$BIN/cutlass_cpasync_epilogue" 128 128 64 1 0 1 5; echo "exit status $?"
    echo "## synccheck again: ok_tail_duplicated_sync and the synccheck.tsv rows with counts over 20"
    bash "$HERE/corpus_missing.sh" run "$W/extra" > "$W/extra_run.log" 2>&1
    for n in $(cat "$W/extra/names"); do
      echo "$n: $(grep -hE 'ERROR SUMMARY' "$W/extra/log/$n.synccheck" | sed 's/=========//' | tr '\n' ';')"
    done
    cat "$W/extra/rows.tsv"
    stamp "extra: done"
  } > "$X" 2>&1
  tar czf "$OUT/extra_corpus_logs.tar.gz" -C "$W/extra" names log
  cat "$X"
  exit 0
fi

# Task 4's builds run on the CPUs while the GPU runs tasks 1-3.
bash "$HERE/corpus_missing.sh" build "$W/corpus" > "$W/corpus_build.log" 2>&1 &
CORPUS_BUILD=$!

# Build what was not carried.
mkdir -p "$BIN"
for p in epilogue_double_arrive uninit_other_warpgroup; do
  [ -x "$BIN/$p" ] || { stamp "building $p"; bash "$HERE/build.sh" "$BIN" small; break; }
done
for p in cutlass_cpasync_epilogue cutlass_tma_control; do
  [ -x "$BIN/$p" ] || { stamp "building the CUTLASS programs"; bash "$HERE/build.sh" "$BIN" cutlass; break; }
done

# ---- 1. FlashInfer epilogue: bar.arrive + bar.sync on barrier 1 -----------------------------
E="$OUT/epilogue.log"
stamp "1. epilogue_double_arrive"
{
  echo "## SASS of the two kernels (barrier instructions)"
  cuobjdump --dump-sass "$BIN/epilogue_double_arrive" 2>&1 | grep -E 'Function|BAR\.' | sed 's@/\* 0x[0-9a-f]* \*/@@'
  echo "## bug: warp 5 delayed 30 us, 1000 launches"
  timeout -s KILL 60 "$BIN/epilogue_double_arrive" bug 1000 30 5; echo "exit status $?"
  echo "## control: same, bar.sync 1,384 only"
  timeout -s KILL 60 "$BIN/epilogue_double_arrive" ctrl 1000 30 5; echo "exit status $?"
  echo "## bug, no forced delay (informational)"
  timeout -s KILL 60 "$BIN/epilogue_double_arrive" bug 1000 0 5; echo "exit status $?"
  echo "## bug, warp 0 delayed 30 us instead of warp 5"
  timeout -s KILL 60 "$BIN/epilogue_double_arrive" bug 1000 30 0; echo "exit status $?"
  echo "## compute-sanitizer synccheck on the bug kernel (3 launches, 8 CTAs)"
  timeout -s KILL 60 compute-sanitizer --tool synccheck --print-limit 5 "$BIN/epilogue_double_arrive" bug 3 30 5 8 > "$W/epi_synccheck.log" 2>&1
  echo "exit status $?"; tail -n 25 "$W/epi_synccheck.log"
} > "$E" 2>&1
grep -E '^RESULT|^##' "$E"

# ---- 3. uninitialised mbarrier (other warp group) -------------------------------------------
U="$OUT/uninit.log"
stamp "3. uninit_other_warpgroup"
{
  for v in bug ctrl; do
    for i in 1 2 3 4 5 6 7 8 9 10; do
      echo "## $v trial $i (own process; warp 0 delayed 2000 us)"
      timeout -s KILL 15 "$BIN/uninit_other_warpgroup" "$v" 2000; rc=$?
      echo "exit status $rc"
      [ $rc = 137 ] && echo "RESULT uninit $v: killed after 15 s"
    done
  done
} > "$U" 2>&1
grep -E '^RESULT' "$U" | sort | uniq -c

# ---- 2. CUTLASS CpAsync GEMM with a TMA epilogue loading C ----------------------------------
C="$OUT/cutlass.log"
stamp "2. CUTLASS"
{
  run() {  # BIN_NAME BETA SEED
    echo "## $1 M=N=K=512 alpha=1 beta=$2 seed $3 (own process, watchdog 5 s)"
    timeout -s KILL 60 "$BIN/$1" 512 512 512 1 "$2" "$3" 5; rc=$?
    echo "exit status $rc"
    [ $rc = 137 ] && echo "RESULT $1 beta=$2: killed after 60 s"
  }
  run cutlass_cpasync_epilogue 0 1
  run cutlass_cpasync_epilogue 1 1
  run cutlass_cpasync_epilogue 1 2
  run cutlass_cpasync_epilogue 1 3
  run cutlass_tma_control 1 1
  run cutlass_tma_control 1 2
  run cutlass_tma_control 0 1
  run cutlass_cpasync_epilogue 0 2
} > "$C" 2>&1
grep -E '^RESULT' "$C"

# ---- 4. corpus kernels without a synccheck row ----------------------------------------------
stamp "4. corpus (waiting for its builds)"
wait $CORPUS_BUILD
bash "$HERE/corpus_missing.sh" run "$W/corpus" > "$W/corpus_run.log" 2>&1
# A kernel killed with its compute-sanitizer may leave the program itself running: list and end
# those (only processes of this script's corpus binaries, by process id).
for p in /proc/[0-9]*; do
  case "$(readlink "$p/exe" 2>/dev/null)" in
    "$W/corpus/bin/"*) echo "left running after the 25 s kill: $(readlink "$p/exe") (pid ${p#/proc/}); ending it" \
                         | tee -a "$W/corpus/log/leftovers"; kill -9 "${p#/proc/}" 2>/dev/null ;;
  esac
done
cp "$W/corpus/rows.tsv" "$OUT/corpus_rows.tsv"
cat "$W/corpus_build.log" >> "$W/corpus/log/build.log" 2>/dev/null
tar czf "$OUT/corpus_logs.tar.gz" -C "$W/corpus" names log
cat "$OUT/corpus_rows.tsv"

stamp "done"
{
  cat "$OUT/versions.txt"
  grep -hE "^RESULT|^CUDA error|^HANG" "$E" "$U" "$C"
  echo "corpus rows:"; cat "$OUT/corpus_rows.tsv"
  echo "total $(( $(date +%s) - T0 )) s"
} > "$OUT/summary.txt"
