#!/usr/bin/env bash
# The hand-written Hopper GEMM (ref_gemm.cu) against cuBLAS, side by side, on this machine's GPU.
#   bash tools/gpu-gemm/run.sh [PTX ENTRY [gemm-bench options...]]
#   bash tools/gpu-gemm/run.sh --reference-only [gemm-bench options...]
# With no arguments: builds ref_gemm.cu to PTX (nvcc -ptx, sm_90a), writes the kernel's ptxas
# resource report and SASS ($OUT/NAME.sass; for a given PTX too), and runs gemm-bench on it at
# 2048³, 4096³, 8192³ and 8192×14336×4096 against cuBLASLt; pools each size's per-round ratios
# with tools/gpu-bench/ratios.py; times torch.matmul at the same sizes (a second opinion on the
# cuBLAS figure); profiles one launch of each side at 4096³ with ncu. With PTX and ENTRY: runs
# gemm-bench on that kernel instead, the further arguments passed on (its --help lists them; the
# defaults are ref_gemm's layout). With options only (first argument `--...`, e.g.
# --reference-only): cuBLASLt alone, no PTX, no SASS, its check and TFLOPS.
# fp8 (gemm-bench --dtype e4m3): A (M x K) and B (N x K) OCP e4m3, K contiguous (the TN layout
# torch._scaled_mm and cuBLASLt fp8 take), C bf16, C = bf16(scale_a * scale_b * A*B^T) with f32
# accumulation (torch._scaled_mm(a, b.t(), scale_a, scale_b, out_dtype=torch.bfloat16));
# --scale-a/--scale-b (0.5, 0.25), --fast-accum (cuBLASLt's; off by default, as torch's; with
# it cuBLASLt's result fails the check at K = 16384, as it is not f32 accumulation). The
# kernel takes tmap_a, tmap_b, tmap_c (A's and B's maps UINT8 over the fp8 bytes, K bytes a row),
# m, n, k and scale (f32 scale_a * scale_b):
#   bash tools/gpu-gemm/run.sh .device/NAME/gemm_fp8.ptx ENTRY --dtype e4m3 --block 384 \
#     --cluster 2 --smem BYTES --grid persistent --params tmap_a,tmap_b,tmap_c,m,n,k,scale \
#     --box-a 128,128 --box-b 128,128 --box-c 64,64 --swizzle-ab 128 --swizzle-c 128
#   bash tools/gpu-gemm/run.sh --reference-only --dtype e4m3      # cuBLASLt fp8 alone
# The torch timing is then torch._scaled_mm on e4m3 inputs (use_fast_accum as --fast-accum).
# naive_fp8.cu is a plain CUDA fp8 GEMM (one thread per element, no tensor cores) that checks
# the harness's fp8 PTX path end to end (its maps are encoded and passed but unused):
#   nvcc -ptx -arch=sm_90a -o /tmp/naive_fp8.ptx tools/gpu-gemm/naive_fp8.cu
#   bash tools/gpu-gemm/run.sh /tmp/naive_fp8.ptx naive_fp8 --dtype e4m3 --block 256 \
#     --grid tiles:16x16 --params tmap_a,tmap_b,tmap_c,ptr_a,ptr_b,ptr_c,m,n,k,scale
# Grouped GEMM (mixture of experts; gemm-bench --grouped SPEC, repeatable, bf16): group g has
# M_g rows; A [sum M, K] (the groups' rows concatenated), B [G, N, K] (expert g's N x K weights),
# C [sum M, N], all bf16 row-major, C_g = A_g * B_g^T with f32 accumulation. SPEC is a preset,
# `all` (the four MoE presets), or NxK:M1,M2,... (0 = an empty group):
#   moe8-4k     8 experts, N = K = 4096, 16352 tokens, ragged, one empty
#   moe8-7k     8 experts, N = 4096, K = 7168, 32643 tokens, ragged, one empty
#   moe64-up    64 experts, N = 4096, K = 7168 (DeepSeek-V3 gate/up), 64..512 tokens each, one empty
#   moe64-down  64 experts, N = 7168, K = 2048 (DeepSeek-V3 down), the same tokens
#   edges       N = 512, K = 256, M = 1,0,127,128,129,300,0,256: a quick correctness check
# The kernel's default --params are issue 21's grouped_gemm(a, b, c, a_rows, b_experts, c_rows,
# maps, offsets, groups, n, k): the maps are templates (A: dims K x sum M, B: K x N over expert
# 0, C: N x sum M; boxes --box-a/--box-b 64,128 and --box-c 64,64 by default, swizzle 128),
# maps a zeroed workspace of 6 * units 128-byte slots (units = sum_g ceil(M_g/256) * ceil(N/256);
# zeroed once, before the check launch), offsets the G + 1 u32 row prefix sums. The reference is
# the faster of a loop of cuBLASLt matmuls (one per non-empty group) and cuBLAS's
# cublasGemmGroupedBatchedEx (libcublas beside PG_CUBLASLT, or PG_CUBLAS; cuBLAS 12.5+), both
# timed and reported. Rounds go to rounds_grouped_LABEL.log; torch and ncu are skipped.
#   bash tools/gpu-gemm/run.sh .device/NAME/gemm_hopper.ptx grouped_gemm --grouped all \
#     --grouped edges --block 384 --cluster 2 --smem BYTES --grid persistent
#   bash tools/gpu-gemm/run.sh --reference-only --grouped all     # the two references alone
# naive_grouped.cu checks the grouped PTX path end to end (plain CUDA, same signature, slow):
#   nvcc -ptx -arch=sm_90a -o /tmp/naive_grouped.ptx tools/gpu-gemm/naive_grouped.cu
#   ROUNDS=1 REPS=2 bash tools/gpu-gemm/run.sh /tmp/naive_grouped.ptx naive_grouped \
#     --grouped edges --block 256 --grid 264
# Split K (gemm_skinny_split, gemm_hopper_n128_split): the kernels' partials, arrivals and splits
# parameters; gemm-bench allocates partials (--splits · M' · N' f32, M and N padded to 256) and
# arrivals (4 · ⌈M/64⌉ · ⌈N/64⌉ u32) zeroed once, passes --splits, and checks after the timed
# launches that every arrival counter is zero again:
#   bash tools/gpu-gemm/run.sh .device/NAME/gemm_skinny_split.ptx gemm_skinny_split --splits 4 \
#     --block 384 --cluster 2 --smem 196608 --grid persistent --box-a 64,32 --box-b 64,128 \
#     --box-c 64,64 --params tmap_b,tmap_a,tmap_c,n,m,k,partials,arrivals,splits
# Stream-K (gemm_hopper_stream, gemm_hopper_n192_stream): the kernels' partials, arrivals,
# whole and span parameters (`cargo run --example gemm_hopper -- --choose SIZES` prints whole,
# span and the most pieces a tile is cut into, which --splits must be at least):
#   bash tools/gpu-gemm/run.sh .device/NAME/gemm_hopper_stream.ptx gemm_hopper_stream \
#     --whole 924 --span 194 --splits 2 --block 384 --cluster 2 --smem 196608 --grid persistent \
#     --box-a 64,128 --box-b 64,128 --box-c 64,64 \
#     --params tmap_a,tmap_b,tmap_c,m,n,k,partials,arrivals,whole,span
# (run.sh passes --rounds, --reps and --sizes itself: set ROUNDS and REPS, not the options.)
# Environment: GEMM_BENCH (the binary; default: beside this script, else target/release),
#   BUILD_DIR (/tmp/gpu-gemm), OUT (where logs go; default $BUILD_DIR/out), NCU=0 skips the
#   profile, TORCH=0 the torch timing, SIZES (gemm-bench --sizes), ROUNDS, REPS, NVCC_FLAGS
#   (e.g. -DC_BUFFERS=1 -DGROUP_M_PAIRS=16: ref_gemm.cu's variants).
# The binary is built on a machine with Rust (the GPU machine has none):
#   cargo build --release -p phasegate-gemm-bench --features cuda
# Exit status: non-zero if a build, a check or a launch failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-/tmp/gpu-gemm}"
out="${OUT:-$build/out}"
rm -rf "$build/rounds"
mkdir -p "$build" "$out" "$build/rounds"
export PATH="/usr/local/cuda/bin:$PATH"

bench="${GEMM_BENCH:-}"
for b in "$here/gemm-bench" "$repo/target/release/gemm-bench"; do
    [ -z "$bench" ] && [ -x "$b" ] && bench="$b"
done
[ -z "$bench" ] && { echo "FAIL no gemm-bench binary (set GEMM_BENCH)"; exit 2; }
# A copy beside the script (as carried to the GPU machine) first, else the repository's.
ratios="$here/ratios.py"
[ -f "$ratios" ] || ratios="$repo/tools/gpu-bench/ratios.py"

# cuBLASLt 13: the toolkit's, else the one in torch's nvidia-cublas wheel.
if [ -z "${PG_CUBLASLT:-}" ]; then
    for f in /usr/local/cuda/lib64/libcublasLt.so.13 \
        $(ldconfig -p 2>/dev/null | awk '/libcublasLt\.so\.13 /{print $NF}') \
        /opt/torch/.venv/lib/python3*/site-packages/nvidia/cu13/lib/libcublasLt.so.13 \
        /opt/torch/.venv/lib/python3*/site-packages/nvidia/cublas/lib/libcublasLt.so.13; do
        [ -f "$f" ] && { export PG_CUBLASLT="$f"; break; }
    done
fi

log="$out/run.log"
{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
        --format=csv || echo "nvidia-smi failed"
    nvcc --version | tail -n 2
    echo "PG_CUBLASLT=${PG_CUBLASLT:-unset} NVCC_FLAGS=${NVCC_FLAGS:-}"
} 2>&1 | tee "$log"

sizes="${SIZES:-2048x2048x2048,4096x4096x4096,8192x8192x8192,8192x14336x4096}"
common=(--sizes "$sizes" --rounds "${ROUNDS:-9}" --reps "${REPS:-20}" --rounds-dir "$build/rounds")
status=0
# gemm-bench's options as given, for the torch timing's dtype.
case " $* " in
*" --dtype e4m3 "* | *" --dtype=e4m3 "*) dtype=e4m3 ;;
*) dtype=bf16 ;;
esac
case " $* " in
*" --fast-accum "*) fast_accum=True ;;
*) fast_accum=False ;;
esac
# The grouped mode: torch's matmul and ncu's 4096^3 profile are the plain mode's.
case " $* " in
*" --grouped "* | *" --grouped="*) grouped=1 ;;
*) grouped=0 ;;
esac
ptx=""
if [ $# -ge 1 ] && [ "${1#--}" != "$1" ]; then
    # Options only (--reference-only ...): cuBLASLt alone.
    kernel=("$@")
elif [ $# -ge 2 ]; then
    ptx="$1" entry="$2"
    shift 2
    kernel=(--ptx "$ptx" --entry "$entry" "$@")
else
    ptx="$build/ref_gemm.ptx" entry=ref_gemm
    # shellcheck disable=SC2086
    if ! nvcc -ptx -gencode=arch=compute_90a,code=sm_90a -O3 ${NVCC_FLAGS:-} -o "$ptx" "$here/ref_gemm.cu"; then
        echo "FAIL nvcc -ptx ref_gemm.cu" | tee -a "$log"
        exit 2
    fi
    cp "$ptx" "$out/ref_gemm.ptx"
    smem=$(sed -n 's/.*ref_gemm_dynamic_smem = \([0-9]*\);/\1/p' "$ptx")
    # Boxes: A and B 64 (k) x 128 rows, C 64 x 64, 128-byte swizzle (ref_gemm.cu's header).
    kernel=(--ptx "$ptx" --entry ref_gemm --block 384 --cluster 2 --smem "$smem" --grid persistent
        --params tmap_a,tmap_b,tmap_c,m,n,k --box-a 64,128 --box-b 64,128 --box-c 64,64
        --swizzle-ab 128 --swizzle-c 128)
fi

# The kernel's resources and SASS (ptxas of this machine's toolkit; the driver's JIT, which runs
# it, reports the same registers in gemm-bench's `jit:` lines).
if [ -n "$ptx" ]; then
    name="$(basename "$ptx" .ptx)"
    {
        ptxas -v -arch=sm_90a "$ptx" -o "$build/$name.cubin" 2>&1 | grep -E "registers|spill|stack|C75|rror"
        cuobjdump -sass "$build/$name.cubin" > "$out/$name.sass"
        echo "SASS: $(grep -c HGMMA "$out/$name.sass") HGMMA, $(grep -c UTMALDG "$out/$name.sass") UTMALDG, $(grep -c UTMASTG "$out/$name.sass") UTMASTG, $(grep -cE '\bLDL|\bSTL' "$out/$name.sass") local loads/stores, $(grep -c USETMAXREG "$out/$name.sass") USETMAXREG, $(grep -c MEMBAR "$out/$name.sass") MEMBAR"
    } 2>&1 | tee -a "$log"
fi

set -o pipefail
"$bench" "${kernel[@]}" "${common[@]}" 2>&1 | tee -a "$log" || { echo "FAIL gemm-bench" | tee -a "$log"; status=1; }
# Why the clocks moved, if they did (power, thermal, ...), as the driver saw it just after.
nvidia-smi -q -d PERFORMANCE 2>&1 | grep -vE "^\s*$|^=+|Timestamp|Driver Version|CUDA Version|Attached GPUs" | tee -a "$log"
for f in "$build"/rounds/rounds_*.log; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f" .log)"
    python3 "$ratios" --sides PTX cuBLAS "$f"
done 2>&1 | tee -a "$log"

if [ "${TORCH:-1}" != 0 ] && [ "$grouped" = 0 ]; then
    python3 - "$sizes" "$dtype" "$fast_accum" <<'EOF' 2>&1 | tee "$out/torch.txt" | tee -a "$log"
import sys, torch
print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())
fp8, fast = sys.argv[2] == "e4m3", sys.argv[3] == "True"
for s in sys.argv[1].split(","):
    m, n, k = map(int, s.split("x"))
    g = torch.Generator(device="cuda").manual_seed(0)
    if fp8:
        # Quarters in [-4, 4] (gemm-bench's fp8 inputs), per-tensor scales 0.5 and 0.25.
        a = torch.randint(-16, 17, (m, k), device="cuda", generator=g).float().div_(4).to(torch.float8_e4m3fn)
        b = torch.randint(-16, 17, (n, k), device="cuda", generator=g).float().div_(4).to(torch.float8_e4m3fn)
        sa = torch.tensor(0.5, device="cuda")
        sb = torch.tensor(0.25, device="cuda")
        op = lambda: torch._scaled_mm(a, b.t(), sa, sb, out_dtype=torch.bfloat16, use_fast_accum=fast)
        what = f"torch._scaled_mm e4m3 (use_fast_accum={fast})"
    else:
        a = torch.rand(m, k, device="cuda", generator=g, dtype=torch.float32).mul_(2).sub_(1).bfloat16()
        b = torch.rand(n, k, device="cuda", generator=g, dtype=torch.float32).mul_(2).sub_(1).bfloat16()
        c = torch.matmul(a, b.t())
        op = lambda: torch.matmul(a, b.t(), out=c)
        what = "torch.matmul"
    for _ in range(5):
        op()
    ts = []
    for _ in range(100):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(); op(); e1.record()
        ts.append((e0, e1))
    torch.cuda.synchronize()
    ms = sorted(e0.elapsed_time(e1) for e0, e1 in ts)[len(ts) // 2]
    print(f"{what} {s}: median {ms:.4f} ms = {2*m*n*k/ms/1e9:.1f} TFLOPS (100 launches)")
EOF
fi

if [ "${NCU:-1}" != 0 ] && [ "$grouped" = 0 ] && command -v ncu > /dev/null; then
    # One launch of each side (the check launches), real clocks.
    ncu --clock-control none --launch-count 2 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section LaunchStats --section Occupancy --section WarpStateStats --section SchedulerStats \
        "$bench" "${kernel[@]}" --sizes 4096x4096x4096 --rounds 1 --reps 1 --warmup 0 \
        > "$out/ncu.txt" 2>&1 || echo "ncu exited with $?" | tee -a "$log"
    grep -E "^  [a-zA-Z_0-9]+.*\(|Duration|SM Frequency|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit Rate|Registers Per|Achieved Occupancy|Issued Warp|No Eligible|Stall" "$out/ncu.txt" | head -80 | tee -a "$log"
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee -a "$log"
exit $status
