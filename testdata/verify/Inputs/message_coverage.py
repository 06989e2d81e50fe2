#!/usr/bin/env python3
"""message_coverage.py ROOT - lists every distinct error-message format
string passed to sx_fail / vx_fail / vx_fail_at / hlo_errorf in
lib/verify/*.c and lib/shape/*.c, and reports those that no expected-output
line (CHECK / expected-error) under testdata/verify or testdata/shape matches.
Exits 1 when an uncovered message is not in the EXCLUDED list below."""
import glob
import os
import re
import sys

# Messages that cannot be triggered from HLO text, with the reason.
EXCLUDED = {
}

CALL = re.compile(r"\b(sx_fail|vx_fail_at|vx_fail|hlo_errorf)\s*\(")
STR = re.compile(r'"((?:[^"\\]|\\.)*)"')
MACRO = re.compile(r"\bPRI[diux](8|16|32|64)\b")


def formats(text):
    """Yield the format string of every diagnostic call in C source text."""
    for m in CALL.finditer(text):
        i = m.end()
        # Find the first string literal argument, then concatenate adjacent
        # literals (and PRId64-style macros between them).
        q = text.find('"', i)
        if q < 0:
            continue
        # The literal must come before the call's closing parenthesis.
        depth, j = 0, i
        while j < q:
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                if depth == 0:
                    break
                depth -= 1
            j += 1
        if j < q:
            continue
        parts, pos = [], q
        while True:
            s = STR.match(text, pos)
            if not s:
                break
            parts.append(s.group(1))
            pos = s.end()
            rest = re.match(r"\s*(PRI[diux](?:8|16|32|64))?\s*", text[pos:])
            if rest.group(1):
                parts.append("d")
            pos += rest.end()
            if pos >= len(text) or text[pos] != '"':
                break
        yield "".join(parts)


def to_regex(fmt):
    """A regex matching any expansion of a printf format."""
    out, i = [], 0
    spec = re.compile(r"%%|%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]")
    for m in spec.finditer(fmt):
        out.append(re.escape(fmt[i:m.start()].encode().decode("unicode_escape")))
        out.append("%" if m.group(0) == "%%" else ".*?")
        i = m.end()
    out.append(re.escape(fmt[i:].encode().decode("unicode_escape")))
    return re.compile("".join(out))


def main():
    root = sys.argv[1]
    fmts = set()
    for path in sorted(glob.glob(os.path.join(root, "lib/verify/*.c")) +
                       glob.glob(os.path.join(root, "lib/shape/*.c"))):
        if path.endswith("_test.c"):
            continue
        with open(path, encoding="utf-8") as f:
            fmts.update(formats(f.read()))
    # Wrappers that only forward a message are not messages themselves.
    fmts.discard("%%%s: %s")
    expected = []
    for path in glob.glob(os.path.join(root, "testdata/verify/**/*"), recursive=True) + \
            glob.glob(os.path.join(root, "testdata/shape/**/*"), recursive=True):
        if os.path.isfile(path) and "/Inputs/" not in path:
            with open(path, encoding="utf-8", errors="replace") as f:
                expected += [l for l in f if "CHECK" in l or "expected-error" in l]
    missing = []
    for fmt in sorted(fmts):
        rx = to_regex(fmt)
        if not any(rx.search(l) for l in expected):
            missing.append(fmt)
    bad = [f for f in missing if f not in EXCLUDED]
    stale = [f for f in EXCLUDED if f not in missing]
    print("messages: %d, covered: %d, excluded: %d" %
          (len(fmts), len(fmts) - len(missing), len(missing) - len(bad)))
    for f in bad:
        print("not covered: " + f)
    for f in stale:
        print("exclusion no longer needed: " + f)
    print("uncovered messages: %s" % ("none" if not bad and not stale else len(bad) + len(stale)))
    return 1 if bad or stale else 0


if __name__ == "__main__":
    sys.exit(main())
