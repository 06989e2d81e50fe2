# Inputs and numpy expectations for fast_dotconv.hlo: "gen DIR" writes the
# inputs; "check DIR OUT.npz" compares hlo-run's results with numpy.
import sys
import numpy as np


def expected(a, b, c, x, k, w, g):
    out0 = np.maximum(a.astype(np.float64) @ b + c, 0)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    out1 = np.zeros((2, 6, 5, 5))
    for ky in range(3):
        for kx in range(3):
            out1 += xp[:, :, ky:ky + 9:2, kx:kx + 9:2] * k[None, :, 0, ky, kx, None, None]
    out2 = np.einsum("oc,nchw->nohw", w[:, :, 0, 0].astype(np.float64), x)
    out3 = np.zeros((3, 3, 1, 6))
    for oy in range(3):
        for ox in range(3):
            out3[oy, ox, 0, :] = np.einsum("ioyx,ioyx->o", xp[:, :, oy:oy + 9, ox:ox + 9], g)
    return [out0, out1, out2, out3]


def main():
    d = sys.argv[2]
    names = ["a", "b", "c", "x", "k", "w", "g"]
    shapes = [(64, 48), (48, 300), (300,), (2, 6, 9, 9), (6, 1, 3, 3), (4, 6, 1, 1), (2, 6, 9, 9)]
    if sys.argv[1] == "gen":
        rng = np.random.default_rng(7)
        for n, s in zip(names, shapes):
            np.save("%s/%s.npy" % (d, n), rng.standard_normal(s).astype(np.float32))
        return
    ins = [np.load("%s/%s.npy" % (d, n)) for n in names]
    got = np.load(sys.argv[3])
    for i, e in enumerate(expected(*ins)):
        np.testing.assert_allclose(got["out%d" % i], e, rtol=1e-5, atol=1e-5)
    print("match", len(got.files))


main()
