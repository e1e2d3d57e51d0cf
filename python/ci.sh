#!/usr/bin/env bash
# The Python package's CI: builds the phasegate wheel with maturin, installs it with NumPy,
# pytest and Triton 3.9.0 into a fresh virtual environment, and runs python/tests (lint,
# simulate, the CLI entry point, the Triton hook). No GPU is needed: Triton compiles for sm_90
# on the CPU. Work files go to $PHASEGATE_PY_WORK (kept), or to a temporary directory that is
# removed at the end. The Rust build uses the workspace's target/ (release profile).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ -n "${PHASEGATE_PY_WORK:-}" ]; then
    work=$PHASEGATE_PY_WORK
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
pip_install() { "$1/bin/python" -m pip install --quiet --disable-pip-version-check "${@:2}"; }

start=$SECONDS
echo "python/ci.sh: building the wheel (maturin 1.16.0, release) in $work"
rm -rf "$work/build-venv" "$work/wheels" "$work/venv"
python3 -m venv "$work/build-venv"
pip_install "$work/build-venv" maturin==1.16.0
"$work/build-venv/bin/maturin" build --release --quiet -m python/Cargo.toml -o "$work/wheels" \
    --interpreter python3
echo "python/ci.sh: wheel built after $((SECONDS - start)) s: $(ls "$work"/wheels)"

python3 -m venv "$work/venv"
pip_install "$work/venv" "$work"/wheels/phasegate-*.whl numpy pytest triton==3.9.0
echo "python/ci.sh: installed after $((SECONDS - start)) s"

# Run from outside the source tree so that `import phasegate` finds the installed wheel, not
# python/phasegate (which has no extension module).
cd "$work"
export TRITON_CACHE_DIR="$work/triton-cache" TRITON_DEFAULT_FP_FUSION=1
"$work/venv/bin/pytest" -q -p no:cacheprovider "$root/python/tests"
echo "python/ci.sh: done after $((SECONDS - start)) s"
