"""Inputs of fast_move.hlo: sort keys with many ties and both zeros, a
payload, a matrix, update rows and row indices with duplicates and
out-of-bounds values.  argv[1] is the output prefix."""
import sys
import numpy as np

p = sys.argv[1]
rng = np.random.default_rng(5)
a = (np.round(rng.standard_normal(100000) * 20) / 4).astype(np.float32)
a[rng.integers(0, a.size, 500)] = -0.0
a[rng.integers(0, a.size, 50)] = np.inf
np.save(p + ".a.npy", a)
np.save(p + ".i.npy", np.arange(100000, dtype=np.int32))
np.save(p + ".m.npy", rng.standard_normal((300, 500)).astype(np.float32))
np.save(p + ".u.npy", rng.standard_normal((1000, 500)).astype(np.float32))
np.save(p + ".ix.npy", rng.integers(-5, 310, size=(1000, 1)).astype(np.int32))
