#!/usr/bin/env python3
"""Every elementwise opcode of include/hlo/hlo_ops.def on every element type:
a module the verifier accepts must run on both paths (hlo-run --reference and
the fast path) to exit 0, and one it rejects must fail with exit 1 and a
message; no combination may reach an internal error (a "BUG:" line, an abort
or a signal).  The scalar rules of lib/exec/scalar.c treat an (op, type)
pair they have no rule for as a bug, so this sweep is what shows that the
verifier rules every such pair out.  Prints one line per failure and
"elementwise_matrix: N modules (A accepted), M failed"."""
import os
import re
import subprocess
import sys
import tempfile

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
ROOT = sys.argv[1]

OPS = re.findall(r'^HLO_OP\(\w+,\s*"([^"]+)",\s*(\w+),\s*([^)]*)\)',
                 open(os.path.join(ROOT, "include/hlo/hlo_ops.def")).read(), re.M)
TYPES = re.findall(r'^HLO_TYPE\(\w+,\s*"([^"]+)",\s*\d+,\s*\d+,\s*(\w+)\)',
                   open(os.path.join(ROOT, "include/hlo/hlo_types.def")).read(), re.M)
TYPES = [t for t, kind in TYPES if kind not in ("HLO_KIND_TOKEN", "HLO_KIND_OPAQUE", "HLO_KIND_TUPLE")]
# ops whose result type is not the operand type
RESULT = {"compare": "pred", "is-finite": "pred", "real": None, "imag": None, "complex": None}
REAL_OF = {"c64": "f32", "c128": "f64"}


def module(op, arity, t):
    if op in ("real", "imag"):
        rt = REAL_OF.get(t, t)
    elif op == "complex":
        rt = {"f32": "c64", "f64": "c128"}.get(t, t)
    else:
        rt = RESULT.get(op) or t
    n = 2 if arity == "HLO_VARIADIC" else int(arity)
    if op in ("select", "clamp"):
        n = 3
    params = []
    for i in range(n):
        pt = "pred" if op == "select" and i == 0 else t
        params.append("  p%d = %s[70] parameter(%d)" % (i, pt, i))
    args = ", ".join("p%d" % i for i in range(n))
    attrs = ", direction=LT" if op == "compare" else ""
    return "HloModule m\nENTRY e {\n%s\n  ROOT r = %s[70] %s(%s)%s\n}\n" % (
        "\n".join(params), rt, op, args, attrs)


def run(path, ref):
    cmd = [HLO_RUN, "--random=3", path, "-o", path + ".npz"] + (["--reference"] if ref else [])
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    n = accepted = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for op, arity, flags in OPS:
            if "HLO_F_ELEMENTWISE" not in flags:
                continue
            for t in TYPES:
                n += 1
                path = os.path.join(d, "m.hlo")
                with open(path, "w") as f:
                    f.write(module(op, arity, t))
                results = [run(path, True), run(path, False)]
                codes = [r.returncode for r in results]
                bug = [r for r in results if "BUG:" in r.stderr or r.returncode < 0 or r.returncode > 2]
                if bug:
                    failed += 1
                    print("FAIL %s %s: internal error: exit %d: %s" % (op, t, bug[0].returncode,
                                                                     bug[0].stderr.strip()[:300]))
                elif codes[0] != codes[1]:
                    failed += 1
                    print("FAIL %s %s: the paths disagree: exit %s" % (op, t, codes))
                elif codes[0] == 0:
                    accepted += 1
                elif codes[0] != 1 or "error:" not in results[0].stderr:
                    failed += 1
                    print("FAIL %s %s: exit %d without a message" % (op, t, codes[0]))
    print("elementwise_matrix: %d modules (%d accepted), %d failed" % (n, accepted, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
