#!/usr/bin/env python3
"""Runs corpus PTX on the GPU exactly as phasegate's simulator runs it (GPU machine side).

    python3 tools/gpu-triton/launch.py CASES_DIR OUT_DIR

CASES_DIR holds cases.json (written by tools/gpu-triton/cases.py) with, per case, the PTX
file, the entry, the launch shape and the arguments (buffers as .npy files, scalars with their
PTX type). Each PTX file is loaded through the CUDA driver (CuPy's RawModule), launched once
with those arguments, and every buffer argument is read back: OUT_DIR/results.npz holds
`CASE.ARGINDEX` arrays. Errors of one case are reported and the others still run.
"""
import json
import os
import sys
import traceback

import cupy
import numpy as np

SCALARS = {"u32": np.uint32, "i32": np.int32, "u64": np.uint64, "i64": np.int64,
           "f32": np.float32, "f64": np.float64}


def run_case(case, cases_dir):
    module = cupy.RawModule(path=os.path.join(cases_dir, case["ptx"]))
    func = module.get_function(case["entry"])
    shared = int(case.get("dynamic_shared", 0))
    if shared > 48 * 1024:
        func.max_dynamic_shared_size_bytes = shared
    args, buffers = [], {}
    for i, arg in enumerate(case["args"]):
        if arg["kind"] == "npy":
            host = np.load(os.path.join(cases_dir, arg["file"]))
            dev = cupy.asarray(host)
            buffers[i] = dev
            args.append(dev)
        elif arg["kind"] == "empty":
            # Triton's scratch pointers: a null pointer of 0 bytes.
            args.append(np.uint64(0))
        else:
            args.append(SCALARS[arg["kind"]](arg["value"]))
    func(tuple(case["grid"]), tuple(case["block"]), tuple(args), shared_mem=shared)
    cupy.cuda.runtime.deviceSynchronize()
    return {f"{case['name']}.{i}": cupy.asnumpy(b) for i, b in buffers.items()}


def main():
    cases_dir, out_dir = sys.argv[1], sys.argv[2]
    with open(os.path.join(cases_dir, "cases.json")) as f:
        cases = json.load(f)
    results, failed = {}, 0
    for case in cases:
        try:
            results.update(run_case(case, cases_dir))
            print(f"ran {case['name']}")
        except Exception:
            failed += 1
            print(f"FAILED {case['name']}:\n{traceback.format_exc()}")
    np.savez(os.path.join(out_dir, "results.npz"), **results)
    print(f"{len(cases) - failed} of {len(cases)} cases ran on {cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()}")


if __name__ == "__main__":
    main()
