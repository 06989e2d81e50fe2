# Helper of testdata/run/fast_conv16.test: writes the module and inputs, then
# checks the results against numpy convolutions computed in float64.
import sys
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

base = sys.argv[1]
rng = np.random.default_rng(3)
# f16, non-negative (no cancellation): NHWC 3x3, padding 1
x = rng.uniform(0, 2, size=(2, 9, 9, 6)).astype(np.float16)
w = rng.uniform(0, 2, size=(3, 3, 6, 5)).astype(np.float16)
# f32, 3 spatial dims, 2 feature groups of 4 inputs -> 3 outputs each
y = rng.standard_normal((2, 5, 6, 7, 8)).astype(np.float32)
k = rng.standard_normal((3, 3, 3, 4, 6)).astype(np.float32)

if len(sys.argv) == 2:
    np.save(base + ".x.npy", x)
    np.save(base + ".w.npy", w)
    np.save(base + ".y.npy", y)
    np.save(base + ".k.npy", k)
    with open(base + ".hlo", "w") as f:
        f.write("HloModule m\nENTRY e {\n x = f16[2,9,9,6] parameter(0)\n w = f16[3,3,6,5] parameter(1)\n"
                " y = f32[2,5,6,7,8] parameter(2)\n k = f32[3,3,3,4,6] parameter(3)\n"
                " c = f16[2,9,9,5] convolution(x, w), window={size=3x3 pad=1_1x1_1},"
                " dim_labels=b01f_01io->b01f\n"
                " g = f32[2,3,4,5,6] convolution(y, k), window={size=3x3x3},"
                " dim_labels=b012f_012io->b012f, feature_group_count=2\n"
                " ROOT r = (f16[2,9,9,5], f32[2,3,4,5,6]) tuple(c, g)\n}\n")
    sys.exit(0)

xp = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
win = sliding_window_view(xp, (3, 3), axis=(1, 2))            # b, 9, 9, f, 3, 3
want_c = np.einsum("byxfij,ijfo->byxo", win, w.astype(np.float64)).astype(np.float16)
win3 = sliding_window_view(y.astype(np.float64), (3, 3, 3), axis=(1, 2, 3))  # b,3,4,5,f,3,3,3
want_g = np.concatenate(
    [np.einsum("bzyxfijl,ijlfo->bzyxo", win3[..., 4 * g:4 * g + 4, :, :, :],
               k[..., 3 * g:3 * g + 3].astype(np.float64)) for g in range(2)], axis=-1)
got = np.load(sys.argv[2])
c, g = got["out0"], got["out1"]
ulp = np.abs(c.view(np.int16).astype(np.int64) - want_c.view(np.int16).astype(np.int64))
print("f16 conv: %d of %d differ from numpy, max %d ulp" % (int((ulp > 0).sum()), ulp.size,
                                                            int(ulp.max())))
print("f16 conv within 1 ulp:", bool(ulp.max() <= 1))
err = np.abs(g - want_g) / (1 + np.abs(want_g))
print("grouped 3-D f32 within 1e-5:", bool(err.max() < 1e-5))
