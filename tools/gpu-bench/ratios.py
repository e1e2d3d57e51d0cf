#!/usr/bin/env python3
"""Pools the per-round bandwidth ratios of several bench runs.

    python3 tools/gpu-bench/ratios.py [--sides NAME BASE] LOG...

Each bench log has one `ROUND r ratio X again Y` line per round: X is phasegate's bandwidth over
the CUDA C++ kernel's in that round, Y the CUDA C++ kernel timed as a third side over itself
(the same kernel, so Y differs from 1 only by what the harness cannot resolve). Prints, for
both, the number of rounds, the mean with a 95 % confidence interval (normal approximation),
the standard deviation, and the range. The phasegate/CUDA ratio is told apart from 1 only where
its interval excludes 1 and does not overlap the CUDA-against-itself interval.
--sides names the two sides in the output (default: phasegate CUDA); tools/gpu-gemm's logs
are the PTX kernel against cuBLAS.
"""
import math
import re
import sys

ROUND = re.compile(r"^ROUND \d+ ratio ([0-9.]+) again ([0-9.]+)$")


def summary(name, xs):
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else float("nan")
    half = 1.96 * sd / math.sqrt(n) if n > 1 else float("nan")
    print(f"{name:<24} rounds {n:4d}  mean {mean:.5f}  95% CI [{mean - half:.5f}, {mean + half:.5f}]"
          f"  sd {sd:.5f}  range {min(xs):.5f}..{max(xs):.5f}")


def main(paths):
    side, base = "phasegate", "CUDA"
    if paths[:1] == ["--sides"]:
        if len(paths) < 3:
            print("--sides takes two names", file=sys.stderr)
            return 2
        side, base, paths = paths[1], paths[2], paths[3:]
    if not paths:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    ratio, again = [], []
    for path in paths:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                m = ROUND.match(line.strip())
                if m:
                    ratio.append(float(m.group(1)))
                    again.append(float(m.group(2)))
    if not ratio:
        print("no ROUND lines in " + " ".join(paths), file=sys.stderr)
        return 1
    print(f"{len(paths)} logs")
    summary(f"{side} / {base}", ratio)
    summary(f"{base} again / {base}", again)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
