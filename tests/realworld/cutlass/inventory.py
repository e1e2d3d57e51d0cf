#!/usr/bin/env python3
"""Inventory of the PTX in phasegate's CUTLASS real-world corpus.

    python3 tests/realworld/cutlass/inventory.py [DIR] > INVENTORY.txt

Splits each .ptx file into statements (an instruction may span several lines
when it comes from inline asm; it ends at ';'), then counts opcodes (with all
their modifiers), directives, special registers and operand forms, and prints
example statements for the unusual syntax a PTX reader has to accept.
Written for phasegate; needs only the Python standard library.
"""
import collections
import os
import re
import sys

DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
FILES = sorted(f for f in os.listdir(DIR) if f.endswith(".ptx"))

# Directives that end at the end of the line rather than at ';'.
LINE_DIRECTIVES = {
    ".version", ".target", ".address_size", ".file", ".loc", ".section",
    ".entry", ".func", ".visible", ".weak", ".maxntid", ".reqntid",
    ".minnctapersm", ".maxnreg", ".explicitcluster", ".reqnctapercluster",
    ".maxclusterrank", ".noreturn", ".param", ".callprototype",
}


def strip_comment(line):
    """Drop // and /* */ comments outside double-quoted strings."""
    out, i, q = [], 0, False
    while i < len(line):
        c = line[i]
        if c == '"':
            q = not q
        elif not q and line.startswith("//", i):
            break
        elif not q and line.startswith("/*", i):
            j = line.find("*/", i + 2)
            i = len(line) if j < 0 else j + 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


LABEL = re.compile(r"^([A-Za-z_$%][\w$]*)\s*:\s*")
GUARD = re.compile(r"^@!?%?[\w$]+\s+")


def pieces(line):
    """Split a line at ';' outside double quotes; each piece keeps its ';'."""
    out, cur, q = [], [], False
    for c in line:
        cur.append(c)
        if c == '"':
            q = not q
        elif c == ";" and not q:
            out.append("".join(cur).strip())
            cur = []
    rest = "".join(cur).strip()
    if rest:
        out.append(rest)
    return out


def statements(path):
    """Yield (kind, key, text, in_section) with kind in
    {'insn','dir','label','brace','decl'}; 'decl' is a whole .entry/.func
    header with its parameter list, ending in '{' (definition) or ';' (forward
    declaration).  Several statements on one line (inline asm) are split;
    one statement over several lines (inline asm wgmma) is joined."""
    buf = None
    hdr = None
    in_section = False
    depth_in_section = 0
    with open(path, encoding="utf-8", errors="replace") as fh:
        for raw in fh:
            line = strip_comment(raw.rstrip("\n")).strip()
            if not line:
                continue
            if hdr is not None:
                if line in ("{", ";") or (line.startswith(".") and not line.startswith(".param")):
                    text = " ".join(hdr + ([line] if line == ";" else []))
                    yield ("decl", "forward" if line == ";" else "definition", text, in_section)
                    hdr = None
                else:
                    hdr.append(line)
            elif re.match(r"^(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b", line):
                hdr = [line]
            for piece in pieces(line):
                if buf is not None:
                    buf.append(piece)
                    if piece.endswith(";"):
                        text = " ".join(buf)
                        yield ("insn", opcode_of(text), text, in_section)
                        buf = None
                    continue
                while piece:
                    m = LABEL.match(piece)
                    if m and not piece.startswith("."):
                        yield ("label", m.group(1), m.group(0), in_section)
                        piece = piece[m.end():].strip()
                        continue
                    if piece[0] in "{}":
                        b = piece[0]
                        if in_section:
                            depth_in_section += 1 if b == "{" else -1
                            if depth_in_section == 0:
                                in_section = False
                        yield ("brace", b, b, in_section)
                        piece = piece[1:].strip()
                        continue
                    break
                if not piece:
                    continue
                if piece.startswith("."):
                    key = piece.split()[0].rstrip(";")
                    if key == ".section":
                        in_section = True
                        depth_in_section = 0
                    yield ("dir", key, piece, in_section)
                    continue
                if piece[0] in "()" or piece == ";":
                    continue  # tails of parameter lists, end of a .func forward declaration
                if not piece.endswith(";"):
                    buf = [piece]
                    continue
                yield ("insn", opcode_of(piece), piece, in_section)


def opcode_of(text):
    t = GUARD.sub("", text.strip())
    return t.split()[0].rstrip(";") if t else ""


def abbreviate_braces(s):
    """{%f1, %f2, ..., %f64} -> {%f1, %f2, %f3, ..., %f64 /*64 elements*/}."""
    def one(m):
        items = [x.strip() for x in m.group(1).split(",")]
        if len(items) <= 8:
            return m.group(0)
        return "{" + ", ".join(items[:3]) + ", ..., " + items[-1] + " /*%d elements*/}" % len(items)
    return re.sub(r"\{([^{}]*)\}", one, s)


def squash(s, n=420):
    s = abbreviate_braces(re.sub(r"\s+", " ", s).strip())
    return s if len(s) <= n else s[: n - 3] + "..."


EXAMPLES = [
    ("tensor-copy operand [%rd, {...}] (cp.async.bulk.tensor / prefetch.tensor)",
     lambda k, t: "[%" in t and re.search(r"\[%\w+,\s*\{", t)),
    ("wgmma.mma_async, smem descriptors (SS) + braced accumulator vector",
     lambda k, t: k.startswith("wgmma.mma_async") and re.search(r"\},\s*%rd\d+,\s*%rd\d+", t)),
    ("wgmma.mma_async with A from registers (RS: second braced vector)",
     lambda k, t: k.startswith("wgmma.mma_async") and re.search(r"\},\s*\{", t)),
    ("wgmma fence/commit/wait forms",
     lambda k, t: k.startswith("wgmma.") and not k.startswith("wgmma.mma_async")),
    ("elect.sync with 'reg|pred' destination",
     lambda k, t: k.startswith("elect.sync")),
    ("other 'a|b' dual destinations (setp/shfl)",
     lambda k, t: "|" in t and not k.startswith("elect")),
    ("call with parameter lists / prototypes",
     lambda k, t: k.startswith("call")),
    ("mbarrier forms", lambda k, t: k.startswith("mbarrier.")),
    ("setmaxnreg", lambda k, t: k.startswith("setmaxnreg")),
    ("fence.proxy / fence.* forms", lambda k, t: k.startswith("fence")),
    ("tensormap.replace / tensormap.cp_fenceproxy (in-smem TMA descriptor patching)",
     lambda k, t: k.startswith("tensormap")),
    ("prefetch forms (prefetch.tensormap, prefetch.tensor, L2 prefetch)",
     lambda k, t: k.startswith("prefetch")),
    ("inline-asm local operand names (non-% registers, '_' sink)",
     lambda k, t: re.search(r"(?:^|[\s,{\[|])(?!param\d|retval\d)([A-Za-z_][A-Za-z_0-9]{0,15})(?=[\s,;}\]|])", GUARD.sub("", t).split(None, 1)[1] if len(GUARD.sub("", t).split(None, 1)) > 1 else "")),
    ("guarded instructions (@p / @!%p)", lambda k, t: t.lstrip().startswith("@")),
    ("stmatrix / ldmatrix", lambda k, t: k.startswith("stmatrix") or k.startswith("ldmatrix")),
    ("cp.async (LDGSTS) with src-size / cache hints",
     lambda k, t: k.startswith("cp.async.") and "bulk" not in k),
    ("cluster addressing: mapa / getctarank / shared::cluster",
     lambda k, t: k.startswith("mapa") or k.startswith("getctarank") or ("shared::cluster" in k and not k.startswith("cp.async.bulk"))),
    ("barrier.sync / bar.arrive named barriers",
     lambda k, t: k.startswith("bar") ),
    ("vector pack/unpack operands {%r, %r}",
     lambda k, t: k.startswith("mov") and "{" in t),
    ("address with symbol+offset / param space",
     lambda k, t: k.startswith("ld.param") and "+" in t),
    ("red / atom forms", lambda k, t: k.startswith("red.") or k.startswith("atom.")),
    ("griddepcontrol / trap / exit / nanosleep",
     lambda k, t: k.split(".")[0] in ("griddepcontrol", "trap", "nanosleep", "brkpt")),
    ("float immediates (0f / 0d hex)", lambda k, t: re.search(r"\b0[fFdD][0-9A-Fa-f]{8,16}\b", t)),
]

DIR_EXAMPLES = [
    (".loc with function_name / inlined_at", lambda k, t: k == ".loc" and "inlined_at" in t),
    (".file with path", lambda k, t: k == ".file"),
    (".section headers", lambda k, t: k == ".section"),
    (".entry / .func headers", lambda k, t: k in (".entry", ".func") or t.startswith(".visible") or t.startswith(".weak")),
    ("kernel attribute directives", lambda k, t: k in (".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank")),
    (".param in signatures / call sequences (align, arrays)", lambda k, t: k == ".param"),
    ("state-space declarations with .align / arrays", lambda k, t: k in (".shared", ".global", ".const", ".extern", ".local") ),
    (".reg declarations (ranges <N>, local inline-asm names)", lambda k, t: k == ".reg"),
    (".pragma", lambda k, t: k == ".pragma"),
    (".callprototype", lambda k, t: ".callprototype" in t),
    ("section payload (.b8/.b32/.b64 data inside .section)", None),
]


def main():
    opcodes = collections.Counter()
    opcode_files = collections.defaultdict(set)
    directives = collections.Counter()
    section_payload = collections.Counter()
    specials = collections.Counter()
    labels = 0
    per_file = []
    examples = collections.OrderedDict((name, []) for name, _ in EXAMPLES)
    dexamples = collections.OrderedDict((name, []) for name, _ in DIR_EXAMPLES)
    widest_brace = (0, "", "")
    decls = {}

    for f in FILES:
        path = os.path.join(DIR, f)
        nlines = sum(1 for _ in open(path, encoding="utf-8", errors="replace"))
        n_insn = 0
        kinds = collections.Counter()
        n_entry = n_func = n_sect = 0
        for kind, key, text, in_sec in statements(path):
            if kind == "insn":
                if in_sec:
                    section_payload[key] += 1
                    continue
                n_insn += 1
                opcodes[key] += 1
                opcode_files[key].add(f)
                kinds[key.split(".")[0]] += 1
                for sp in re.findall(r"%(?:tid|ntid|ctaid|nctaid|laneid|warpid|nwarpid|smid|nsmid|clusterid|nclusterid|cluster_ctaid|cluster_nctaid|cluster_ctarank|cluster_nctarank|is_explicit_cluster|clock64|clock|globaltimer|dynamic_smem_size|total_smem_size|lanemask_\w+|envreg\d+|pm\d+)(?:\.[xyz])?\b", text):
                    specials[sp] += 1
                for name, pred in EXAMPLES:
                    ex = examples[name]
                    if len(ex) < 3 and pred(key, text):
                        s = squash(text)
                        shape = re.sub(r"\d+", "N", s)
                        if all(shape != re.sub(r"\d+", "N", e[1]) for e in ex):
                            ex.append((f, s))
                m = re.findall(r"\{([^{}]*)\}", text)
                for grp in m:
                    n = grp.count(",") + 1
                    if n > widest_brace[0]:
                        widest_brace = (n, f, key)
            elif kind == "dir":
                if in_sec and key != ".section":
                    section_payload[key] += 1
                    ex = dexamples["section payload (.b8/.b32/.b64 data inside .section)"]
                    if len(ex) < 4 and all(e[1].split()[0] != key for e in ex):
                        ex.append((f, squash(text, 200)))
                    continue
                directives[key] += 1
                if key == ".entry" or ".entry" in text.split()[:3]:
                    n_entry += 1
                if key == ".func" or ".func" in text.split()[:3]:
                    n_func += 1
                if key == ".section":
                    n_sect += 1
                for name, pred in DIR_EXAMPLES:
                    if pred is None:
                        continue
                    ex = dexamples[name]
                    if len(ex) < 3 and pred(key, text):
                        s = squash(text)
                        if all(s != e[1] for e in ex):
                            ex.append((f, s))
            elif kind == "label":
                labels += 1
            elif kind == "decl":
                ex = decls.setdefault(key, [])
                shape = re.sub(r"_Z\w+", "MANGLED", text)
                shape = re.sub(r"\d+", "N", shape)
                if len(ex) < 3 and all(shape != e[2] for e in ex):
                    ex.append((f, squash(text, 600), shape))
        per_file.append((f, nlines, n_insn, len({k for k in opcodes if f in opcode_files[k]}), n_entry, n_func, n_sect))

    out = []
    w = out.append
    w("PTX inventory of tests/realworld/cutlass/*.ptx (generated by inventory.py)")
    w("=" * 78)
    w("")
    w("Per file: lines, instruction statements, distinct opcode forms, .entry, .func, .section")
    for f, nl, ni, nd, ne, nf, ns in per_file:
        w(f"  {f:64s} {nl:7d} lines {ni:6d} insns {nd:4d} forms  entry={ne} func={nf} section={ns}")
    w("")
    w(f"Totals: {len(FILES)} files, {sum(p[1] for p in per_file)} lines, "
      f"{sum(opcodes.values())} instruction statements, {len(opcodes)} distinct opcode forms "
      f"(opcode + modifiers), {len({k.split('.')[0] for k in opcodes})} distinct base opcodes, "
      f"{labels} labels, widest braced operand list: {widest_brace[0]} elements ({widest_brace[2]} in {widest_brace[1]})")
    w("")

    w("Base opcodes (count over all files, number of files)")
    w("-" * 78)
    base = collections.Counter()
    base_files = collections.defaultdict(set)
    for k, c in opcodes.items():
        b = k.split(".")[0]
        base[b] += c
        base_files[b] |= opcode_files[k]
    for b, c in sorted(base.items(), key=lambda x: (-x[1], x[0])):
        w(f"  {b:28s} {c:8d}  files={len(base_files[b])}")
    w("")

    w("Opcode forms with modifiers (count, files), grouped by base opcode")
    w("-" * 78)
    for b in sorted(base, key=lambda x: (-base[x], x)):
        forms = sorted((k for k in opcodes if k.split(".")[0] == b), key=lambda k: (-opcodes[k], k))
        w(f"  [{b}]")
        for k in forms:
            w(f"    {k:76s} {opcodes[k]:7d}  files={len(opcode_files[k])}")
    w("")

    w("Directives outside .section blocks (count)")
    w("-" * 78)
    for k, c in sorted(directives.items(), key=lambda x: (-x[1], x[0])):
        w(f"  {k:28s} {c:8d}")
    w("")
    w("Inside .section blocks (debug payload) (count)")
    for k, c in sorted(section_payload.items(), key=lambda x: (-x[1], x[0])):
        w(f"  {k:28s} {c:8d}")
    w("")
    w("Special registers referenced (count)")
    w("-" * 78)
    for k, c in sorted(specials.items(), key=lambda x: (-x[1], x[0])):
        w(f"  %{k:27s} {c:8d}".replace("%%", "%"))
    w("")

    w("Examples of unusual syntax (first distinct hits, whitespace squashed, long lines cut)")
    w("-" * 78)
    for name, ex in list(examples.items()) + list(dexamples.items()):
        w(f"* {name}: {'(none found)' if not ex else ''}")
        for f, s in ex:
            w(f"    [{f}]")
            w(f"      {s}")
    for key in ("definition", "forward"):
        w(f"* .entry/.func header, {key} (signature with parameter list, joined):")
        for f, s, _ in decls.get(key, []):
            w(f"    [{f}]")
            w(f"      {s}")
        if not decls.get(key):
            w("    (none found)")
    w("* inline-asm scope block: '{' + local .reg declarations inside a function body:")
    shown = 0
    for f in FILES:
        lines = open(os.path.join(DIR, f), encoding="utf-8", errors="replace").read().split("\n")
        for i in range(len(lines) - 1):
            if lines[i].strip() == "{" and lines[i + 1].strip().startswith(".reg") and i > 0 and "inline asm" in "".join(lines[max(0, i - 3):i]):
                w(f"    [{f}:{i + 1}]")
                for l in lines[i:i + 8]:
                    w("      " + squash(l, 200))
                shown += 1
                break
        if shown >= 2:
            break
    w("")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
