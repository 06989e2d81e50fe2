"""Inputs and the numpy model of permute_in_place_ring.hlo (in-place
collective-permute around four replicas).  `gen IN.npz` writes each device's
inputs (members d<K>.<param>); `check IN.npz OUT.npz...` compares every
result with the model and the runs with each other, bit for bit."""
import sys

import numpy as np

N = 4
# pair -> (source, target, input start, output start, sizes), as in the module
RING = [(0, 1, (0, 1), (2, 2), (2, 3)), (1, 2, (3, 0), (0, 0), (1, 5)),
        (2, 3, (1, 3), (1, 0), (3, 2)), (3, 0, (0, 4), (0, 0), (4, 1))]
VEC = [(3, 1, (5,), (0,), (1,)), (0, 2, (2,), (5,), (1,)), (2, 3, (0,), (2,), (4,))]


def gen(path):
    rng = np.random.default_rng(7)
    ins = {}
    for k in range(N):
        ins["d%d.i" % k] = rng.standard_normal((4, 5)).astype(np.float32)
        ins["d%d.o" % k] = rng.standard_normal((4, 5)).astype(np.float32)
        ins["d%d.j" % k] = rng.integers(-2**62, 2**62, 6, dtype=np.int64)
        ins["d%d.q" % k] = rng.integers(-2**62, 2**62, 6, dtype=np.int64)
    np.savez(path, **ins)


def model(ins, src_name, dst_name, pairs, k):
    out = ins["d%d.%s" % (k, dst_name)].copy()
    for s, t, a, b, sz in pairs:
        if t != k:
            continue
        src = ins["d%d.%s" % (s, src_name)]
        out[tuple(slice(b[d], b[d] + sz[d]) for d in range(len(sz)))] = \
            src[tuple(slice(a[d], a[d] + sz[d]) for d in range(len(sz)))]
    return out


def check(inp, outs):
    ins = dict(np.load(inp))
    runs = [dict(np.load(o)) for o in outs]
    equal = 0
    for k in range(N):
        want = [model(ins, "i", "o", RING, k), model(ins, "j", "q", VEC, k)]
        for n, w in enumerate(want):
            got = [r["d%d.arr_%d" % (k, n)] for r in runs]
            if all(g.dtype == w.dtype and g.tobytes() == w.tobytes() for g in got):
                equal += 1
            else:
                print("device %d result %d differs: want %s got %s" % (k, n, w, got))
    print("permute_in_place_ring: %d runs, %d results equal, slices checked" % (len(runs), equal))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
    else:
        check(sys.argv[2], sys.argv[3:])
