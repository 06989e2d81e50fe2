"""Checks the results of fast_move.hlo against numpy (argv[1]: prefix)."""
import sys
import numpy as np

p = sys.argv[1]
a, i, m, u, ix = (np.load(p + ".%s.npy" % n) for n in ("a", "i", "m", "u", "ix"))
r1, r2, rr = (np.load(p + ".%s.npz" % n) for n in ("1", "2", "r"))
perm = np.argsort(a, kind="stable")  # -0 and +0 compare equal here too
assert np.array_equal(r1["out0"].view(np.uint32), a[perm].view(np.uint32))
assert np.array_equal(r1["out1"], i[perm])
print("sort ok")
assert np.array_equal(r1["out2"], m.T)
print("transpose ok")
assert np.array_equal(r1["out3"], np.concatenate((m, m), axis=1))
print("concatenate ok")
z = m.copy()
ok = (ix[:, 0] >= 0) & (ix[:, 0] < 300)
np.add.at(z, ix[ok, 0], u[ok])
assert np.array_equal(r1["out4"], z)
print("scatter ok")
for k in r1.files:
    assert r1[k].tobytes() == r2[k].tobytes() == rr[k].tobytes(), k
print("threads and reference identical")
