#!/usr/bin/env bash
# The attention table of book/src/performance/attention.md: every head dimension, length and
# causal setting, each run by the kernel examples/attention_hopper.rs's `Kernel::for_problem`
# picks (hdim 64: the 128-row kernel up to 1024 causal tokens, the 192-row one otherwise;
# hdim 128: key tiles of 176 rows without a mask from 4096 tokens, of 128 otherwise), against
# cuDNN.
#   cargo run --release --example attention_hopper -- --emit tools/gpu-attention/ptx   # here
#   bash tools/gpu-attention/table.sh [PTX_DIR] [bench.py options...]              # GPU machine
# PTX_DIR (default tools/gpu-attention/ptx) holds the kernels and kernels.txt (name, head
# dimension, dynamic shared memory, query rows, key rows, threads). Writes $OUT/NAME/ per
# kernel (run.sh's logs) and $OUT/table.md, all rows in one table. DTYPE=f16 in the environment
# runs the f16 kernels (NAME_f16.ptx, which --emit writes beside them) against cuDNN in f16.
set -u
dtype="${DTYPE:-bf16}"
suffix=""
[ "$dtype" = f16 ] && suffix="_f16"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:-$here/ptx}"
[ $# -ge 1 ] && shift
out="${OUT:-/tmp/gpu-attention/out}"
[ -f "$dir/kernels.txt" ] || { echo "FAIL no $dir/kernels.txt (emit the kernels first)"; exit 2; }
status=0
while read -r name d smem qrows krows threads; do
    # "causal:seqs" runs of this kernel.
    case "$name" in
        attention_hd64_short) runs="1:512" ;;
        attention_hd64) runs="0:512,2048,8192,16384 1:2048,8192,16384" ;;
        attention_hd128) runs="0:512,2048 1:512,2048,8192,16384" ;;
        attention_hd128_wide) runs="0:8192,16384" ;;
        *) runs="0,1:512,2048,8192,16384" ;;
    esac
    for r in $runs; do
        OUT="$out/$name/${r%%:*}" bash "$here/run.sh" "$dir/$name$suffix.ptx" --entry "$name$suffix" \
            --dims "$d" --causal "${r%%:*}" --seqs "${r##*:}" --smem "$smem" --q-rows "$qrows" \
            --cta-rows "$qrows" --kv-rows "$krows" --block "$threads" --dtype "$dtype" "$@" \
            > /dev/null 2>&1
        rc=$?
        [ $rc = 0 ] || status=1
        echo "$name causal ${r%%:*}: exit $rc ($out/$name/${r%%:*}/run.log)"
    done
done < "$dir/kernels.txt"
# Every kernel's rows in the order of kernels.txt, under the header of the first table written.
tables=()
while read -r name _; do
    for t in "$out/$name"/*/table.md; do
        [ -f "$t" ] && tables+=("$name $t")
    done
done < "$dir/kernels.txt"
{
    [ ${#tables[@]} -gt 0 ] && awk '/^\| d \|/ { print "| kernel " $0; next } /^\|--/ { print "|:--" $0; next }
        /^\| [0-9]/ { exit } { print }' "${tables[0]#* }"
    for entry in "${tables[@]}"; do
        grep -E '^\| [0-9]' "${entry#* }" | sed "s/^/| ${entry%% *} /"
    done
} > "$out/table.md"
cat "$out/table.md"
exit $status
