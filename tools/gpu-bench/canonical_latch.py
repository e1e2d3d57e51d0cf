#!/usr/bin/env python3
"""Experiments for book/src/performance/pipeline.md: rewrite the latch of phasegate's step-1 range loops.

phasegate lowers `for i in 0..n { body }` to

    L1: body
    L2: sub.u32 d, n, i;  setp.le.u32 p, d, 1;  @p bra EXIT;  add.u32 t, i, 1;  mov.b32 i, t;  bra L1

(the overflow-safe latch that `step_by(s)` needs: exit when n - i <= s). ptxas does not see a
counted loop in it and never unrolls it. This script rewrites that latch in each PTX file of a
directory and writes the results to another directory, so that bench can time phasegate's kernels
with the loop shapes nvcc produces:

  canonical   (default) the counted-loop latch; for a step of 1 the increment cannot overflow
              (i < n), so it means the same thing:
                  L2: add.u32 i, i, 1;  setp.lt.u32 p, i, n;  @p bra L1;  bra EXIT
  --unroll 4  also replicate the body 4 times, as nvcc's front end (NVVM) does before ptxas sees
              the loop: a main loop of 4 bodies on a down-counter (the multiple of 4 below the
              rounds left), then a remainder loop of one body (labels inside the body are renamed
              per copy):
                  L1:   sub.u32 d, n, i;  and.b32 r, d, 3;  sub.u32 d, d, r;  setp.eq.u32 q, d, 0;  @q bra REM
                  MAIN: body; add i,1; body; add i,1; body; add i,1; body; add i,1
                        sub.u32 d, d, 4;  setp.ne.u32 q, d, 0;  @q bra MAIN
                  REM:  setp.ge.u32 q, i, n;  @q bra EXIT
                  RL:   body; add.u32 i, i, 1;  setp.lt.u32 q, i, n;  @q bra RL;  bra EXIT

    python3 tools/gpu-bench/canonical_latch.py [--unroll 4] .device/latency /tmp/latch
    BENCH_LATENCY_ONLY=1 /tmp/gpu-bench/bench /tmp/latch /tmp/gpu-bench/latency_ref.ptx P.ptx Q.ptx

Only latches whose step is the literal 1 are rewritten; the count of rewrites per file is printed.
The entry to the loop is left as phasegate writes it (`setp.ge.u32 p, i, n; @p bra EXIT` before L1),
so the body runs only when i < n.
"""
import os
import re
import sys

LATCH = re.compile(
    r"(?P<head>\$L__\w+):\n"
    r"\tsub\.u32 \t(?P<d>%r\d+), (?P<n>%r\d+), (?P<i>%r\d+);\n"
    r"\tsetp\.le\.u32 \t(?P<p>%p\d+), (?P=d), 1;\n"
    r"\t@(?P=p) bra \t(?P<exit>\$L__\w+);\n"
    r"\tadd\.u32 \t(?P<t>%r\d+), (?P=i), 1;\n"
    r"\tmov\.b32 \t(?P=i), (?P=t);\n"
    r"\tbra \t(?P<body>\$L__\w+);\n"
)
LABEL_DEF = re.compile(r"^(\$L__\w+):$", re.M)


def canonical(ptx):
    def repl(m):
        return (
            f"{m['head']}:\n"
            f"\tadd.u32 \t{m['i']}, {m['i']}, 1;\n"
            f"\tsetp.lt.u32 \t{m['p']}, {m['i']}, {m['n']};\n"
            f"\t@{m['p']} bra \t{m['body']};\n"
            f"\tbra \t{m['exit']};\n"
        )

    return LATCH.subn(repl, ptx)


def rename_labels(body, suffix):
    for label in LABEL_DEF.findall(body):
        body = re.sub(re.escape(label) + r"\b", label + suffix, body)
    return body


def unrolled(ptx, factor):
    count = 0
    while True:
        m = LATCH.search(ptx)
        if not m:
            break
        start = ptx.rfind(m["body"] + ":\n", 0, m.start())
        if start < 0:
            raise SystemExit(f"loop head {m['body']} not found before its latch")
        body = ptx[start + len(m["body"]) + 2 : m.start()]
        i, n, ex, top = m["i"], m["n"], m["exit"], m["body"]
        k = count
        d, q = f"%ud{k}", f"%uq{k}"
        main, rem, rl = f"{top}_main", f"{top}_rem", f"{top}_rl"
        step = f"\tadd.u32 \t{i}, {i}, 1;\n"
        r = f"%ur{k}"
        out = (f"{top}:\n\tsub.u32 \t{d}, {n}, {i};\n\tand.b32 \t{r}, {d}, {factor - 1};\n\tsub.u32 \t{d}, {d}, {r};\n"
               f"\tsetp.eq.u32 \t{q}, {d}, 0;\n\t@{q} bra \t{rem};\n")
        out += f"{main}:\n"
        for c in range(factor):
            out += rename_labels(body, f"_u{c}") + step
        out += f"\tsub.u32 \t{d}, {d}, {factor};\n\tsetp.ne.u32 \t{q}, {d}, 0;\n\t@{q} bra \t{main};\n"
        out += f"{rem}:\n\tsetp.ge.u32 \t{q}, {i}, {n};\n\t@{q} bra \t{ex};\n"
        out += f"{rl}:\n" + rename_labels(body, "_r") + step
        out += f"\tsetp.lt.u32 \t{q}, {i}, {n};\n\t@{q} bra \t{rl};\n\tbra \t{ex};\n"
        ptx = ptx[:start] + out + ptx[m.end():]
        count += 1
    if count:
        decl = "".join(f"\t.reg .b32 %ud{k};\n\t.reg .b32 %ur{k};\n\t.reg .pred %uq{k};\n" for k in range(count))
        ptx = re.sub(r"(\n\t\.reg [^\n]*\n)(?!\t\.reg)", lambda mm: mm.group(1) + decl, ptx, count=1)
    return ptx, count


def main():
    args = sys.argv[1:]
    factor = 0
    if args[:1] == ["--unroll"]:
        factor = int(args[1])
        args = args[2:]
    if len(args) != 2 or factor == 1 or factor < 0 or factor & (factor - 1):
        sys.exit("usage: canonical_latch.py [--unroll N] SRC_DIR DST_DIR   (N a power of 2, >= 2)")
    src, dst = args
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".ptx"):
            continue
        with open(os.path.join(src, name)) as f:
            text = f.read()
        out, n = unrolled(text, factor) if factor else canonical(text)
        with open(os.path.join(dst, name), "w") as f:
            f.write(out)
        print(f"{name}: {n} latch(es) rewritten" + (f", body unrolled x{factor}" if factor and n else ""))


if __name__ == "__main__":
    main()
