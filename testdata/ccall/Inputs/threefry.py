"""Threefry-2x32 (20 rounds) in numpy, checked against the published test
vectors (Random123's known answers, also in JAX's random tests), then
compared bit for bit with hlo-run's cuda_threefry2x32 on random counters."""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROT = (13, 15, 26, 6, 17, 29, 16, 24)


def rotl(v, r):
    return ((v << np.uint32(r)) | (v >> np.uint32(32 - r))).astype(np.uint32)


def threefry(k0, k1, x0, x1):
    k0, k1, x0, x1 = (np.asarray(v, dtype=np.uint32) for v in (k0, k1, x0, x1))
    ks = [k0, k1, k0 ^ k1 ^ np.uint32(0x1BD11BDA)]
    with np.errstate(over="ignore"):
        x = [x0 + ks[0], x1 + ks[1]]
        for g in range(1, 6):
            for r in ROT[(g - 1) % 2 * 4:(g - 1) % 2 * 4 + 4]:
                x[0] = x[0] + x[1]
                x[1] = rotl(x[1], r) ^ x[0]
            x[0] = x[0] + ks[g % 3]
            x[1] = x[1] + ks[(g + 1) % 3] + np.uint32(g)
    return x


VECTORS = [  # key, counter -> result
    ((0, 0), (0, 0), (0x6b200159, 0x99ba4efe)),
    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
    ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0)),
]


def main():
    module = sys.argv[1]
    for key, ctr, want in VECTORS:
        got = threefry(key[0], key[1], ctr[0], ctr[1])
        if (int(got[0]), int(got[1])) != want:
            print("threefry model: vector %r gives %x %x" % (key, int(got[0]), int(got[1])))
            return 1
    rng = np.random.default_rng(7)
    ins = [rng.integers(0, 2**32, size=(4, 8), dtype=np.uint64).astype(np.uint32) for _ in range(4)]
    ins[0] = ins[0][:1, :1].reshape(())  # a scalar key half, broadcast
    with tempfile.TemporaryDirectory(prefix="ccall_tf") as d:
        paths = []
        for i, v in enumerate(ins):
            paths.append(os.path.join(d, "in%d.npy" % i))
            np.save(paths[-1], v)
        out = os.path.join(d, "r.npz")
        subprocess.run(["hlo-run", module] + paths + ["-o", out], check=True)
        z = np.load(out)
        got = [z[k] for k in z.files]
    want = threefry(np.broadcast_to(ins[0], (4, 8)), ins[1], ins[2], ins[3])
    n = sum(int((g != w).sum()) for g, w in zip(got, want))
    print("threefry: %d vectors, %d elements, %d differ" % (len(VECTORS), 2 * want[0].size, n))
    return 1 if n else 0


sys.exit(main())
