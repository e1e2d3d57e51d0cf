#!/usr/bin/env bash
# Attention forward (a phasegate PTX kernel) against torch SDPA's cuDNN backend (and flash, for
# reference) on this machine's GPU: checks every shape against a float32 reference, then times it.
#   bash tools/gpu-attention/run.sh PTX_FILE --smem N|D=N,... [bench.py options...]
#   bash tools/gpu-attention/run.sh PTX_FILE --smem ... --check-only     # quick first run
# The standard table: d in {64, 128} (entries attention_hd64, attention_hd128; 256 too if the PTX
# has attention_hd256, else skipped), s in {512, 2048, 8192, 16384}, causal 0 and 1, b = 16384/s,
# h = 2048/d; 7 rounds x 20 reps a side (no reduction for large s is needed: about 20 s of timed
# launches on an H100, the whole run 1-3 min; bench.py cuts reps only for a shape whose launches
# would take > 10 s, which only a very slow kernel hits). Further arguments go to bench.py after
# these defaults, so they win: --dims, --seqs, --causal, --rounds, --reps narrow the table;
# --q-rows/--kv-rows/--cta-rows/--block take N or D=N items (say for d=256); see bench.py --help.
# --smem (the kernel's dynamic shared memory, bytes) is required; SMEM=... in the environment is
# used when the arguments have none.
# Smoke test of the harness alone (entries that do nothing: every check must FAIL on NaN output):
#   bash tools/gpu-attention/run.sh tools/gpu-attention/smoke_noop.ptx --smem 1024 --check-only
# Environment: OUT (log folder; default /tmp/gpu-attention/out), PYTHON (default
#   /opt/torch/.venv/bin/python), TIMEOUT (seconds for the whole bench.py run; default 1200).
# Writes $OUT/run.log (everything), $OUT/rows.txt (the ROW/CHECK lines), $OUT/table.md, and a copy
# of the PTX. Exit status: bench.py's (0 all passed, 1 a check failed, 2 setup, 3 a launch hung;
# 124 the run timed out).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-/opt/torch/.venv/bin/python}"
out="${OUT:-/tmp/gpu-attention/out}"
if [ $# -lt 1 ] || [ ! -f "$1" ]; then
    echo "usage: bash $0 PTX_FILE --smem N|D=N,... [bench.py options...]" >&2
    [ $# -ge 1 ] && echo "FAIL no PTX file $1" >&2
    exit 2
fi
ptx="$1"
shift
extra=()
case " $* " in
    *" --smem "* | *" --smem="*) ;;
    *) [ -n "${SMEM:-}" ] && extra=(--smem "$SMEM") ;;
esac
mkdir -p "$out"
log="$out/run.log"
{
    nvidia-smi --query-gpu=name --format=csv,noheader || echo "nvidia-smi failed"
    date -u
    nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
        --format=csv 2>&1
    echo "PTX $ptx ($(wc -c < "$ptx") bytes, sha256 $(sha256sum "$ptx" | cut -c1-16)...)"
    echo "bench.py --ptx $ptx --markdown $out/table.md ${extra[*]:-} $*"
} 2>&1 | tee "$log"
cp "$ptx" "$out/" 2>/dev/null

set -o pipefail
timeout "${TIMEOUT:-1200}" "$py" -u "$here/bench.py" --ptx "$ptx" --markdown "$out/table.md" \
    ${extra[@]+"${extra[@]}"} "$@" 2>&1 | tee -a "$log"
status=$?
[ $status -eq 124 ] && echo "FAIL bench.py did not finish within ${TIMEOUT:-1200} s" | tee -a "$log"
grep -E '^(ROW|CHECK) ' "$log" > "$out/rows.txt"
# Why the clocks moved, if they did (power, thermal, ...), as the driver saw it just after.
{
    nvidia-smi -q -d PERFORMANCE 2>&1 | grep -vE "^\s*$|^=+|Timestamp|Driver Version|CUDA Version|Attached GPUs"
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv 2>&1
} | tee -a "$log"
echo "exit $status; log $log, rows $out/rows.txt, table $out/table.md" | tee -a "$log"
exit $status
