#!/usr/bin/env python3
"""Prints the per-kernel tables of tests/corpus/README.md ("Buggy kernels", "Correct kernels")
from the kernels' `// expect:` labels and first comments, `phasegate lint --format json` on
ptx/NAME.ptx (the binary in $PHASEGATE, default target/release/phasegate) and synccheck.tsv.

    python3 tests/corpus/tables.py > /tmp/tables.md
"""
import json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.environ.get("PHASEGATE", os.path.join(ROOT, "target/release/phasegate"))


def kernels():
    for f in sorted(os.listdir(HERE)):
        if not f.endswith(".cu"):
            continue
        text = open(os.path.join(HERE, f)).read()
        label = re.search(r"// expect:\s*(.*)", text).group(1).strip()
        comment = []
        for line in text.splitlines():
            if not line.startswith("//") or line.startswith("// expect:"):
                break
            comment.append(line[2:].strip())
        yield f[:-3], label, " ".join(comment)


def synccheck():
    rows = {}
    for line in open(os.path.join(HERE, "synccheck.tsv")):
        if line.startswith("#") or not line.strip():
            continue
        name, count, what, end = line.rstrip("\n").split("\t")
        rows[name] = (count, what, end)
    return rows


def phasegate(name):
    out = subprocess.run([BIN, "lint", "--format", "json", os.path.join(HERE, "ptx", name + ".ptx")],
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        d = json.loads(line)
        kind = "deny" if d["level"] == "deny" else "warn"
        if kind == "deny" and "witness" in d:
            kind = "deny, witness"
        elif d["message"].endswith("(unproven)"):
            kind = "warn, unproven"
        found.setdefault((d["lint"], kind), 0)
        found[(d["lint"], kind)] += 1
    if not found:
        return "nothing"
    return "; ".join(f"`{l}` ({k})" + (f" ×{n}" if n > 1 else "") for (l, k), n in sorted(found.items()))


def sync_text(row):
    if row is None:
        return "not run"
    count, what, end = row
    found = "nothing found" if count in ("0", "-") else f"{count} × \"{what}\""
    if end == "completed":
        return f"{found}; run completes"
    if end.startswith("hung"):
        return "hangs (killed after 25 s)"
    return f"{found}; run: {end}"


def main():
    rows = synccheck()
    buggy, clean = [], []
    for name, label, what in kernels():
        line = f"| `{name}` | `{label}` | {phasegate(name)} | {sync_text(rows.get(name))} | {what} |"
        (clean if label == "clean" else buggy).append(line)
    print("### Buggy kernels\n")
    print("| kernel | label | phasegate (level, witness) | compute-sanitizer synccheck | what it does |")
    print("|---|---|---|---|---|")
    print("\n".join(buggy))
    print("\n### Correct kernels\n")
    print("| kernel | phasegate | compute-sanitizer synccheck | what it does |")
    print("|---|---|---|---|")
    for line in clean:
        cells = line.split(" | ")
        print(" | ".join([cells[0]] + cells[2:]))


if __name__ == "__main__":
    sys.exit(main())
