#!/usr/bin/env python3
"""Checks hlo-index against XLA's own indexing expectations.

Reads the cases of ../shared/corpus/indexing_cases.md (XLA's
indexing_analysis_test.cc and indexing_map_test.cc, copied verbatim), runs
hlo-index on each HLO (or hlo-index --simplify on each map), and compares
the result with XLA's expected text BY MEANING with hlo-index --compare
(same domain, same set of results at every point), or with --exact as
XLA's tests do (same text once whitespace is removed).  Cases that do not pass
must be listed in the known-failures file given as the second argument;
the run fails if the set of failures differs from that list in either
direction.  --xla-text=YEAR (before the file) is passed on to hlo-index, for
expectations written in the text of that XLA (the shared corpus is mid 2025's).
Prints one line per case and a summary."""
import os
import re
import subprocess
import sys
import tempfile

TOOL = "hlo-index"
TEXT = []  # --xla-text=YEAR, given to the runs that print maps


def run(args, stdin=None):
    r = subprocess.run([TOOL] + args, input=stdin, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def compare(got, want, tmp):
    a, b = os.path.join(tmp, "got.txt"), os.path.join(tmp, "want.txt")
    open(a, "w").write(got)
    open(b, "w").write(want)
    rc, _, err = run(["--compare", a, b])
    return rc == 0, err.strip()


def split_maps(text):
    """Split a list of printed maps (no labels) into single maps."""
    maps, cur = [], []
    for line in text.splitlines():
        if ((line.startswith("(") and " -> " in line) or line in ("UNDEFINED", "KNOWN EMPTY")) and cur:
            maps.append("\n".join(cur))
            cur = []
        cur.append(line)
    if cur:
        maps.append("\n".join(cur))
    return maps


def cases(md):
    """Yield (name, kind, hlo_or_input, call, expected)."""
    blocks = re.split(r"^## ", md, flags=re.M)[1:]
    for blk in blocks:
        title = blk.split("\n", 1)[0].strip()
        fences = re.findall(r"```\n(.*?)```", blk, re.S)
        if "input:" in blk and "expected after Simplify" in blk:
            yield title, "simplify", fences[0], None, fences[1]
            continue
        hlo = fences[0]
        for m in re.finditer(r"\*\*Pair (\d+)\*\*: `([^`]*)`([^\n]*)\n\n```\n(.*?)```", blk, re.S):
            yield "Pair %s (%s)" % (m.group(1), title), "hlo", hlo, m.group(2) + m.group(3), m.group(4)


def check_case(kind, src, call, want, tmp):
    if kind == "simplify":
        rc, out, err = run(TEXT + ["--simplify", "-"], src)
        if rc:
            return False, err.strip()
        return compare(out, want, tmp)
    args = []
    m = re.match(r"GetInputToOutputIndexing\(root(?:, (?:/\*input_id=\*/)?(\d+))?", call)
    if m:
        args = ["--input-to-output", "--operand", m.group(1) or "0"]
    m = re.match(r"GetOutputToInputIndexing\(root, (?:/\*output_id=\*/)?(\d+)", call)
    if m:
        args = ["--output", m.group(1)]
    if "use_physical_layout=*/true" in call:
        args.append("--physical-layout")
    member = "one member of an unordered set" in call
    if member:
        args += ["--operand", "0"]
    path = os.path.join(tmp, "case.hlo")
    open(path, "w").write(src)
    rc, out, err = run(TEXT + args + [path])
    if rc:
        return False, err.strip()
    if member:
        for one in split_maps(out):
            ok, _ = compare(one, want, tmp)
            if ok:
                return True, ""
        return False, "no map of operand 0 equals the expected one"
    return compare(out, want, tmp)


def exact(got, want, tmp):
    """XLA's own test comparison: the texts equal once all whitespace is
    removed (ApproximateMatch)."""
    ok = re.sub(r"\s+", "", got) == re.sub(r"\s+", "", want)
    return ok, "" if ok else "text differs from XLA's: " + " ".join(got.split())


def main():
    global compare
    while sys.argv[1].startswith("--"):
        if sys.argv[1] == "--exact":
            compare = exact
        elif sys.argv[1].startswith("--xla-text="):
            TEXT.append(sys.argv[1])
        else:
            sys.exit("unknown option " + sys.argv[1])
        del sys.argv[1]
    md = open(sys.argv[1]).read()
    known = set()
    if len(sys.argv) > 2:
        for line in open(sys.argv[2]):
            line = line.split("#", 1)[0].strip()
            if line:
                known.add(line)
    failed, passed = set(), 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, kind, src, call, want in cases(md):
            ok, why = check_case(kind, src, call, want, tmp)
            print("%s: %s%s" % ("PASS" if ok else "FAIL", name, "" if ok else " -- " + why))
            if ok:
                passed += 1
            else:
                failed.add(name)
    print("corpus indexing cases: %d passed, %d failed" % (passed, len(failed)))
    bad = False
    for n in sorted(failed - known):
        print("NEW FAILURE: " + n)
        bad = True
    for n in sorted(known - failed):
        print("NOW PASSING (remove from the known-failures list): " + n)
        bad = True
    return 1 if bad or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
