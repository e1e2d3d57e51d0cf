#!/usr/bin/env python3
"""The simulator against the H100 on kernels Triton compiled (tests/realworld/triton/).

    python3 tools/gpu-triton/cases.py prepare DIR     # inputs, PTX, cases.json (this machine)
    python3 tools/gpu-triton/launch.py DIR OUT        # the same launches on the GPU machine
    python3 tools/gpu-triton/cases.py compare DIR OUT/results.npz [PHASEGATE]

`prepare` draws fresh random inputs (a seed per case, printed), copies each kernel's PTX with
its `.version` lowered to the lowest the module needs (`phasegate check` says which: Triton 3.9
writes 9.4, newer than the CUDA 13.0 driver reads, for code it generated for 9.0), and writes
the launches. `compare` runs every case in `phasegate sim` with the same inputs (`--arg npy:`,
`--out`), and compares each buffer with what the GPU wrote: integers and exactly rounded float
operations bit for bit, others within the case's stated tolerance. Needs NumPy.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TRITON = os.path.join(ROOT, "tests", "realworld", "triton")


def case(name, ptx, entry, grid, block, shared, args, check):
    return dict(name=name, ptx=ptx, entry=entry, grid=grid, block=block, dynamic_shared=shared,
                args=args, check=check)


def cases(rng):
    out, arrays = [], {}

    def npy(name, array):
        arrays[name] = array
        return {"kind": "npy", "file": name + ".npy"}

    scratch = [{"kind": "empty"}, {"kind": "empty"}]
    for t in ("sm80", "sm90a"):
        n = 3000
        x, y = rng.uniform(-8, 8, n).astype(np.float32), rng.uniform(-8, 8, n).astype(np.float32)
        out.append(case(f"vector_add_{t}", f"vector_add_{t}.ptx", "vector_add", [3, 1, 1], [128, 1, 1], 0,
                        [npy(f"add_x_{t}", x), npy(f"add_y_{t}", y),
                         npy(f"add_out_{t}", np.full(n, np.nan, np.float32)), {"kind": "u32", "value": n}]
                        + scratch, {"2": "exact"}))
        rows, cols = 5, 777
        xs = rng.uniform(-4, 4, (rows, cols)).astype(np.float32)
        out.append(case(f"softmax_{t}", f"softmax_{t}.ptx", "softmax_rows", [2, 1, 1], [256, 1, 1], 12320,
                        [npy(f"softmax_out_{t}", np.full((rows, cols), np.nan, np.float32)),
                         npy(f"softmax_in_{t}", xs)]
                        + [{"kind": "u32", "value": v} for v in (cols, cols, rows, cols)] + scratch,
                        {"0": "ulp:4"}))
        m, nn, k = 256, 256, 128
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, nn)).astype(np.float16)
        shared = {"sm80": 98304, "sm90a": 131072}[t]
        out.append(case(f"matmul_{t}", f"matmul_{t}.ptx", "matmul", [(m // 128) * (nn // 128), 1, 1],
                        [256, 1, 1], shared,
                        [npy(f"mm_a_{t}", a), npy(f"mm_b_{t}", b),
                         npy(f"mm_c_{t}", np.full((m, nn), np.nan, np.float16))]
                        + [{"kind": "u32", "value": v} for v in (m, nn, k, k, nn, nn)] + scratch,
                        {"2": "exact"}))
    for t in ("sm80", "sm90a"):
        rows, cols = 3, 700
        xs = rng.uniform(-2, 2, (rows, cols)).astype(np.float16)
        out.append(case(f"layernorm_{t}", f"layernorm_fwd_{t}.ptx", "layernorm_fwd", [rows, 1, 1], [256, 1, 1], 32,
                        [npy(f"ln_x_{t}", xs), npy(f"ln_y_{t}", np.full((rows, cols), np.nan, np.float16)),
                         npy(f"ln_w_{t}", rng.uniform(0.5, 1.5, cols).astype(np.float32)),
                         npy(f"ln_b_{t}", rng.uniform(-1, 1, cols).astype(np.float32)),
                         npy(f"ln_mean_{t}", np.full(rows, np.nan, np.float32)),
                         npy(f"ln_rstd_{t}", np.full(rows, np.nan, np.float32)),
                         {"kind": "u32", "value": cols}, {"kind": "u32", "value": cols},
                         {"kind": "f32", "value": 1e-5}] + scratch,
                        {"1": "ulp:2", "4": "ulp:2", "5": "ulp:2"}))
    m, nn, k = 256, 256, 128
    a = rng.integers(-4, 5, (m, k)).astype(np.float16)
    bt = rng.integers(-4, 5, (nn, k)).astype(np.float16)
    out.append(case("matmul_tma_sm90a", "matmul_tma_sm90a.ptx", "matmul_tma", [4, 1, 1], [256, 1, 1], 131104,
                    [npy("tma_a", a), npy("tma_bt", bt), npy("tma_c", np.full((m, nn), np.nan, np.float16))]
                    + [{"kind": "u32", "value": v} for v in (m, nn, k)]
                    # Triton's global scratch: 384 bytes a program for the descriptors it builds.
                    + [npy("tma_scratch", np.zeros(384 * 4, np.uint8)), {"kind": "empty"}],
                    {"2": "exact"}))
    return out, arrays


def prepare(d, phasegate):
    os.makedirs(d, exist_ok=True)
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    all_cases, arrays = cases(rng)
    for name, array in arrays.items():
        np.save(os.path.join(d, name + ".npy"), array)
    for c in all_cases:
        text = open(os.path.join(TRITON, c["ptx"])).read()
        dst = os.path.join(d, c["ptx"])
        if re.search(r"^\.version 9\.[1-9]", text, flags=re.M):
            # Lowered to 8.0, `phasegate check` names the lowest version the module needs.
            low = re.sub(r"^\.version \d+\.\d+", ".version 8.0", text, count=1, flags=re.M)
            open(dst, "w").write(low)
            check = subprocess.run([phasegate, "check", dst], capture_output=True, text=True).stdout
            need = re.search(r"lowest \.version for what this module uses is (\d+\.\d+)", check)
            text = re.sub(r"^\.version \d+\.\d+", f".version {need.group(1) if need else '8.0'}",
                          text, count=1, flags=re.M)
        open(dst, "w").write(text)
    json.dump(all_cases, open(os.path.join(d, "cases.json"), "w"), indent=1)
    print(f"{len(all_cases)} cases in {d}")


def ulps(a, b):
    """Distance in units in the last place, in the arrays' own float type."""
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    sign = np.int64(1) << (8 * a.dtype.itemsize - 1)

    def ordered(x):
        i = x.view(ints).astype(np.int64)
        return np.where(i < 0, -(i & (sign - 1)), i)

    return np.abs(ordered(a) - ordered(b))


def compare(d, results, phasegate):
    gpu = np.load(results)
    all_cases = json.load(open(os.path.join(d, "cases.json")))
    work = os.path.join(d, "sim")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures, rows = 0, []
    for c in all_cases:
        cmd = [phasegate, "sim", os.path.join(d, c["ptx"]), "--kernel", c["entry"],
               "--grid", ",".join(map(str, c["grid"])), "--block", ",".join(map(str, c["block"])),
               "--dynamic-shared", str(c["dynamic_shared"])]
        for a in c["args"]:
            if a["kind"] == "npy":
                cmd += ["--arg", "npy:" + os.path.join(d, a["file"])]
            elif a["kind"] == "empty":
                cmd += ["--arg", "buf:0"]
            else:
                cmd += ["--arg", f"{a['kind']}:{a['value']}"]
        for index in c["check"]:
            cmd += ["--out", f"{index}:{os.path.join(work, c['name'] + '.' + index + '.npy')}"]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            failures += 1
            rows.append((c["name"], "-", "simulator: " + run.stdout.strip().splitlines()[-1][:120]))
            continue
        for index, rule in c["check"].items():
            key = f"{c['name']}.{index}"
            if key not in gpu:
                failures += 1
                rows.append((key, rule, "no GPU result"))
                continue
            g = gpu[key].reshape(-1)
            s = np.load(os.path.join(work, c["name"] + "." + index + ".npy")).view(g.dtype).reshape(-1)
            if rule == "exact":
                diff = int(np.count_nonzero(g.view(np.uint8) != s.view(np.uint8)))
                ok = diff == 0
                what = "bit for bit" if ok else f"{diff} bytes differ"
            else:
                limit = int(rule.split(":")[1])
                worst = int(ulps(g, s).max())
                ok = worst <= limit and not np.isnan(s).any()
                what = f"largest difference {worst} ulp (allowed {limit})"
            failures += not ok
            rows.append((key, rule, ("agree, " if ok else "DISAGREE, ") + what))
    for r in rows:
        print(f"{r[0]:<22} {r[1]:<8} {r[2]}")
    print(f"{len(rows) - failures} of {len(rows)} comparisons agree")
    return 1 if failures else 0


if __name__ == "__main__":
    pg = sys.argv[4] if len(sys.argv) > 4 else os.path.join(ROOT, "target", "release", "phasegate")
    if sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else pg)
    else:
        sys.exit(compare(sys.argv[2], sys.argv[3], pg))
