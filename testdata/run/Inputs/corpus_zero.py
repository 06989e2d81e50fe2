#!/usr/bin/env python3
"""The shared corpus with zero-sized dimensions: for every module and each
of its first few distinct dimension sizes v, two variants are made: one with
v written as 0 in every shape, one with v also written as 0 everywhere else
outside constants (slice limits, slice sizes, windows, ...).  hlo-run runs
each variant with random inputs on the reference path and on the fast path
(3 threads).  A variant may be invalid (exit 1 with a diagnostic: the
verifier rejects what no longer fits), but no run may crash, hang or print
a sanitizer report, both paths must take the same decision, and when both
run their results must have the same shapes and agree (16-bit floats to
1e-2 relative, other floats to 1e-4, everything else exactly).  Prints one
line per failure and "corpus_zero: N variants, R ran, M failed"."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
SIZES = 4  # distinct dimension sizes per module
SKIP = ("mobilenet_v2", "sharded_computation", "isolated_convolution")  # too large (corpus_run.py)
SHAPE = re.compile(r"\b([a-z][a-z0-9]*)\[([0-9,]+)\]")
KEEP = re.compile(r"constant\(|parameter\(|index=|HloModule")


def variants(text):
    sizes = sorted({d for m in SHAPE.finditer(text) for d in m.group(2).split(",") if d and d != "0"}, key=int)
    for v in sizes[:SIZES]:
        in_shapes = SHAPE.sub(lambda m: "%s[%s]" % (m.group(1), ",".join(
            "0" if d == v else d for d in m.group(2).split(","))), text)
        yield v, "shapes", in_shapes
        tok = re.compile(r"(?<![\w.%#-])" + v + r"(?![\w.])")
        yield v, "everywhere", "\n".join(l if KEEP.search(l) else tok.sub("0", l) for l in in_shapes.split("\n"))


def run(path, out, ref):
    cmd = [HLO_RUN, "--random=3", "--max-while-iterations=100", path, "-o", out]
    cmd += ["--reference"] if ref else ["--threads", "3"]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return None


def agree(a, b):
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc":
        tol = 1e-2 if a.dtype.itemsize == 2 else 1e-4
        return bool(np.allclose(a, b, rtol=tol, atol=tol, equal_nan=True))
    return a.tobytes() == b.tobytes()


def main():
    corpus = sys.argv[1]
    total = ran = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for f in sorted(os.listdir(corpus)):
            if not f.endswith(".hlo") or any(s in f for s in SKIP):
                continue
            with open(os.path.join(corpus, f)) as fh:
                text = fh.read()
            for v, how, var in variants(text):
                total += 1
                name = "%s (size %s as 0 in %s)" % (f, v, how)
                path = os.path.join(d, "m.hlo")
                with open(path, "w") as fh:
                    fh.write(var)
                res = [run(path, os.path.join(d, "out%d.npz" % ref), ref) for ref in (False, True)]
                why = None
                for r, label in zip(res, ("fast", "reference")):
                    if r is None:
                        why = why or "%s path timed out" % label
                    elif r.returncode not in (0, 1) or "runtime error" in r.stderr or "Sanitizer" in r.stderr:
                        why = why or "%s path exit %d: %s" % (label, r.returncode, r.stderr.strip()[:300])
                    elif r.returncode == 1 and "error" not in r.stderr:
                        why = why or "%s path failed without a diagnostic" % label
                if not why and res[0].returncode != res[1].returncode:
                    why = "the fast path exits %d, the reference path %d: %s" % (
                        res[0].returncode, res[1].returncode, (res[0].stderr + res[1].stderr).strip()[:300])
                if not why and res[0].returncode == 0:
                    ran += 1
                    a, b = np.load(os.path.join(d, "out0.npz")), np.load(os.path.join(d, "out1.npz"))
                    bad = [k for k in a.files if k not in b.files or not agree(a[k], b[k])]
                    if bad or a.files != b.files:
                        why = "fast and reference results differ in %s" % (", ".join(bad) or "members")
                if why:
                    failed += 1
                    print("FAIL %s: %s" % (name, why))
    print("corpus_zero: %d variants, %d ran, %d failed" % (total, ran, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
