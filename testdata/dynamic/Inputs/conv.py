"""A convolution with a dynamic batch dimension (2 of bound 3) and a dynamic
input-feature dimension (1 of bound 2, in both operands), and a depthwise
one (2 feature groups) over a dynamic batch (2 of bound 3), against numpy's
direct sums; prints each shape and whether the values agree."""
import os
import subprocess
import sys
import tempfile

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))


def check(name, hlo, x, k, want):
    with tempfile.TemporaryDirectory(prefix="dyn_conv") as tmp:
        np.save(os.path.join(tmp, "x.npy"), x)
        np.save(os.path.join(tmp, "k.npy"), k)
        out = os.path.join(tmp, "o.npy")
        subprocess.run(["hlo-run", os.path.join(here, hlo), os.path.join(tmp, "x.npy"),
                        os.path.join(tmp, "k.npy"), "-o", out] + sys.argv[1:], check=True)
        got = np.load(out)
        print(name, got.shape, "same" if got.shape == want.shape and np.allclose(got, want) else "differs")


x = np.arange(8, dtype=np.float32).reshape(2, 4, 1) - 3      # b0f: batch 2, width 4, features 1
k = np.array([[[1, 2]], [[3, -1]]], dtype=np.float32)        # 0io: window 2, in 1, out 2
want = np.zeros((2, 3, 2))
for b in range(2):
    for o in range(3):
        for w in range(2):
            want[b, o, :] += x[b, o + w, 0] * k[w, 0, :]
check("conv", "conv.hlo", x, k, want)

# depthwise: feature c of the input with the window of output feature c
xd = np.arange(16, dtype=np.float32).reshape(2, 4, 2) * 0.5 - 2  # b0f: batch 2, width 4, features 2
kd = np.array([[[1, -2]], [[3, 0.5]]], dtype=np.float32)         # 0io: window 2, in 1, out 2
want = np.zeros((2, 3, 2))
for b in range(2):
    for o in range(3):
        for w in range(2):
            want[b, o, :] += xd[b, o + w, :] * kd[w, 0, :]
check("depthwise", "conv_depthwise.hlo", xd, kd, want)
