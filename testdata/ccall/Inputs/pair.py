"""Run two modules on the same random inputs and compare their results.

usage: pair.py A.hlo B.hlo [SEED] [rtol=R] [-- hlo-run options for A]
A uses custom calls; B is the same computation in plain HLO ops (or a
reference the test names).  Prints "pair A B: same within TOL" or the first
difference, and exits 1 when they differ beyond float reassociation
(|a - b| <= 1e-5 * (1 + max |b|) elementwise; rtol=R replaces 1e-5, for
results rounded to a 16-bit type, where a value near a rounding boundary may
go either way).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def run(module, seed, extra):
    with tempfile.TemporaryDirectory(prefix="ccall_pair") as d:
        out = os.path.join(d, "r.npz")
        subprocess.run(["hlo-run", module, "--random=%d" % seed, "-o", out] + extra, check=True)
        z = np.load(out)
        return [z[k] for k in z.files]


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        extra = args[args.index("--") + 1:]
        args = args[:args.index("--")]
    rtol = 1e-5
    for x in [x for x in args if x.startswith("rtol=")]:
        rtol = float(x[5:])
        args.remove(x)
    a, b = args[0], args[1]
    seed = int(args[2]) if len(args) > 2 else 1
    ra, rb = run(a, seed, extra), run(b, seed, [])
    name = "pair %s %s" % (os.path.basename(a), os.path.basename(b))
    if len(ra) != len(rb):
        print("%s: %d results vs %d" % (name, len(ra), len(rb)))
        return 1
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x.shape != y.shape or x.dtype != y.dtype:
            print("%s: result %d is %s %s vs %s %s" % (name, i, x.dtype, x.shape, y.dtype, y.shape))
            return 1
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        tol = rtol * (1 + np.abs(y64).max(initial=0))
        bad = np.abs(x64 - y64) > tol
        if bad.any():
            k = np.argwhere(bad)[0]
            print("%s: result %d differs at %s: %r vs %r" % (name, i, tuple(k), x[tuple(k)], y[tuple(k)]))
            return 1
    print("%s: %d results same" % (name, len(ra)))
    return 0


sys.exit(main())
