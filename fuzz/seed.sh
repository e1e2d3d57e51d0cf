#!/usr/bin/env bash
# Seeds fuzz/corpus/{read,lint,cli_lint,sim} with every PTX file of the test fixtures and the
# nvcc corpus, and with the PTX that the examples print (one file per module).
#
#   bash fuzz/seed.sh            # from the repository root
#
# The corpora are not committed (see .gitignore): libFuzzer grows them in place, and this
# script makes the starting point reproducible.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT

for f in tests/fixtures/ptx/*.ptx; do cp "$f" "$seeds/fixture-$(basename "$f")"; done
for f in tests/corpus/ptx/*.ptx; do cp "$f" "$seeds/corpus-$(basename "$f")"; done
for f in tests/sim/*.ptx; do cp "$f" "$seeds/sim-$(basename "$f")"; done

# The examples print a comment header and one or more modules; each `.version` starts one.
for e in cluster_exchange dot latency pipeline popc_count producer_consumer scale transpose; do
    cargo run --quiet --example "$e" 2>/dev/null \
        | awk -v out="$seeds/example-$e" '/^\.version/ { n++ } n { print > (out "-" n ".ptx") }'
done

for target in read lint cli_lint sim; do
    mkdir -p "fuzz/corpus/$target"
    cp "$seeds"/*.ptx "fuzz/corpus/$target/"
done
echo "seeded $(ls "$seeds" | wc -l) files into fuzz/corpus/{read,lint,cli_lint,sim}"
