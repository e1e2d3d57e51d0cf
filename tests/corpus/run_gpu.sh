#!/usr/bin/env bash
# Builds the corpus on a machine with nvcc and a GPU: the PTX committed in ptx/ (nvcc -ptx
# -lineinfo, sm_90a) and, for every kernel, an executable run once under
# `compute-sanitizer --tool synccheck` (25 s limit: a hung kernel is killed). Everything lands
# in $OUT/corpus.tar.gz (ptx/*.ptx, log/NAME.{ptx,build}.err, log/NAME.synccheck, log/versions).
set -u
cd "$(dirname "$0")"
W=/tmp/corpus-gpu
rm -rf "$W" && mkdir -p "$W/ptx" "$W/bin" "$W/log"
{ nvcc --version; compute-sanitizer --version; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; } > "$W/log/versions" 2>&1
ls *.cu | sed 's/\.cu$//' > "$W/names"
xargs -P 16 -I{} sh -c "nvcc -ptx -arch=sm_90a -lineinfo {}.cu -o $W/ptx/{}.ptx 2> $W/log/{}.ptx.err" < "$W/names"
xargs -P 16 -I{} sh -c "nvcc -arch=sm_90a -lineinfo -DCORPUS_MAIN {}.cu -o $W/bin/{} 2> $W/log/{}.build.err" < "$W/names"
xargs -P 4 -I{} sh -c "if [ -x $W/bin/{} ]; then timeout -s KILL 25 compute-sanitizer --tool synccheck --print-limit 20 $W/bin/{} > $W/log/{}.synccheck 2>&1; echo \"exit status \$?\" >> $W/log/{}.synccheck; else echo 'not built' > $W/log/{}.synccheck; fi" < "$W/names"
tar czf "${OUT:-/tmp}/corpus.tar.gz" -C "$W" ptx log
ls "$W/ptx" | wc -l
grep -l "exit status 0" "$W"/log/*.synccheck | wc -l
