#!/usr/bin/env python3
"""gen_ops.py [--check] [ROOT] - writes docs/ops.md, the op index: one row per
opcode of include/hlo/hlo_ops.def with each stage's entry for it, read from
the stages' per-opcode tables (designated initialisers "[HLO_OP_X] = ...").

A function named in a table is shown as file:function, the file being the
one under lib/ that defines it.  The script fails (exit 1) when a table lacks
an opcode, names an opcode twice, or names a function no file defines, so
the page cannot silently drift from the code.  With --check it writes
nothing and fails if docs/ops.md differs from what it would write
(`make docs` rewrites the page).

A stage joins the page with one line in COLUMNS below: its title, the file
and name of its table, and for each cell part the struct field to show
(None for a table of plain values) with how to show it."""
import difflib
import glob
import os
import re
import sys

FUNC, FUNCS, VALUE, FLAG, RANGE = "func", "funcs", "value", "flag", "range"

# (column title, table file, table name, [(field, kind, label), ...])
COLUMNS = [
    ("Shape rule", "lib/shape/infer.c", "RULES",
     [("infer", FUNC, ""), ("operands", RANGE, "operands ")]),
    ("Verifier checks", "lib/verify/verify_table.c", "hlo_verify_rules",
     [("calls", FUNC, "calls: "), ("check", FUNC, "op: "), ("strict_shape", FLAG, "strict shape"),
      ("keeps_layout", FLAG, "keeps layout"), ("mixed_precision_ok", FLAG, "mixed precision ok"),
      ("own_shape", FLAG, "no inferred-shape comparison")]),
    ("Indexing rule", "lib/index/imap_ops.c", "RULES", [(None, VALUE, "")]),
    ("Graph class", "lib/export/dot_style.c", "CLASSES", [(None, VALUE, "")]),
    ("Fusion role", "lib/fuse/fuse_policy.c", "RULES", [("cls", VALUE, ""), ("costly", FLAG, "costly")]),
    ("Reference kernel", "lib/exec/kernels.c", "hlo_kernels",
     [("ref", FUNC, ""), ("prep", FUNC, "check: "), ("why_not", VALUE, "cannot run: ")]),
    ("Fast candidates (in order)", "lib/exec/kernels.c", "hlo_kernels", [("fast", FUNCS, "")]),
]

# Tables written with macros (the kernel table's REF(), FAST2(), EW rows) are
# read after the C preprocessor has expanded them.
PREPROCESS = {"lib/exec/kernels.c"}
# A fast candidate that only wraps a kernel (kernels.c's ALWAYS/WHEN) is shown
# as the kernel it installs.
CANDIDATE_PREFIX = "cand_"

# Where a column's values (not functions) take effect.
NOTES = {
    "Indexing rule": "; each rule is a `case R_...` of `imap_output_to_input_depth` and `imap_input_to_output`"
                     " there (`R_NONE`: no rule, UNDEFINED maps)",
    "Graph class": "; the class gives the node colour (`hlo_dot_class_color`, same file)",
    "Fusion role": "; `fuse_classify` and `fuse_cheap` there read it (docs/fusion.md)",
}


def fail(msg):
    sys.stderr.write("gen_ops.py: %s\n" % msg)
    sys.exit(1)


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", s, flags=re.S)


def matching(s, i):
    """Index just past the bracket that closes the one at s[i]."""
    close = {"{": "}", "(": ")", "[": "]"}[s[i]]
    depth = 0
    for j in range(i, len(s)):
        if s[j] == s[i]:
            depth += 1
        elif s[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    fail("unbalanced %s" % s[i])


def split_top(s):
    """Split s at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def source_of(root, path):
    if path not in PREPROCESS:
        return strip_comments(open(os.path.join(root, path)).read())
    import subprocess
    r = subprocess.run([os.environ.get("CC", "cc"), "-E", "-P", "-D_GNU_SOURCE", "-I", os.path.join(root, "include"),
                        "-I", os.path.join(root, "lib"), os.path.join(root, path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: the preprocessor failed: %s" % (path, r.stderr[:300]))
    return r.stdout


def read_table(root, path, name, ops):
    src = source_of(root, path)
    m = re.search(r"\b%s\s*\[HLO_OP_COUNT\]\s*=\s*\{" % re.escape(name), src)
    if not m:
        fail("%s: no table %s[HLO_OP_COUNT]" % (path, name))
    body = src[m.end() - 1 + 1:matching(src, m.end() - 1) - 1]
    rows = {}
    for entry in split_top(body):
        e = re.match(r"\[HLO_OP_(\w+)\]\s*=\s*(.*)$", entry, re.S)
        if not e:
            fail("%s: %s entry is not \"[HLO_OP_X] = ...\": %s" % (path, name, entry[:60]))
        op, init = e.group(1), e.group(2).strip()
        if op in rows:
            fail("%s: %s names HLO_OP_%s twice" % (path, name, op))
        if init.startswith("{"):
            fields = {}
            for f in split_top(init[1:-1]) if init[1:-1].strip() != "0" else []:  # {0}: no entry
                fm = re.match(r"\.(\w+)\s*=\s*(.*)$", f, re.S)
                if not fm:
                    fail("%s: %s HLO_OP_%s: use designated fields, not %s" % (path, name, op, f))
                fields[fm.group(1)] = " ".join(fm.group(2).split())
            rows[op] = fields
        else:
            rows[op] = {None: " ".join(init.split())}
    missing = [o for o in ops if o not in rows]
    if missing:
        fail("%s: %s has no row for %s" % (path, name, ", ".join(missing)))
    unknown = [o for o in rows if o not in ops]
    if unknown:
        fail("%s: %s names unknown opcodes %s" % (path, name, ", ".join(unknown)))
    return rows


def definitions(root):
    """function name -> the lib/ file that defines it (static or not)."""
    where = {}
    for path in sorted(glob.glob(os.path.join(root, "lib", "*", "*.c"))):
        if path.endswith("_test.c"):
            continue
        rel = os.path.relpath(path, root)
        src = strip_comments(open(path).read())
        for m in re.finditer(r"^[A-Za-z_][\w \*]*?\b(\w+)\s*\([^;{]*\)\s*\{", src, re.M):
            if m.group(1) != "DECL_KERN":
                where.setdefault(m.group(1), []).append(rel)
        for m in re.finditer(r"^DECL_KERN\((\w+)\)\s*\{", src, re.M):  # kernels (lib/exec/exec.h)
            where.setdefault(m.group(1), []).append(rel)
    return where


def cell(rows, op, parts, where, path):
    out = []
    for field, kind, label in parts:
        v = rows[op].get(field)
        if v is None or v in ("false", "0"):
            continue
        if kind == FUNCS:  # {a, b, ...}
            names = [x.strip() for x in v.strip("{}").split(",") if x.strip()]
            shown = []
            for n in names:
                n = n[len(CANDIDATE_PREFIX):] if n.startswith(CANDIDATE_PREFIX) and n[len(CANDIDATE_PREFIX):] in where else n
                files = where.get(n, [])
                if len(files) != 1:
                    fail("%s: HLO_OP_%s: %s is defined in %s" % (path, op, n, files or "no file under lib/"))
                shown.append("`%s:%s`" % (files[0], n))
            if shown:
                out.append(label + ", ".join(shown))
            continue
        if kind == FUNC:
            files = where.get(v, [])
            if len(files) != 1:
                fail("%s: HLO_OP_%s: %s is defined in %s" % (path, op, v, files or "no file under lib/"))
            out.append("%s`%s:%s`" % (label, files[0], v))
        elif kind == FLAG:
            out.append(label)
        elif kind == RANGE:  # {lo, hi}, hi ANY = unbounded
            lo, hi = [x.strip() for x in v.strip("{}").split(",")]
            out.append("%s%s" % (label, lo + ".." if hi == "ANY" else lo if lo == hi else lo + ".." + hi))
        else:
            out.append("%s`%s`" % (label, v))
    return "; ".join(out) if out else "-"


FLAG_NAMES = {"HLO_F_ELEMENTWISE": "elementwise", "HLO_F_COMMUTATIVE": "commutative",
              "HLO_F_TRANSCENDENTAL": "transcendental", "HLO_F_SIDE_EFFECT": "side effect",
              "HLO_F_COLLECTIVE": "collective", "HLO_F_ASYNC": "async", "HLO_F_CONTROL": "control",
              "HLO_F_P2P": "p2p"}


def render(root):
    defs = re.findall(r'^HLO_OP\((\w+),\s*"([^"]+)",\s*(\w+),\s*([^)]*)\)',
                      open(os.path.join(root, "include/hlo/hlo_ops.def")).read(), re.M)
    ops = [d[0] for d in defs]
    where = definitions(root)
    for title, note in NOTES.items():  # the functions a note names must exist
        for fn in re.findall(r"`([a-z]\w*_\w*)`", note):
            if fn not in where:
                fail("note on %s names %s, which no file under lib/ defines" % (title, fn))
    tables = [(title, path, read_table(root, path, name, ops), parts) for title, path, name, parts in COLUMNS]
    lines = [
        "# Op index",
        "",
        "<!-- Generated by docs/gen_ops.py from the per-opcode tables; do not edit. -->",
        "<!-- `make docs` rewrites this page; `make check` fails when it is stale. -->",
        "",
        "Every opcode of `include/hlo/hlo_ops.def` with each stage's entry for it, as `file:function` or the",
        "table's value.  The tables, one per stage and indexed by opcode, are:",
        "",
    ]
    for title, path, name, _ in COLUMNS:
        lines.append("- %s: `%s` in `%s`%s" % (title, name, path, NOTES.get(title, "")))
    lines += [
        "",
        "`grep -n HLO_OP_GATHER lib/` lists the same rows.  Arity and flags come from `hlo_ops.def`",
        "(`*` = variadic; the shape table then bounds the count where XLA does).  The interpreter's",
        "columns are its kernel table: the reference (or structural) kernel with the row's plan-time",
        "check, and the fast candidates the fast path tries in that order (the first that accepts",
        "the instruction runs it; `hlo-run --profile` names it).",
        "",
        "| Op | Arity, flags | " + " | ".join(c[0] for c in COLUMNS) + " |",
        "|" + "---|" * (2 + len(COLUMNS)),
    ]
    for e, spelling, arity, flags in defs:
        fl = [FLAG_NAMES.get(f.strip(), f.strip()) for f in flags.split("|") if f.strip() != "0"]
        ar = "*" if arity == "HLO_VARIADIC" else arity
        cells = [cell(rows, e, parts, where, path) for _, path, rows, parts in tables]
        lines.append("| `%s` | %s | %s |" % (spelling, ", ".join([ar] + fl), " | ".join(cells)))
    return "\n".join(lines) + "\n"


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    page = os.path.join(root, "docs", "ops.md")
    text = render(root)
    if "--check" in sys.argv:
        old = open(page).read() if os.path.exists(page) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       "docs/ops.md", "generated"))
            print("docs/ops.md is stale: run make docs")
            return 1
        print("docs/ops.md is up to date")
        return 0
    with open(page + ".tmp", "w") as f:
        f.write(text)
    os.replace(page + ".tmp", page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
