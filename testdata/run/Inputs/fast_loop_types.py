# Helper of testdata/run/fast_loop_types.test: writes a module of fused loops
# with type-changing converts and integer divide/remainder/shifts plus their
# inputs, then checks hlo-run's results against XLA's rules written out
# here (docs DECISIONS: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN,
# INT_MIN % -1 = 0, shifts by >= 32 or < 0 give 0 / the sign fill, float ->
# int saturates with NaN -> 0) and numpy's correctly rounded f64 -> f16.
import math
import sys
import numpy as np

base = sys.argv[1]
IE = [-2**31, 2**31 - 1, -1, 0, 1, 2, 3, -3, 7, -7, 31, 32, 33, -32, 100, -100, 65536]
FE = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310, 0.5, -0.5, 2.5, -0.99, 2147483647.0,
      2147483648.0, -2147483648.0, -2147483904.0, 3e9, -3e9, 1e30, 65504.0, 65520.0, 65519.99,
      1 + 2.0**-11 + 2.0**-40, 1 + 2.0**-11, 1 + 3 * 2.0**-11, 6e-8, 2.9e-8, 3e-8]
rng = np.random.default_rng(11)
N = 4096
a = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
b = rng.integers(-40, 40, N).astype(np.int32)
k = 0
for u in IE:
    for v in IE:
        a[k], b[k] = u, v
        k += 1
x = rng.standard_normal(N) * np.exp(rng.uniform(-30, 30, N))
x[:len(FE)] = FE
y = (rng.standard_normal(N) * 3e9).astype(np.float32)
y[:len(FE)] = np.array(FE, dtype=np.float64).astype(np.float32)
OPS = ["divide", "remainder", "shift-left", "shift-right-logical", "shift-right-arithmetic"]

if len(sys.argv) == 2:
    np.save(base + ".a.npy", a)
    np.save(base + ".b.npy", b)
    np.save(base + ".x.npy", x)
    np.save(base + ".y.npy", y)
    t = "HloModule m\n"
    for i, op in enumerate(OPS):
        t += ("i%d {\n p0 = s32[%d] parameter(0)\n p1 = s32[%d] parameter(1)\n"
              " ROOT r = s32[%d] %s(p0, p1)\n}\n" % (i, N, N, N, op))
    t += ("h {\n p0 = f64[%d] parameter(0)\n ROOT r = f16[%d] convert(p0)\n}\n"
          "s {\n p0 = f32[%d] parameter(0)\n ROOT r = s32[%d] convert(p0)\n}\n" % (N, N, N, N))
    t += ("ENTRY e {\n a = s32[%d] parameter(0)\n b = s32[%d] parameter(1)\n"
          " x = f64[%d] parameter(2)\n y = f32[%d] parameter(3)\n" % (N, N, N, N))
    for i in range(len(OPS)):
        t += " r%d = s32[%d] fusion(a, b), kind=kLoop, calls=i%d\n" % (i, N, i)
    t += " h = f16[%d] fusion(x), kind=kLoop, calls=h\n" % N
    t += " s = s32[%d] fusion(y), kind=kLoop, calls=s\n" % N
    t += " ROOT t = (%s) tuple(r0, r1, r2, r3, r4, h, s)\n}\n" % ", ".join(
        ["s32[%d]" % N] * 5 + ["f16[%d]" % N, "s32[%d]" % N])
    with open(base + ".hlo", "w") as f:
        f.write(t)
    sys.exit(0)


def wrap(v):
    v &= 0xffffffff
    return v - 2**32 if v >= 2**31 else v


def tdiv(p, q):
    r = abs(p) // abs(q)
    return r if (p < 0) == (q < 0) else -r


def xla(op, p, q):
    uq = q & 0xffffffff
    if op == "divide":
        return -1 if q == 0 else wrap(tdiv(p, q))
    if op == "remainder":
        return p if q == 0 else wrap(p - q * tdiv(p, q))
    if op == "shift-left":
        return 0 if uq >= 32 else wrap(p << uq)
    if op == "shift-right-logical":
        return 0 if uq >= 32 else wrap((p & 0xffffffff) >> uq)
    return (-1 if p < 0 else 0) if uq >= 32 else p >> uq


def f2i(v):
    v = float(v)
    if math.isnan(v):
        return 0
    if v <= -2.0**31:
        return -2**31
    if v >= 2.0**31:
        return 2**31 - 1
    return math.trunc(v)


with np.errstate(all="ignore"):
    want = [np.array([xla(op, int(p), int(q)) for p, q in zip(a, b)], dtype=np.int32)
            for op in OPS]
    want.append(x.astype(np.float16))
    want.append(np.array([f2i(v) for v in y], dtype=np.int32))
names = OPS + ["convert f64->f16", "convert f32->s32"]
for kind in ("fast", "reference"):
    z = np.load(base + (".out.npz" if kind == "fast" else ".ref.npz"))
    for i, w in enumerate(want):
        got = z["out%d" % i]
        if w.dtype == np.float16:
            bad = ~((got.view(np.uint16) == w.view(np.uint16)) | (np.isnan(got) & np.isnan(w)))
        else:
            bad = got != w
        print("%s %s: %d of %d differ" % (kind, names[i], int(bad.sum()), bad.size))
        for j in np.flatnonzero(bad)[:3]:
            print("  at %d: got %r want %r" % (j, got.flat[j], w.flat[j]))
