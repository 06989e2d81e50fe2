# Helper of testdata/run/fast_narrow.test: writes the module and inputs, then checks.
import sys
import numpy as np

base = sys.argv[1]
R, C = 40, 300
rng = np.random.default_rng(5)
a = (rng.standard_normal((R, C)) * 3).astype(np.float16)
b = (rng.standard_normal(C) * 100).astype(np.float16)
c = (rng.standard_normal((R, C)) * 0.01).astype(np.float16)
edges = np.array([65504, -65504, 6e-8, -6e-8, 6.1e-5, 0.0, -0.0, np.inf, -np.inf, np.nan,
                  1.0009765625, 32768, 2.0, 0.5], dtype=np.float16)
a.flat[:len(edges)] = edges
c.flat[7:7 + len(edges)] = edges[::-1]
b[:len(edges)] = edges

if len(sys.argv) == 2:
    np.save(base + ".a.npy", a)
    np.save(base + ".b.npy", b)
    np.save(base + ".c.npy", c)
    with open(base + ".hlo", "w") as f:
        f.write("HloModule m\n"
                "f {\n p0 = f16[40,300] parameter(0)\n p1 = f16[300] parameter(1)\n"
                " p2 = f16[40,300] parameter(2)\n bb = f16[40,300] broadcast(p1), dimensions={1}\n"
                " m = f16[40,300] multiply(p0, bb)\n s = f16[40,300] add(m, p2)\n"
                " d = f16[40,300] divide(s, bb)\n ROOT x = f16[40,300] maximum(d, p2)\n}\n"
                "ENTRY e {\n a = f16[40,300] parameter(0)\n b = f16[300] parameter(1)\n"
                " c = f16[40,300] parameter(2)\n"
                " ROOT r = f16[40,300] fusion(a, b, c), kind=kLoop, calls=f\n}\n")
    sys.exit(0)

with np.errstate(all="ignore"):
    m = a * b
    s = m + c
    d = s / b
    # XLA maximum: NaN propagates, +0 above -0 (numpy's maximum propagates NaN;
    # for equal zeros pick +0)
    want = np.maximum(d, c)
    z = (d == 0) & (c == 0)
    want[z] = np.where(np.signbit(d[z]) & np.signbit(c[z]), np.float16(-0.0), np.float16(0.0))
for kind in ("fast", "reference"):
    got = np.load(base + (".out.npz" if kind == "fast" else ".ref.npz"))["out0"]
    gb, wb = got.view(np.uint16), want.view(np.uint16)
    bad = ~((gb == wb) | (np.isnan(got) & np.isnan(want)))
    print("%s f16: %d of %d differ" % (kind, int(bad.sum()), bad.size))
    for i in np.flatnonzero(bad)[:5]:
        print("  at %d: got %r want %r" % (i, got.flat[i], want.flat[i]))
