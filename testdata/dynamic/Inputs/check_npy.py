"""Run Inputs/model.hlo on .npy inputs whose dynamic dimension is below its
bound (and at it) and compare every output with numpy computing the same on
the actual-size arrays.  Prints one line per size; exits 1 on a mismatch."""
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
model = os.path.join(here, "model.hlo")
rng = np.random.default_rng(7)
bad = 0
with tempfile.TemporaryDirectory(prefix="dyn_npy") as tmp:
    w = rng.standard_normal((3, 4)).astype(np.float32)
    np.save(os.path.join(tmp, "w.npy"), w)
    for n in (1, 3, 8, 0):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        v = rng.standard_normal((n,)).astype(np.float32)
        np.save(os.path.join(tmp, "x.npy"), x)
        np.save(os.path.join(tmp, "v.npy"), v)
        out = os.path.join(tmp, "out.npz")
        cmd = ["hlo-run", model, os.path.join(tmp, "x.npy"), os.path.join(tmp, "w.npy"),
               os.path.join(tmp, "v.npy"), "-o", out] + sys.argv[1:]
        subprocess.run(cmd, check=True)
        got = np.load(out)
        y = np.tanh(x.astype(np.float64) @ w)
        want = [y, y.sum(axis=0), np.exp(x.max(axis=1)) if n else np.zeros(0),
                np.float64(v.astype(np.float64) @ v), np.int32(n)]
        shapes = []
        for i, e in enumerate(want):
            g = got["out%d" % i]
            shapes.append(str(g.shape))
            if g.shape != np.shape(e) or not np.allclose(g, e, rtol=1e-5, atol=1e-5):
                print("size %d: out%d differs: got %r, want %r" % (n, i, g, e))
                bad += 1
        print("size %d: shapes %s" % (n, " ".join(shapes)))
sys.exit(1 if bad else 0)
