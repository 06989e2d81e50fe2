# Helper of testdata/run/fast_scatter.hlo: writes the inputs, then checks the
# results against numpy (np.add.at / np.maximum.at apply updates in index
# order, as XLA's scatter does) and a plain-Python model of XLA's scatter
# (operation_semantics: a window that does not fit is skipped; updates are
# applied in row-major order of the update array).
import sys
import numpy as np

base = sys.argv[1]
rng = np.random.default_rng(11)
# 1: columns of m (dim 1) added: idx in [-20, 540), some out of bounds
m = rng.standard_normal((300, 520)).astype(np.float32)
ci = rng.integers(-20, 540, size=(2000, 1)).astype(np.int32)
cu = rng.standard_normal((2000, 300)).astype(np.float32)
# 2: points, maximum; u32 indices, some past the end
p = rng.standard_normal((40, 50)).astype(np.float32)
pi = np.stack([rng.integers(0, 44, 3000), rng.integers(0, 55, 3000)], axis=1).astype(np.uint32)
pu = rng.standard_normal(3000).astype(np.float32)
# 3: overlapping partial windows [3,4] in f16[6,7,5], assign; index_vector_dim=0
q = rng.standard_normal((6, 7, 5)).astype(np.float16)
qi = rng.integers(-1, 6, size=(2, 40)).astype(np.int64)
qu = rng.standard_normal((3, 40, 4)).astype(np.float16)  # window dims 0 and 2

if len(sys.argv) == 2:
    for name, v in (("m", m), ("ci", ci), ("cu", cu), ("p", p), ("pi", pi), ("pu", pu),
                    ("q", q), ("qi", qi), ("qu", qu)):
        np.save("%s.%s.npy" % (base, name), v)
    sys.exit(0)

want1 = m.copy()
ok = (ci[:, 0] >= 0) & (ci[:, 0] < 520)
np.add.at(want1.T, ci[ok, 0], cu[ok])
want2 = p.copy()
ok = (pi[:, 0] < 40) & (pi[:, 1] < 50)
np.maximum.at(want2, (pi[ok, 0], pi[ok, 1]), pu[ok])
# 3 by the definition: index components 0 and 1 start the window in
# operand dims 0 and 1; the update's window dims 0 and 2 map to operand
# dims 1 and 2 (inserted dim 0); element (w1, k, w2) of the updates, in
# that order (a later window may be overwritten by an earlier one's
# element that comes later in the update array)
want3 = q.copy()
for w1 in range(3):
    for k in range(40):
        for w2 in range(4):
            s0, s1 = int(qi[0, k]), int(qi[1, k])
            if 0 <= s0 <= 6 - 1 and 0 <= s1 <= 7 - 3:
                want3[s0, s1 + w1, w2] = qu[w1, k, w2]
if len(sys.argv) == 3 and sys.argv[2] == "order":
    other = q.copy()
    for k in range(40):
        for w1 in range(3):
            for w2 in range(4):
                s0, s1 = int(qi[0, k]), int(qi[1, k])
                if 0 <= s0 <= 6 - 1 and 0 <= s1 <= 7 - 3:
                    other[s0, s1 + w1, w2] = qu[w1, k, w2]
    print("window order gives a different result:", not np.array_equal(other, want3))
    sys.exit(0)
for run in sys.argv[2:]:
    got = np.load(run)
    res = [got["out%d" % i] for i in range(3)]
    same = all(np.array_equal(g.view(np.uint8), w.view(np.uint8))
               for g, w in zip(res, (want1, want2, want3)))
    print("%s: %s" % (run.split(".")[-2], "identical" if same else "DIFFERENT"))
