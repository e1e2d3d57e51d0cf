#!/usr/bin/env bash
# Writes the PTX the GPU runs read into .device/ (git-ignored; the device tool carries it):
#   .device/{scale,transpose,dot,pipeline}.ptx   for tools/gpu-check/run.sh
#   .device/latency/NAME.ptx                      one module per kernel, for tools/gpu-bench/run.sh
#   .device/latency/scale_pipeline.ptx            the pipeline again, where run.sh looks for it
# Usage: bash tools/device-ptx.sh   (from the repository root)
set -euo pipefail
mkdir -p .device/latency
from_version() { sed -n '/^\.version/,$p'; }
for k in scale transpose dot pipeline; do
    cargo run -q --example "$k" 2>/dev/null | from_version > ".device/$k.ptx"
done
cp .device/pipeline.ptx .device/latency/scale_pipeline.ptx
# examples/latency prints one module per kernel, each from `.version` on.
cargo run -q --example latency 2>/dev/null | awk '
    /^\.version/ { if (out) close(out); buf = $0 "\n"; out = ""; next }
    out == "" && /^\.visible \.entry / { name = $3; sub(/\(.*/, "", name); out = ".device/latency/" name ".ptx"; printf "%s", buf > out }
    out == "" { buf = buf $0 "\n"; next }
    { print > out }'
ls -l .device/*.ptx .device/latency/*.ptx
