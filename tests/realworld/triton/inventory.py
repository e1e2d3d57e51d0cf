#!/usr/bin/env python3
"""Inventory of the PTX in this directory: opcodes, directives, operand syntax.

    python3 tests/realworld/triton/inventory.py > tests/realworld/triton/INVENTORY.txt

A deliberately simple line/statement scanner (not a PTX parser): comments are
stripped, lines are split on ';', leading labels and scope braces are peeled
off, then the first token decides directive vs. instruction.
"""

import collections
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# PTX identifiers contain no '.', and "a::b" state-space qualifiers must not
# be mistaken for labels.
LABEL = re.compile(r"^([$A-Za-z_%][$\w]*)\s*:(?!:)\s*")
MAX_EXAMPLES = 3


def strip_comment(line):
    out, q = [], False
    i = 0
    while i < len(line):
        ch = line[i]
        if ch == '"':
            q = not q
        if not q and line.startswith("//", i):
            break
        out.append(ch)
        i += 1
    return "".join(out)


# (category, predicate on (opcode, operand text, full statement))
SYNTAX = [
    ("braced vector operand {..}", lambda op, rest, s: "{" in rest and "[" not in rest.split("{")[0][-2:]),
    ("address with vector coords [%rd, {..}]", lambda op, rest, s: re.search(r"\[[^\]]*\{", rest)),
    ("address with spaces/offset [ %r + N ]", lambda op, rest, s: re.search(r"\[ \S+ \+ -?\d+ \]", rest)),
    ("address reg+imm no spaces [%r+N]", lambda op, rest, s: re.search(r"\[%\w+\+-?\d+\]", rest)),
    ("pair destination %r|%p", lambda op, rest, s: re.search(r"%\w+\|%\w+", rest)),
    ("sink operand _", lambda op, rest, s: re.search(r"(^|[\s,])_(,|\s|$)", rest)),
    ("negated predicate guard @!", lambda op, rest, s: s.startswith("@!")),
    ("guard on non-% predicate name", lambda op, rest, s: re.match(r"@!?[A-Za-z_]", s)),
    ("non-% register/label operand (inline-asm local)", lambda op, rest, s: re.search(
        r"(^|[\s,\[])(complete|waitLoop|skipWait|p|pred|tmp)\b", rest) and not op.startswith("bra")),
    ("branch to inline-asm local label", lambda op, rest, s: op.startswith("bra") and not rest.strip().startswith("$")),
    ("hex integer immediate 0x..", lambda op, rest, s: re.search(r"\b0x[0-9a-fA-F]+", rest)),
    ("hex float immediate 0f/0d", lambda op, rest, s: re.search(r"\b0[fFdD][0-9a-fA-F]{8,16}\b", rest)),
    ("special register %tid/%ctaid/...", lambda op, rest, s: re.search(r"%(tid|ntid|ctaid|nctaid|laneid|warpid|"
                                                                       r"clusterid|cluster_ctaid|smid|clock|globaltimer|"
                                                                       r"envreg|dynamic_smem|total_smem|lanemask)", rest)),
    ("symbol operand (global_smem etc.)", lambda op, rest, s: re.search(r"\bglobal_smem\b", rest)),
    ("call / prototype", lambda op, rest, s: op.startswith("call") or "prototype" in s),
    ("vector ld/st .v2/.v4/.v8", lambda op, rest, s: re.search(r"\.v(2|4|8)\b", op)),
    ("wide brace list (>16 regs)", lambda op, rest, s: any(len(g.split(",")) > 16 for g in re.findall(r"\{([^}]*)\}", rest))),
    ("inline-asm scoped block { .reg ...; }", lambda op, rest, s: False),  # filled separately
    ("indirect branch brx.idx via jump table", lambda op, rest, s: op.startswith("brx")),
]

# (category, predicate on (directive statement, inside inline asm))
DIRECTIVE_SYNTAX = [
    ("jump table: label + .branchtargets list", lambda s, a: s.startswith(".branchtargets")),
    ("byval param .param .align N .b8 name[N] (CUtensorMap)", lambda s, a: re.match(r"\.param \.align \d+ \.b8 \w+\[\d+\]", s)),
    ("pointer param attrs .param .u64 .ptr .global .align N", lambda s, a: ".ptr" in s),
    ("global with initializer = {..}", lambda s, a: s.startswith(".global") and "=" in s),
    ("extern dynamic shared array .extern .shared ... name[]", lambda s, a: s.startswith(".extern") and "[]" in s),
    (".reg declared inside inline-asm scope", lambda s, a: a and s.startswith(".reg")),
    ("register range decl .reg .T %r<N>", lambda s, a: re.match(r"\.reg \.\w+\s+%\w+<\d+>", s)),
]


def scan(path, stats):
    in_asm = False
    in_section = False
    scope_depth = 0
    with open(path) as f:
        lines = f.read().splitlines()
    # Join multi-line statements that are not one-per-line (".branchtargets"
    # jump tables list one target per line up to the terminating ';').
    joined, buf = [], None
    for raw in lines:
        code = strip_comment(raw).strip()
        if buf is not None:
            buf += " " + code
            if ";" in code:
                joined.append(buf)
                buf = None
            continue
        if code.startswith(".branchtargets") and ";" not in code:
            buf = raw.rstrip()
            continue
        joined.append(raw)
    lines = joined
    for raw in lines:
        if "begin inline asm" in raw:
            in_asm = True
        elif "end inline asm" in raw:
            in_asm = False
        line = strip_comment(raw).strip()
        if not line:
            continue
        if line.startswith(".section"):
            sec = line.split()[1]
            stats["sections"][sec] += 1
            add_example(stats["directive_examples"], ".section " + sec, raw.strip(), path)
            if "{" in line and "}" in line:
                continue
            in_section = True
            stats["directives"][".section"] += 1
            continue
        if in_section:
            if line == "{":
                continue
            if line == "}":
                in_section = False
                continue
            tok = line.split()[0]
            stats["section_data"][tok] += 1
            add_example(stats["section_data_examples"], tok, raw.strip(), path)
            continue
        for stmt in line.split(";"):
            s = stmt.strip()
            while True:
                m = LABEL.match(s)
                if m and not s.startswith("."):
                    lab = m.group(1)
                    kind = "label ($L__...)" if lab.startswith("$") else "label (plain name, inline-asm local)"
                    stats["syntax"][kind] += 1
                    add_example(stats["examples"], kind, raw.strip(), path)
                    s = s[m.end():].strip()
                    continue
                if s.startswith("{") and in_asm:
                    stats["syntax"]["inline-asm scoped block { .reg ...; }"] += 1
                    add_example(stats["examples"], "inline-asm scoped block { .reg ...; }", raw.strip(), path)
                    s = s[1:].strip()
                    continue
                if s.startswith("}"):
                    s = s[1:].strip()
                    continue
                if s.startswith("{"):
                    s = s[1:].strip()
                    continue
                break
            if not s or s in (")", "(", ","):
                continue
            if s.startswith("."):
                toks = s.split()
                for name, pred in DIRECTIVE_SYNTAX:
                    if pred(s, in_asm):
                        stats["syntax"][name] += 1
                        add_example(stats["examples"], name, raw.strip(), path)
                stats["directives"][toks[0]] += 1
                form = []
                for t in toks:
                    if t.startswith("."):
                        form.append(t.rstrip(",("))
                    else:
                        break
                form = " ".join(form)
                stats["directive_forms"][form] += 1
                add_example(stats["directive_examples"], form, raw.strip(), path)
                continue
            guard = None
            if s.startswith("@"):
                guard, _, s = s.partition(" ")
                s = s.strip()
                gk = "@!" if guard.startswith("@!") else "@"
                gk += "%p" if "%" in guard else "<name>"
                stats["guards"][gk] += 1
            parts = s.split(None, 1)
            op = parts[0]
            rest = parts[1] if len(parts) > 1 else ""
            stats["opcodes"][op] += 1
            stats["opcode_files"][op].add(os.path.basename(path))
            if in_asm:
                stats["asm_opcodes"][op] += 1
            base = op.split(".")[0]
            stats["bases"][base] += 1
            full = (guard + " " if guard else "") + s
            for name, pred in SYNTAX:
                try:
                    hit = pred(op, rest, full)
                except Exception:
                    hit = False
                if hit:
                    stats["syntax"][name] += 1
                    add_example(stats["examples"], name, raw.strip(), path)


def add_example(store, key, line, path):
    lst = store.setdefault(key, [])
    if len(lst) < MAX_EXAMPLES and all(l != line for l, _ in lst):
        if len(line) > 220:
            line = line[:220] + " ..."
        lst.append((line, os.path.basename(path)))


def main():
    files = sorted(glob.glob(os.path.join(HERE, "*.ptx")))
    stats = {
        "opcodes": collections.Counter(),
        "asm_opcodes": collections.Counter(),
        "opcode_files": collections.defaultdict(set),
        "bases": collections.Counter(),
        "directives": collections.Counter(),
        "directive_forms": collections.Counter(),
        "sections": collections.Counter(),
        "section_data": collections.Counter(),
        "guards": collections.Counter(),
        "syntax": collections.Counter(),
        "examples": {},
        "directive_examples": {},
        "section_data_examples": {},
    }
    header = collections.Counter()
    for p in files:
        with open(p) as f:
            txt = f.read()
        for key in (".version", ".target", ".address_size"):
            m = re.search(r"^\s*" + re.escape(key) + r"\s+(\S+)", txt, re.M)
            header[f"{key} {m.group(1) if m else '?'}"] += 1
        scan(p, stats)

    out = sys.stdout
    w = lambda s="": print(s, file=out)
    w(f"Triton PTX corpus inventory: {len(files)} files, "
      f"{sum(stats['opcodes'].values())} instructions, {len(stats['opcodes'])} distinct opcodes")
    w("(generated by tests/realworld/triton/inventory.py)")
    w()
    w("== Header directives (files) ==")
    for k, v in sorted(header.items()):
        w(f"  {v:5d}  {k}")
    w()
    w("== Opcode base names (count) ==")
    for k, v in stats["bases"].most_common():
        w(f"  {v:7d}  {k}")
    w()
    w("== Distinct opcodes with modifiers (count, #files, [count inside inline asm]) ==")
    for k, v in sorted(stats["opcodes"].items(), key=lambda kv: (-kv[1], kv[0])):
        a = stats["asm_opcodes"].get(k, 0)
        w(f"  {v:7d}  {len(stats['opcode_files'][k]):3d}f  {k}" + (f"   [asm {a}]" if a else ""))
    w()
    w("== Predicate guards ==")
    for k, v in stats["guards"].most_common():
        w(f"  {v:7d}  {k}")
    w()
    w("== Directives (first token, outside .section bodies) ==")
    for k, v in stats["directives"].most_common():
        w(f"  {v:7d}  {k}")
    w()
    w("== Directive forms (leading dotted tokens) with an example ==")
    for k, v in stats["directive_forms"].most_common():
        ex = stats["directive_examples"].get(k, [("", "")])[0]
        w(f"  {v:7d}  {k:45s}  e.g. {ex[0]}   ({ex[1]})")
    w()
    w("== .section blocks (DWARF emitted as raw data) ==")
    for k, v in stats["sections"].most_common():
        ex = stats["directive_examples"].get(".section " + k, [("", "")])[0]
        w(f"  {v:7d}  {k:20s}  e.g. {ex[0]}")
    w("   data directives inside sections:")
    for k, v in stats["section_data"].most_common():
        exs = stats["section_data_examples"].get(k, [])
        w(f"  {v:7d}  {k}")
        for line, fn in exs:
            w(f"              | {line}   ({fn})")
    w()
    w("== Operand / statement syntax forms (count of statements) with examples ==")
    for k, v in stats["syntax"].most_common():
        w(f"  {v:7d}  {k}")
        for line, fn in stats["examples"].get(k, []):
            w(f"              | {line}   ({fn})")
    missing = [n for n, _ in SYNTAX + DIRECTIVE_SYNTAX if n not in stats["syntax"]]
    if missing:
        w()
        w("== Syntax forms looked for but NOT present ==")
        for n in missing:
            w(f"           {n}")


if __name__ == "__main__":
    main()
