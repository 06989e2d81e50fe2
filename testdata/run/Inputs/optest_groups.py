"""Per-op expectations for optest.py: each group builds modules for a family
of ops over every element type it covers and states the expected values
from numpy or from the semantics written out in Python (DECISIONS.md for
the numerics the specs leave open)."""
import math

import numpy as np

GROUPS = {}


def group(fn):
    GROUPS[fn.__name__] = fn
    return fn


def ulp_tol(t):
    return {"f16": 2.0 ** -10, "bf16": 2.0 ** -7, "f32": 2.0 ** -22, "f64": 1e-14}[t]


def wrap(v, t):
    b = {"s8": 8, "s16": 16, "s32": 32, "s64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}[t]
    v &= (1 << b) - 1
    if t[0] == "s" and v >= 1 << (b - 1):
        v -= 1 << b
    return v


def afz(x):
    r = np.trunc(x)
    frac = np.abs(x - r)
    with np.errstate(invalid="ignore"):
        return np.where(frac >= 0.5, r + np.sign(x), r)


def sign(x):
    with np.errstate(invalid="ignore"):
        return np.where(np.isnan(x), x, np.where(x > 0, 1.0, np.where(x < 0, -1.0, x)))


UNARY_F = {
    "abs": (np.abs, True), "negate": (np.negative, True), "sign": (sign, True),
    "floor": (np.floor, True), "ceil": (np.ceil, True),
    "round-nearest-even": (np.rint, True), "round-nearest-afz": (afz, True),
    "sqrt": (np.sqrt, True),
    "exponential": (np.exp, False), "exponential-minus-one": (np.expm1, False),
    "log": (np.log, False), "log-plus-one": (np.log1p, False),
    "rsqrt": (lambda x: 1.0 / np.sqrt(x), False), "cbrt": (np.cbrt, False),
    "sine": (np.sin, False), "cosine": (np.cos, False), "tan": (np.tan, False),
    "tanh": (np.tanh, False), "sinh": (np.sinh, False), "cosh": (np.cosh, False),
    "asin": (np.arcsin, False), "acos": (np.arccos, False), "atan": (np.arctan, False),
    "asinh": (np.arcsinh, False), "acosh": (np.arccosh, False), "atanh": (np.arctanh, False),
    "erf": (np.vectorize(lambda v: math.erf(v) if not math.isnan(v) else v), False),
    "logistic": (lambda x: 1.0 / (1.0 + np.exp(-x)), False),
}


@group
def unary_float(h):
    for t in h.FLOATS:
        x = h.gen(t)
        names = list(UNARY_F)
        body = ["r%d = %s %s(p0)" % (i, h.shp(t, [h.N]), op) for i, op in enumerate(names)]
        body.append("fin = %s is-finite(p0)" % h.shp("pred", [h.N]))
        res = [("r%d" % i, h.shp(t, [h.N])) for i in range(len(names))] + [("fin", h.shp("pred", [h.N]))]
        out = h.run("unary %s" % t, h.module([h.shp(t, [h.N])], body, res), [(t, x)])
        if not out:
            continue
        h.agree("unary %s" % t, *out)
        with np.errstate(all="ignore"):
            for i, op in enumerate(names):
                fn, exact = UNARY_F[op]
                want = h.round_to(t, fn(x.astype(np.float64)))
                tol = 0 if exact else ulp_tol(t)
                h.compare("%s %s" % (op, t), h.from_storage(t, out[0][i]), want, rtol=tol, atol=0 if exact else 1e-300, inputs=[x])
        h.compare("is-finite %s" % t, out[0][-1], np.isfinite(x))


@group
def binary_float(h):
    ops = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
           "remainder": np.fmod, "maximum": np.maximum, "minimum": np.minimum,
           "power": np.power, "atan2": np.arctan2}
    exact = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"}
    for t in h.FLOATS:
        x, y = h.gen(t), h.gen(t)
        names = list(ops)
        s = h.shp(t, [h.N])
        body = ["r%d = %s %s(p0, p1)" % (i, s, op) for i, op in enumerate(names)]
        res = [("r%d" % i, s) for i in range(len(names))]
        out = h.run("binary %s" % t, h.module([s, s], body, res), [(t, x), (t, y)])
        if not out:
            continue
        h.agree("binary %s" % t, *out)
        with np.errstate(all="ignore"):
            for i, op in enumerate(names):
                want = h.round_to(t, ops[op](x.astype(np.float64), y.astype(np.float64)))
                tol = 0 if op in exact else ulp_tol(t)
                atol = 1e-300 if op in ("maximum", "minimum") or op not in exact else 0
                h.compare("%s %s" % (op, t), h.from_storage(t, out[0][i]), want, rtol=tol, atol=atol, inputs=[x, y])


def int_div(a, b, t):
    if b == 0:
        return wrap(-1, t)
    if t[0] == "s" and b == -1:
        return wrap(-a, t)
    q = abs(a) // abs(b)
    return wrap(q if (a < 0) == (b < 0) else -q, t)


def int_rem(a, b, t):
    if b == 0:
        return a
    if t[0] == "s" and b == -1:
        return 0
    r = abs(a) % abs(b)
    return wrap(-r if a < 0 else r, t)


def shl(a, b, t):
    bits = h_bits(t)
    ub = b & ((1 << bits) - 1)
    return 0 if ub >= bits else wrap(a << ub, t)


def h_bits(t):
    return int(t[1:])


def srl(a, b, t):
    bits = h_bits(t)
    ub = b & ((1 << bits) - 1)
    return 0 if ub >= bits else wrap((a & ((1 << bits) - 1)) >> ub, t)


def sra(a, b, t):
    bits = h_bits(t)
    ub = b & ((1 << bits) - 1)
    sa = a if t[0] == "s" else (a - (1 << bits) if a >= 1 << (bits - 1) else a)
    if ub >= bits:
        return wrap(-1 if sa < 0 else 0, t)
    return wrap(sa >> ub, t)


def ipow(a, b, t):
    if b < 0:
        return 1 if a == 1 else ((-1 if b % 2 else 1) if a == -1 else 0)
    return wrap(pow(a, b, 1 << 64) if a >= 0 else pow(a, b), t)


INT_BIN = {
    "add": lambda a, b, t: wrap(a + b, t), "subtract": lambda a, b, t: wrap(a - b, t),
    "multiply": lambda a, b, t: wrap(a * b, t), "divide": int_div, "remainder": int_rem,
    "maximum": lambda a, b, t: max(a, b), "minimum": lambda a, b, t: min(a, b),
    "and": lambda a, b, t: wrap(a & b, t), "or": lambda a, b, t: wrap(a | b, t),
    "xor": lambda a, b, t: wrap(a ^ b, t),
    "shift-left": shl, "shift-right-logical": srl, "shift-right-arithmetic": sra,
}
INT_UN = {
    "negate": lambda a, t: wrap(-a, t), "abs": lambda a, t: wrap(abs(a), t),
    "sign": lambda a, t: (a > 0) - (a < 0), "not": lambda a, t: wrap(~a, t),
    "popcnt": lambda a, t: bin(a & ((1 << h_bits(t)) - 1)).count("1"),
    "count-leading-zeros": lambda a, t: h_bits(t) - (a & ((1 << h_bits(t)) - 1)).bit_length(),
}


@group
def int_ops(h):
    for t in h.INTS:
        x = h.gen(t)
        y = h.gen(t)
        bits = h_bits(t)
        # shift amounts: in range, at and above the width, negative
        sh = np.array([int(v) for v in h.RNG.integers(0, bits, h.N)], dtype=object)
        sh[:4] = [bits, bits + 1, 0, bits - 1]
        if t[0] == "s":
            sh[4] = -1
        sh = np.array([wrap(int(v), t) for v in sh], dtype=h.NPT[t])
        s = h.shp(t, [h.N])
        bn = list(INT_BIN)
        # XLA's verifier (which hlo-run applies) rejects abs and sign on unsigned types
        un = [op for op in INT_UN if t[0] == "s" or op not in ("abs", "sign")]
        body = ["b%d = %s %s(p0, %s)" % (i, s, op, "p2" if op.startswith("shift") else "p1")
                for i, op in enumerate(bn)]
        body += ["u%d = %s %s(p0)" % (i, s, op) for i, op in enumerate(un)]
        ex = np.array([int(v) for v in h.RNG.integers(-2 if t[0] == "s" else 0, 6, h.N)], dtype=h.NPT[t])
        body.append("pw = %s power(p1, p3)" % s)
        res = [("b%d" % i, s) for i in range(len(bn))] + [("u%d" % i, s) for i in range(len(un))] + [("pw", s)]
        small = np.array([int(v) for v in h.RNG.integers(-3 if t[0] == "s" else 0, 4, h.N)], dtype=h.NPT[t])
        out = h.run("int %s" % t, h.module([s, s, s, s], body, res), [(t, x), (t, small), (t, sh), (t, ex)])
        if not out:
            continue
        h.agree("int %s" % t, *out)
        xs, ys, ss, es = ([int(v) for v in a] for a in (x, small, sh, ex))
        for i, op in enumerate(bn):
            other = ss if op.startswith("shift") else ys
            want = np.array([INT_BIN[op](a, b, t) for a, b in zip(xs, other)], dtype=object)
            h.compare("%s %s" % (op, t), out[0][i], want, inputs=[x, np.array(other)])
        for i, op in enumerate(un):
            want = np.array([INT_UN[op](a, t) for a in xs], dtype=object)
            h.compare("%s %s" % (op, t), out[0][len(bn) + i], want, inputs=[x])
        want = np.array([ipow(a, b, t) for a, b in zip(ys, es)], dtype=object)
        h.compare("power %s" % t, out[0][-1], want, inputs=[small, ex])


def total_key(v):
    b = np.asarray(v, np.float64).view(np.int64)
    return np.where(b < 0, b ^ np.int64(0x7FFFFFFFFFFFFFFF), b)


@group
def compare(h):
    dirs = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
            "GT": np.greater, "GE": np.greater_equal}
    for t in ["pred"] + h.INTS + h.FLOATS:
        x, y = h.gen(t), h.gen(t)
        if t != "pred":
            y[: h.N // 4] = x[: h.N // 4]  # equal pairs
        s, p = h.shp(t, [h.N]), h.shp("pred", [h.N])
        body, res, want = [], [], []
        for d, fn in dirs.items():
            body.append("c%s = %s compare(p0, p1), direction=%s" % (d, p, d))
            res.append(("c" + d, p))
            with np.errstate(invalid="ignore"):
                want.append(fn(x.astype(object) if t in h.INTS else x, y.astype(object) if t in h.INTS else y))
            if t in h.FLOATS:
                body.append("t%s = %s compare(p0, p1), direction=%s, type=TOTALORDER" % (d, p, d))
                res.append(("t" + d, p))
                want.append(fn(total_key(x), total_key(y)))
        out = h.run("compare %s" % t, h.module([s, s], body, res), [(t, x), (t, y)])
        if not out:
            continue
        h.agree("compare %s" % t, *out)
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("compare %s %s" % (name, t), g, np.asarray(w, dtype=bool), inputs=[x, y])


def convert_expect(v, src, dst, h):
    if dst == "pred":
        return bool(v != 0) if not (isinstance(v, float) and math.isnan(v)) else True
    if dst in h.INTS:
        if src in h.FLOATS:
            if math.isnan(v):
                return 0
            info = np.iinfo(h.NPT[dst])
            if v <= info.min:
                return int(info.min)
            if v >= info.max:
                return int(info.max)
            return int(math.trunc(v))
        return wrap(int(v), dst)
    # float targets
    if src in h.INTS or src == "pred":
        if dst == "bf16":
            return float(h.round_to("bf16", float(np.array(int(v), dtype=h.NPT[src]).astype(np.float32))))
        with np.errstate(all="ignore"):
            return float(np.array(int(v), dtype=h.NPT[src]).astype(h.NPT[dst]))
    return float(h.round_to(dst, v))


@group
def convert(h):
    types = ["pred"] + h.INTS + h.FLOATS
    for src in types:
        x = h.gen(src, lo=-300, hi=300)
        if src in h.FLOATS:
            x = np.concatenate([x, h.round_to(src, np.array([1e10, -1e10, 65536.7, -129.5, 255.9, 4294967296.0, 2.0 ** 63, -2.0 ** 63]))])
        n = len(x)
        body, res = [], []
        dsts = [d for d in types if d != src]
        for i, d in enumerate(dsts):
            body.append("c%d = %s convert(p0)" % (i, h.shp(d, [n])))
            res.append(("c%d" % i, h.shp(d, [n])))
        out = h.run("convert from %s" % src, h.module([h.shp(src, [n])], body, res), [(src, x)])
        if not out:
            continue
        h.agree("convert from %s" % src, *out)
        vals = [float(v) if src in h.FLOATS else (int(v) if src != "pred" else int(bool(v))) for v in x]
        for i, d in enumerate(dsts):
            want = [convert_expect(v, src, d, h) for v in vals]
            want = np.array(want, dtype=object if d in h.INTS else (bool if d == "pred" else np.float64))
            got = h.from_storage(d, out[0][i])
            h.compare("convert %s->%s" % (src, d), got, want, inputs=[x])


@group
def bitcast(h):
    cases = [("f32", "s32", [h.N]), ("s32", "f32", [h.N]), ("f64", "u64", [h.N]), ("u32", "f32", [h.N]),
             ("f16", "s16", [h.N]), ("u16", "f16", [h.N]), ("s32", "u8", [h.N, 4]), ("u8", "s32", [h.N // 4]),
             ("s64", "s32", [h.N, 2]), ("f64", "f32", [h.N, 2])]
    for src, dst, dshape in cases:
        x = h.gen(src)
        if src == "u8":
            x = x.reshape(h.N // 4, 4)
        sshape = list(x.shape)
        m = h.module([h.shp(src, sshape)], ["r = %s bitcast-convert(p0)" % h.shp(dst, dshape)], [("r", h.shp(dst, dshape))])
        out = h.run("bitcast-convert %s->%s" % (src, dst), m, [(src, x)])
        if not out:
            continue
        h.agree("bitcast-convert %s->%s" % (src, dst), *out)
        want = np.ascontiguousarray(h.to_storage(src, x)).view(h.NPT[dst]).reshape(dshape)
        h.compare("bitcast-convert %s->%s" % (src, dst), out[0][0], want if dst not in h.FLOATS else want.astype(np.float64))


def np_pad(x, cfg, val):
    """cfg: list of (lo, hi, interior); interior first, then edges (negative cut)."""
    for d, (lo, hi, it) in enumerate(cfg):
        n = x.shape[d]
        if it and n:
            shape = list(x.shape)
            shape[d] = n + (n - 1) * it
            y = np.full(shape, val, dtype=x.dtype)
            idx = [slice(None)] * x.ndim
            idx[d] = slice(0, None, it + 1)
            y[tuple(idx)] = x
            x = y
        if lo > 0:
            shape = list(x.shape)
            shape[d] = lo
            x = np.concatenate([np.full(shape, val, dtype=x.dtype), x], axis=d)
        elif lo < 0:
            x = np.take(x, range(-lo, x.shape[d]), axis=d)
        if hi > 0:
            shape = list(x.shape)
            shape[d] = hi
            x = np.concatenate([x, np.full(shape, val, dtype=x.dtype)], axis=d)
        elif hi < 0:
            x = np.take(x, range(0, x.shape[d] + hi), axis=d)
    return x


@group
def movement(h):
    for t in ["pred", "s8", "s32", "s64", "u16", "f16", "bf16", "f32", "f64", "c64", "c128"]:
        dims = [3, 4, 5]
        x = h.gen(t, n=60).reshape(dims)
        pv = h.gen(t, n=1)
        S = lambda d: h.shp(t, d)  # noqa: E731
        v4 = h.gen(t, n=4)
        upd = h.gen(t, n=8).reshape(2, 2, 2)
        body = [
            "tr = %s transpose(p0), dimensions={2,0,1}" % S([5, 3, 4]),
            "rv = %s reverse(p0), dimensions={0,2}" % S(dims),
            "sl = %s slice(p0), slice={[1:3], [0:4:2], [1:5:3]}" % S([2, 2, 2]),
            "pd = %s pad(p0, p1), padding=1_2_1x-1_0_0x0_-2_2" % S([8, 3, 11]),
            "ct = %s concatenate(p0, p0), dimensions={1}" % S([3, 8, 5]),
            "bc = %s broadcast(p0), dimensions={1,2,3}" % S([2, 3, 4, 5]),
            "b2 = %s broadcast(p2), dimensions={1}" % S(dims),
            "rs = %s reshape(p0)" % S([5, 12]),
            "i0 = s32[] constant(2)\n  i1 = s32[] constant(-1)\n  i2 = s32[] constant(3)",
            "ds = %s dynamic-slice(p0, i0, i1, i2), dynamic_slice_sizes={2,3,4}" % S([2, 3, 4]),
            "j0 = s32[] constant(5)\n  j1 = s32[] constant(1)\n  j2 = s32[] constant(-7)",
            "du = %s dynamic-update-slice(p0, p3, j0, j1, j2)" % S(dims),
            "cp = %s copy(p0)" % S(dims),
        ]
        res = [("tr", S([5, 3, 4])), ("rv", S(dims)), ("sl", S([2, 2, 2])), ("pd", S([8, 3, 11])),
               ("ct", S([3, 8, 5])), ("bc", S([2, 3, 4, 5])), ("b2", S(dims)), ("rs", S([5, 12])),
               ("ds", S([2, 3, 4])), ("du", S(dims)), ("cp", S(dims))]
        if t != "pred":
            body.append("io = %s iota(), iota_dimension=1" % S(dims))
            res.append(("io", S(dims)))
        out = h.run("movement %s" % t, h.module([S(dims), S([]), S([4]), S([2, 2, 2])], body, res),
                    [(t, x), (t, pv.reshape(())), (t, v4), (t, upd)])
        if not out:
            continue
        h.agree("movement %s" % t, *out)
        du = x.copy()
        du[1:3, 1:3, 0:2] = upd
        want = [np.transpose(x, (2, 0, 1)), np.flip(x, (0, 2)), x[1:3, 0:4:2, 1:5:3],
                np_pad(x, [(1, 2, 1), (-1, 0, 0), (0, -2, 2)], pv[0]), np.concatenate([x, x], 1),
                np.broadcast_to(x, [2, 3, 4, 5]), np.broadcast_to(v4.reshape(1, 4, 1), dims),
                x.reshape(5, 12), x[1:3, 0:3, 1:5], du, x]
        if t != "pred":
            want.append(np.broadcast_to(np.arange(4).reshape(1, 4, 1), dims))
        for (name, _), w, g in zip(res, want, out[0]):
            g = h.from_storage(t, g)
            if t not in h.INTS and t != "pred" and t not in ("c64", "c128"):
                w = np.asarray(w, np.float64)
            h.compare("%s %s" % (name, t), g, np.asarray(w))


def seq_reduce(x, axes, init, fn, t, h, once=False):
    """Reduce in row-major order over the reduced index, rounding every step
    (once: summing in double and rounding at the end, as XLA's evaluator
    does for a float reduce whose reducer is a scalar add)."""
    keep = [d for d in range(x.ndim) if d not in axes]
    xt = np.transpose(x, keep + list(axes))
    kshape = xt.shape[:len(keep)]
    acc = np.full(kshape, init, dtype=object if t in h.INTS else np.float64)
    for idx in np.ndindex(*xt.shape[len(keep):]):
        v = xt[(Ellipsis,) + idx]
        if t in h.INTS:
            acc = np.vectorize(lambda a, b: wrap(fn(int(a), int(b)), t), otypes=[object])(acc, v)
        else:
            with np.errstate(all="ignore"):
                acc = fn(acc, v.astype(np.float64))
                if not once:
                    acc = h.round_to(t, acc)
    if once:
        with np.errstate(all="ignore"):
            acc = h.round_to(t, acc)
    return acc


@group
def reduce(h):
    comps = {"add": (lambda a, b: a + b, 0), "multiply": (lambda a, b: a * b, 1),
             "maximum": (None, "lo"), "minimum": (None, "hi")}
    for t in ["s32", "s64", "u8", "f16", "bf16", "f32", "f64"]:
        dims = [3, 4, 5]
        x = h.gen(t, n=60, edges=False, lo=-3, hi=3).reshape(dims)
        hdr = ""
        for op in comps:
            hdr += "%s_c { a = %s[] parameter(0)\n b = %s[] parameter(1)\n ROOT r = %s[] %s(a, b) }\n" % (op, t, t, t, op)
        body, res, want = [], [], []
        k = 0
        for op, (fn, init) in comps.items():
            if t in h.INTS:
                info = np.iinfo(h.NPT[t])
                iv = {"lo": int(info.min), "hi": int(info.max)}.get(init, init)
            else:
                iv = {"lo": -np.inf, "hi": np.inf}.get(init, init)
            f = fn or (lambda a, b, op=op: (np.maximum if op == "maximum" else np.minimum)(a, b)) if t not in h.INTS else \
                fn or (max if op == "maximum" else min)
            for axes in [(1,), (0, 2), (0, 1, 2)]:
                rs = [dims[d] for d in range(3) if d not in axes]
                ivt = ("%s" % iv) if t in h.INTS else ("-inf" if iv == -np.inf else "inf" if iv == np.inf else repr(float(iv)))
                body.append("z%d = %s[] constant(%s)" % (k, t, ivt))
                body.append("r%d = %s reduce(p0, z%d), dimensions={%s}, to_apply=%s_c" %
                            (k, h.shp(t, rs), k, ",".join(map(str, axes)), op))
                res.append(("r%d" % k, h.shp(t, rs)))
                want.append(seq_reduce(x if t not in h.INTS else x.astype(object), axes, iv, f, t, h,
                                       once=op == "add" and t not in h.INTS))
                k += 1
        # reduce-window: 2x2 stride 1x2 with padding on the last two dims, and base dilation
        body.append("zw = %s[] constant(0)" % t)
        body.append("rw = %s reduce-window(p0, zw), window={size=1x2x3 stride=1x1x2 pad=0_0x1_0x1_1}, to_apply=add_c" % h.shp(t, [3, 4, 3]))
        res.append(("rw", h.shp(t, [3, 4, 3])))
        xp = np_pad(x.astype(object) if t in h.INTS else x, [(0, 0, 0), (1, 0, 0), (1, 1, 0)], 0)
        rw = np.empty((3, 4, 3), dtype=object if t in h.INTS else np.float64)
        for i in range(3):
            for j in range(4):
                for l in range(3):
                    acc = 0
                    for a in range(2):
                        for b in range(3):
                            v = xp[i, j + a, 2 * l + b]
                            acc = wrap(acc + int(v), t) if t in h.INTS else float(h.round_to(t, acc + float(v)))
                    rw[i, j, l] = acc
        want.append(rw)
        m = h.module([h.shp(t, dims)], body, res, pre=hdr)
        out = h.run("reduce %s" % t, m, [(t, x)])
        if not out:
            continue
        # The fast path sums f32/f64 in another order than the sequential
        # reference (docs/fast.md): its add reductions (the first three
        # results) agree to rounding; everything else bit for bit.
        tol = {"f32": 2e-6, "f64": 1e-14}.get(t, 0.0)
        h.agree("reduce add %s" % t, out[0][:3], out[1][:3], tol=tol)
        h.agree("reduce %s" % t, out[0][3:], out[1][3:])
        for k, ((name, _), w, g, gr) in enumerate(zip(res, want, out[0], out[1])):
            rt = tol if k < 3 else 0.0
            h.compare("reduce %s %s" % (name, t), h.from_storage(t, g), np.asarray(w), rtol=rt, atol=rt)
            h.compare("reduce %s %s (reference)" % (name, t), h.from_storage(t, gr), np.asarray(w))


@group
def dot_conv(h):
    for t in ["f32", "f64", "s32", "c64", "f16"]:
        S = lambda d: h.shp(t, d)  # noqa: E731
        a = h.gen(t, n=60, edges=False, lo=-2, hi=2).reshape(3, 4, 5)
        b = h.gen(t, n=40, edges=False, lo=-2, hi=2).reshape(5, 4, 2)
        m1 = h.gen(t, n=20, edges=False).reshape(4, 5)
        bb = h.gen(t, n=30, edges=False).reshape(3, 5, 2)
        body = ["d0 = %s dot(p0, p1), lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}" % S([3, 2]),
                "d1 = %s dot(p2, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}" % S([4, 4, 2]),
                "d2 = %s dot(p0, p3), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}" % S([3, 4, 2])]
        res = [("d0", S([3, 2])), ("d1", S([4, 4, 2])), ("d2", S([3, 4, 2]))]
        out = h.run("dot %s" % t, h.module([S([3, 4, 5]), S([5, 4, 2]), S([4, 5]), S([3, 5, 2])], body, res),
                    [(t, a), (t, b), (t, m1), (t, bb)])
        if not out:
            continue
        exact = t == "s32"
        h.agree("dot %s" % t, *out, tol=0 if exact else 1e-3 if t == "f16" else 1e-5)
        cast = (lambda v: v.astype(np.int64)) if exact else (lambda v: v.astype(np.complex128 if t == "c64" else np.float64))
        want = [np.einsum("ijk,kjl->il", cast(a), cast(b)), np.einsum("ij,jkl->ikl", cast(m1), cast(b)),
                np.einsum("bik,bkj->bij", cast(a), cast(bb))]
        tol = 0 if exact else (2e-3 if t == "f16" else 1e-5)
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("%s %s" % (name, t), g, w if exact else (w if t == "c64" else h.round_to(t, w)), rtol=tol, atol=tol)
    # convolution against a direct Python definition
    for t in ["f32", "f64"]:
        for case in CONV_CASES:
            lhs_shape, rhs_shape, attrs, labels, fgc, bgc = case
            x = h.gen(t, n=int(np.prod(lhs_shape)), edges=False).reshape(lhs_shape)
            k = h.gen(t, n=int(np.prod(rhs_shape)), edges=False).reshape(rhs_shape)
            want = conv_ref(x, k, attrs, labels, fgc, bgc)
            m = h.module([h.shp(t, lhs_shape), h.shp(t, rhs_shape)],
                         ["c = %s convolution(p0, p1), %s, dim_labels=%s, feature_group_count=%d, batch_group_count=%d" %
                          (h.shp(t, want.shape), attrs["text"], labels, fgc, bgc)], [("c", h.shp(t, want.shape))])
            out = h.run("conv %s %s" % (labels, t), m, [(t, x), (t, k)])
            if not out:
                continue
            h.agree("conv %s %s" % (labels, t), *out, tol=1e-5)
            h.compare("conv %s %s %s" % (labels, attrs["text"], t), out[0][0], h.round_to(t, want), rtol=1e-5, atol=1e-5)


CONV_CASES = [
    ([2, 5, 4, 10], [3, 3, 6, 10], {"text": "window={size=3x3 pad=1_1x1_1}", "size": [3, 3], "stride": [1, 1],
     "pad": [(1, 1), (1, 1)], "lhs": [1, 1], "rhs": [1, 1]}, "b01f_01oi->b01f", 1, 1),
    ([2, 6, 3, 4], [4, 3, 1, 1], {"text": "window={size=1x1}", "size": [1, 1], "stride": [1, 1],
     "pad": [(0, 0), (0, 0)], "lhs": [1, 1], "rhs": [1, 1]}, "bf01_oi01->bf01", 2, 1),
    ([2, 3, 7, 6], [4, 3, 3, 2], {"text": "window={size=3x2 stride=2x1 pad=1_2x0_1}", "size": [3, 2], "stride": [2, 1],
     "pad": [(1, 2), (0, 1)], "lhs": [1, 1], "rhs": [1, 1]}, "bf01_oi01->bf01", 1, 1),
    ([2, 6, 5, 4], [2, 2, 4, 3], {"text": "window={size=2x2 pad=0_1x1_0 lhs_dilate=2x1 rhs_dilate=1x2}", "size": [2, 2], "stride": [1, 1],
     "pad": [(0, 1), (1, 0)], "lhs": [2, 1], "rhs": [1, 2]}, "b01f_01io->b01f", 1, 1),
    ([1, 4, 5, 5], [6, 2, 3, 3], {"text": "window={size=3x3 pad=1_1x1_1}", "size": [3, 3], "stride": [1, 1],
     "pad": [(1, 1), (1, 1)], "lhs": [1, 1], "rhs": [1, 1]}, "bf01_oi01->bf01", 2, 1),
    ([4, 2, 5], [4, 2, 3], {"text": "window={size=3 stride=2}", "size": [3], "stride": [2],
     "pad": [(0, 0)], "lhs": [1], "rhs": [1]}, "bf0_oi0->bf0", 1, 2),
    ([1, 2, 4, 5], [3, 2, 2, 3], {"text": "window={size=2x3 pad=1_0x2_1 lhs_dilate=1x2}", "size": [2, 3], "stride": [1, 1],
     "pad": [(1, 0), (2, 1)], "lhs": [1, 2], "rhs": [1, 1]}, "bf01_oi01->bf01", 1, 1),
    ([2, 6, 6, 3], [5, 4, 3, 2], {"text": "window={size=5x4 stride=1x2 pad=0_0x1_1 rhs_dilate=1x1}", "size": [5, 4], "stride": [1, 2],
     "pad": [(0, 0), (1, 1)], "lhs": [1, 1], "rhs": [1, 1]}, "b01f_01io->b01f", 1, 1),
    ([2, 6, 7, 3], [5, 4, 3, 2], {"text": "window={size=5x4 lhs_dilate=1x2 rhs_dilate=1x2}", "size": [5, 4], "stride": [1, 1],
     "pad": [(0, 0), (0, 0)], "lhs": [1, 2], "rhs": [1, 2]}, "b01f_01io->b01f", 1, 1),
]


def parse_labels(labels):
    lhs, rest = labels.split("_")
    rhs, out = rest.split("->")
    def pos(s, ch):
        return s.index(ch)
    ns = len(lhs) - 2
    return ({"b": pos(lhs, "b"), "f": pos(lhs, "f"), "s": [pos(lhs, str(i)) for i in range(ns)]},
            {"o": pos(rhs, "o"), "i": pos(rhs, "i"), "s": [pos(rhs, str(i)) for i in range(ns)]},
            {"b": pos(out, "b"), "f": pos(out, "f"), "s": [pos(out, str(i)) for i in range(ns)]}, ns)


def conv_ref(x, k, attrs, labels, fgc, bgc):
    L, R, O, ns = parse_labels(labels)
    x = x.astype(np.float64)
    k = k.astype(np.float64)
    B, IF = x.shape[L["b"]], x.shape[L["f"]]
    OF, KI = k.shape[R["o"]], k.shape[R["i"]]
    ob = B // bgc
    osz = []
    for d in range(ns):
        n = x.shape[L["s"][d]]
        dil = (n - 1) * attrs["lhs"][d] + 1 if n else 0
        padded = dil + attrs["pad"][d][0] + attrs["pad"][d][1]
        win = (attrs["size"][d] - 1) * attrs["rhs"][d] + 1
        osz.append((padded - win) // attrs["stride"][d] + 1 if padded >= win else 0)
    oshape = [0] * (ns + 2)
    oshape[O["b"]], oshape[O["f"]] = ob, OF
    for d in range(ns):
        oshape[O["s"][d]] = osz[d]
    out = np.zeros(oshape)
    for oi in np.ndindex(*oshape):
        b, f = oi[O["b"]], oi[O["f"]]
        g = f // (OF // fgc)
        bg = f // (OF // bgc)
        acc = 0.0
        for kf in range(KI):
            for w in np.ndindex(*attrs["size"]):
                li = [0] * (ns + 2)
                li[L["b"]] = bg * ob + b
                li[L["f"]] = g * KI + kf
                ok = True
                for d in range(ns):
                    p = oi[O["s"][d]] * attrs["stride"][d] + w[d] * attrs["rhs"][d] - attrs["pad"][d][0]
                    if p < 0 or p % attrs["lhs"][d] or p // attrs["lhs"][d] >= x.shape[L["s"][d]]:
                        ok = False
                        break
                    li[L["s"][d]] = p // attrs["lhs"][d]
                if ok:
                    ki = [0] * (ns + 2)
                    ki[R["o"]], ki[R["i"]] = f, kf
                    for d in range(ns):
                        ki[R["s"][d]] = w[d]
                    acc += x[tuple(li)] * k[tuple(ki)]
        out[oi] = acc
    return out


@group
def fft(h):
    for t, rt in [("c64", "f32"), ("c128", "f64")]:
        x = h.gen(t, n=2 * 4 * 6 * 5).reshape(2, 4, 6, 5)
        r = h.gen(rt, n=2 * 4 * 6 * 6, edges=False).reshape(2, 4, 6, 6)
        S = lambda tt, d: h.shp(tt, d)  # noqa: E731
        body = ["f1 = %s fft(p0), fft_type=FFT, fft_length={5}" % S(t, [2, 4, 6, 5]),
                "f2 = %s fft(p0), fft_type=IFFT, fft_length={6,5}" % S(t, [2, 4, 6, 5]),
                "f3 = %s fft(p0), fft_type=FFT, fft_length={4,6,5}" % S(t, [2, 4, 6, 5]),
                "f4 = %s fft(p1), fft_type=RFFT, fft_length={6,6}" % S(t, [2, 4, 6, 4]),
                "f5 = %s fft(f4), fft_type=IRFFT, fft_length={6,6}" % S(rt, [2, 4, 6, 6])]
        res = [("f1", S(t, [2, 4, 6, 5])), ("f2", S(t, [2, 4, 6, 5])), ("f3", S(t, [2, 4, 6, 5])),
               ("f4", S(t, [2, 4, 6, 4])), ("f5", S(rt, [2, 4, 6, 6]))]
        out = h.run("fft %s" % t, h.module([S(t, [2, 4, 6, 5]), S(rt, [2, 4, 6, 6])], body, res), [(t, x), (rt, r)])
        if not out:
            continue
        h.agree("fft %s" % t, *out)
        want = [np.fft.fft(x, axis=-1), np.fft.ifftn(x, axes=(-2, -1)), np.fft.fftn(x, axes=(-3, -2, -1)),
                np.fft.rfftn(r, axes=(-2, -1)), r]
        tol = 1e-4 if t == "c64" else 1e-10
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("fft %s %s" % (name, t), g, w, rtol=tol, atol=tol)


@group
def linalg(h):
    for t in ["f32", "f64"]:
        tol = 1e-4 if t == "f32" else 1e-10
        a = h.gen(t, n=2 * 4 * 4, edges=False).reshape(2, 4, 4)
        spd = np.einsum("bij,bkj->bik", a, a) + 4 * np.eye(4)
        spd = h.round_to(t, spd)
        tri = h.round_to(t, a + 4 * np.eye(4))
        bl = h.gen(t, n=2 * 4 * 3, edges=False).reshape(2, 4, 3)
        br = h.gen(t, n=2 * 3 * 4, edges=False).reshape(2, 3, 4)
        S = lambda d: h.shp(t, d)  # noqa: E731
        body = ["cl = %s cholesky(p0), lower=true" % S([2, 4, 4]), "cu = %s cholesky(p0), lower=false" % S([2, 4, 4])]
        res = [("cl", S([2, 4, 4])), ("cu", S([2, 4, 4]))]
        L = np.linalg.cholesky(spd.astype(np.float64))
        want = [L, np.transpose(L, (0, 2, 1))]
        k = 0
        for left in (True, False):
            for lower in (True, False):
                for tr in ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"):
                    for unit in (False, True):
                        bs = [2, 4, 3] if left else [2, 3, 4]
                        body.append("ts%d = %s triangular-solve(p1, %s), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s"
                                    % (k, S(bs), "p2" if left else "p3", str(left).lower(), str(lower).lower(), str(unit).lower(), tr))
                        res.append(("ts%d" % k, S(bs)))
                        A = np.tril(tri) if lower else np.triu(tri)
                        A = A.astype(np.float64)
                        if unit:
                            A = A - np.einsum("bii->bi", A)[:, :, None] * np.eye(4) + np.eye(4)
                        if tr != "NO_TRANSPOSE":
                            A = np.transpose(A, (0, 2, 1))
                        B = (bl if left else br).astype(np.float64)
                        if left:
                            want.append(np.linalg.solve(A, B))
                        else:
                            want.append(np.transpose(np.linalg.solve(np.transpose(A, (0, 2, 1)), np.transpose(B, (0, 2, 1))), (0, 2, 1)))
                        k += 1
        out = h.run("linalg %s" % t, h.module([S([2, 4, 4]), S([2, 4, 4]), S([2, 4, 3]), S([2, 3, 4])], body, res),
                    [(t, spd), (t, tri), (t, bl), (t, br)])
        if not out:
            continue
        h.agree("linalg %s" % t, *out)
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("%s %s" % (name, t), g, w, rtol=tol, atol=tol)


@group
def sort(h):
    for t in ["f32", "s32", "f64", "u8", "bf16"]:
        x = h.gen(t, n=3 * 16).reshape(3, 16)
        if t in ("f32", "f64", "bf16"):
            x[0, :4] = x[0, 4:8]  # ties
        cmp = ("lt { a = %s[] parameter(0)\n b = %s[] parameter(1)\n c = s32[] parameter(2)\n d = s32[] parameter(3)\n"
               " ROOT r = pred[] compare(a, b), direction=LT%s }\n" % (t, t, ", type=TOTALORDER" if t in h.FLOATS else ""))
        cmp += ("gt { a = %s[] parameter(0)\n b = %s[] parameter(1)\n ROOT r = pred[] compare(a, b), direction=GT%s }\n"
                % (t, t, ", type=TOTALORDER" if t in h.FLOATS else ""))
        S = h.shp(t, [3, 16])
        I = h.shp("s32", [3, 16])
        body = ["io = %s iota(), iota_dimension=1" % I,
                "s1 = (%s, %s) sort(p0, io), dimensions={1}, is_stable=true, to_apply=lt" % (S, I),
                "k1 = %s get-tuple-element(s1), index=0" % S, "v1 = %s get-tuple-element(s1), index=1" % I,
                "s2 = %s sort(p0), dimensions={1}, is_stable=true, to_apply=gt" % S]
        res = [("k1", S), ("v1", I), ("s2", S)]
        if t in ("f32", "s32"):
            body.append("tk = (%s, %s) topk(p0), k=5, largest=true" % (h.shp(t, [3, 5]), h.shp("s32", [3, 5])))
            body.append("tv = %s get-tuple-element(tk), index=0" % h.shp(t, [3, 5]))
            body.append("ti = %s get-tuple-element(tk), index=1" % h.shp("s32", [3, 5]))
            res += [("tv", h.shp(t, [3, 5])), ("ti", h.shp("s32", [3, 5]))]
        out = h.run("sort %s" % t, h.module([S], body, res, pre=cmp), [(t, x)])
        if not out:
            continue
        h.agree("sort %s" % t, *out)
        key = total_key(x) if t in h.FLOATS else x.astype(np.int64)
        perm = np.argsort(key, axis=1, kind="stable")
        desc = np.argsort(-key if t not in h.FLOATS else -key, axis=1, kind="stable")
        want = [np.take_along_axis(x, perm, 1), perm, np.take_along_axis(x, desc, 1)]
        if t in ("f32", "s32"):
            xs = np.where(np.isnan(x), np.inf, x) if t == "f32" else x
            tk = np.argsort(-total_key(x) if t == "f32" else -x.astype(np.int64), axis=1, kind="stable")[:, :5]
            del xs
            want += [np.take_along_axis(x, tk, 1), tk]
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("sort %s %s" % (name, t), h.from_storage(t, g) if name != "v1" and name != "ti" else g,
                      np.asarray(w, np.float64) if t in h.FLOATS and name not in ("v1", "ti") else w)


@group
def batchnorm(h):
    t = "f32"
    x = h.gen(t, n=2 * 3 * 4 * 5, edges=False).reshape(2, 3, 4, 5)
    sc, of = h.gen(t, n=3, edges=False), h.gen(t, n=3, edges=False)
    mean, var = h.gen(t, n=3, edges=False), h.gen(t, n=3, edges=False, positive=True)
    gy = h.gen(t, n=120, edges=False).reshape(2, 3, 4, 5)
    S = h.shp(t, [2, 3, 4, 5])
    V = h.shp(t, [3])
    eps = 0.001
    body = ["tr = (%s, %s, %s) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1" % (S, V, V),
            "t0 = %s get-tuple-element(tr), index=0" % S, "t1 = %s get-tuple-element(tr), index=1" % V,
            "t2 = %s get-tuple-element(tr), index=2" % V,
            "in = %s batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1" % S,
            "gr = (%s, %s, %s) batch-norm-grad(p0, p1, p3, p4, p5), epsilon=0.001, feature_index=1" % (S, V, V),
            "g0 = %s get-tuple-element(gr), index=0" % S, "g1 = %s get-tuple-element(gr), index=1" % V,
            "g2 = %s get-tuple-element(gr), index=2" % V]
    res = [("t0", S), ("t1", V), ("t2", V), ("in", S), ("g0", S), ("g1", V), ("g2", V)]
    out = h.run("batchnorm", h.module([S, V, V, V, V, S], body, res),
                [(t, x), (t, sc), (t, of), (t, mean), (t, var), (t, gy)])
    if not out:
        return
    h.agree("batchnorm", *out)
    xd = x.astype(np.float64)
    ax = (0, 2, 3)
    bc = lambda v: np.asarray(v, np.float64).reshape(1, 3, 1, 1)  # noqa: E731
    mu, va = xd.mean(axis=ax), xd.var(axis=ax)
    y = (xd - bc(mu)) / np.sqrt(bc(va) + eps) * bc(sc) + bc(of)
    yi = (xd - bc(mean)) / np.sqrt(bc(var) + eps) * bc(sc) + bc(of)
    m = 2 * 4 * 5
    xc = xd - bc(mean)
    inv = 1 / np.sqrt(bc(var) + eps)
    sdy = gy.astype(np.float64).sum(axis=ax)
    sdyx = (gy * xc).sum(axis=ax)
    gx = bc(sc) * inv * (gy - bc(sdy) / m - xc * bc(sdyx) / (m * (bc(var) + eps)))
    want = [y, mu, va, yi, gx, sdyx * inv.reshape(3), sdy]
    for (name, _), w, g in zip(res, want, out[0]):
        h.compare("batchnorm %s" % name, g, w, rtol=1e-4, atol=1e-4)


@group
def select_clamp(h):
    for t in ["pred", "s8", "s32", "u64", "f16", "bf16", "f32", "f64", "c64"]:
        p = h.gen("pred")
        x, y = h.gen(t), h.gen(t)
        s = h.shp(t, [h.N])
        body = ["se = %s select(p0, p1, p2)" % s]
        res = [("se", s)]
        want = [np.where(p, x, y)]
        if t not in ("pred", "c64"):
            lo, hi = h.gen(t), h.gen(t)
            body.append("cl = %s clamp(p3, p1, p4)" % s)
            res.append(("cl", s))
            if t in h.INTS:
                want.append(np.array([min(max(int(a), int(b)), int(c)) for a, b, c in zip(lo, x, hi)], dtype=object))
            else:
                with np.errstate(invalid="ignore"):
                    want.append(np.minimum(np.maximum(lo.astype(np.float64), x), hi))
            params = [h.shp("pred", [h.N]), s, s, s, s]
            ins = [("pred", p), (t, x), (t, y), (t, lo), (t, hi)]
        else:
            params = [h.shp("pred", [h.N]), s, s]
            ins = [("pred", p), (t, x), (t, y)]
        out = h.run("select/clamp %s" % t, h.module(params, body, res), ins)
        if not out:
            continue
        h.agree("select/clamp %s" % t, *out)
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("%s %s" % (name, t), h.from_storage(t, g), np.asarray(w) if t in h.INTS or t in ("pred", "c64") else np.asarray(w, np.float64),
                      atol=1e-300 if name == "cl" and t in h.FLOATS else 0)


@group
def complex_ops(h):
    for t, rt in [("c64", "f32"), ("c128", "f64")]:
        x, y = h.gen(t), h.gen(t)
        s, r = h.shp(t, [h.N]), h.shp(rt, [h.N])
        bops = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide}
        uops = {"negate": np.negative, "exponential": np.exp, "log": np.log, "sqrt": np.sqrt,
                "sine": np.sin, "cosine": np.cos, "tanh": np.tanh}
        body = ["b%d = %s %s(p0, p1)" % (i, s, op) for i, op in enumerate(bops)]
        body += ["u%d = %s %s(p0)" % (i, s, op) for i, op in enumerate(uops)]
        body += ["ab = %s abs(p0)" % r, "re = %s real(p0)" % r, "im = %s imag(p0)" % r,
                 "cx = %s complex(re, im)" % s]
        res = [("b%d" % i, s) for i in range(len(bops))] + [("u%d" % i, s) for i in range(len(uops))]
        res += [("ab", r), ("re", r), ("im", r), ("cx", s)]
        out = h.run("complex %s" % t, h.module([s, s], body, res), [(t, x), (t, y)])
        if not out:
            continue
        h.agree("complex %s" % t, *out)
        xd, yd = x.astype(np.complex128), y.astype(np.complex128)
        want = [f(xd, yd) for f in bops.values()] + [f(xd) for f in uops.values()]
        want += [np.abs(xd), xd.real, xd.imag, xd]
        tol = 1e-5 if t == "c64" else 1e-12
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("complex %s %s" % (name, t), g, w, rtol=tol, atol=tol)


# ---- narrow types (f8, f4, s4, u4): through convert, arithmetic, bitcast ----
# (mantissa bits, smallest normal exponent, largest finite, overflow result:
# "inf", "nan" or "sat", negative zero kept)
NARROW = {
    "f8e5m2": (2, -14, 57344.0, "inf", True),
    "f8e4m3": (3, -6, 240.0, "inf", True),
    "f8e4m3fn": (3, -6, 448.0, "nan", True),
    "f8e5m2fnuz": (2, -15, 57344.0, "nan", False),
    "f8e4m3fnuz": (3, -7, 240.0, "nan", False),
    "f8e3m4": (4, -2, 15.5, "inf", True),
    "f4e2m1fn": (1, 0, 6.0, "sat", True),
}


def round_fmt(x, t):
    """x (float) rounded to narrow float type t, nearest even (ml_dtypes)."""
    mb, emin, mx, ovf, negzero = NARROW[t]
    if math.isnan(x):
        return 0.0 if ovf == "sat" else math.nan
    if math.isinf(x):
        return {"inf": x, "nan": math.nan, "sat": math.copysign(mx, x)}[ovf]
    a = abs(x)
    if a == 0:
        return x if negzero else 0.0
    e = max(math.frexp(a)[1] - 1, emin)
    q = 2.0 ** (e - mb)
    r = round(a / q) * q  # Python round() is half-to-even
    if r > mx:
        r = {"inf": math.inf, "nan": math.nan, "sat": mx}[ovf]
    if r == 0 and not negzero:
        return 0.0
    return math.copysign(r, x)


@group
def narrow(h):
    n = 40
    for t in NARROW:
        mx = NARROW[t][2]
        x = h.RNG.uniform(-mx * 0.6, mx * 0.6, n)
        x[:8] = [0.0, -0.0, 1.0, -1.5, mx, -mx, mx * 1.2, 2.0 ** (NARROW[t][1] - 1)]
        if NARROW[t][3] != "sat":
            x[8:10] = [math.nan, math.inf]
        x = x.astype(np.float32).astype(np.float64)
        y = h.RNG.uniform(-mx * 0.3, mx * 0.3, n).astype(np.float32).astype(np.float64)
        F, N8 = h.shp("f32", [n]), h.shp(t, [n])
        body = ["a = %s convert(p0)" % N8, "b = %s convert(p1)" % N8,
                "ra = %s convert(a)" % F,
                "s = %s add(a, b)" % N8, "rs = %s convert(s)" % F,
                "m = %s multiply(a, b)" % N8, "rm = %s convert(m)" % F,
                "g = %s negate(a)" % N8, "rg = %s convert(g)" % F,
                "c = pred[%d] compare(a, b), direction=LT" % n]
        res = [("ra", F), ("rs", F), ("rm", F), ("rg", F), ("c", h.shp("pred", [n]))]
        out = h.run("narrow %s" % t, h.module([F, F], body, res), [("f32", x), ("f32", y)])
        if not out:
            continue
        h.agree("narrow %s" % t, *out)
        A = [round_fmt(v, t) for v in x]
        B = [round_fmt(v, t) for v in y]
        want = [A, [round_fmt(a + b, t) for a, b in zip(A, B)], [round_fmt(a * b, t) for a, b in zip(A, B)],
                [round_fmt(-a, t) for a in A], [a < b for a, b in zip(A, B)]]
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("narrow %s %s" % (name, t), g, np.array(w, dtype=bool if name == "c" else np.float64),
                      inputs=[x, y])
    # 4-bit integers: wrap on convert and arithmetic, bitcast to and from u8
    for t, lo, hi in [("s4", -8, 8), ("u4", 0, 16)]:
        x = np.array([int(v) for v in h.RNG.integers(-40, 40, n)], dtype=np.int32)
        y = np.array([int(v) for v in h.RNG.integers(-40, 40, n)], dtype=np.int32)
        S, N4 = h.shp("s32", [n]), h.shp(t, [n])

        def w4(v):
            v &= 15
            return v - 16 if t == "s4" and v >= 8 else v
        body = ["a = %s convert(p0)" % N4, "b = %s convert(p1)" % N4, "ra = %s convert(a)" % S,
                "s = %s add(a, b)" % N4, "rs = %s convert(s)" % S,
                "m = %s multiply(a, b)" % N4, "rm = %s convert(m)" % S,
                "sh = %s shift-right-arithmetic(a, b)" % N4, "rsh = %s convert(sh)" % S,
                "bc = %s bitcast-convert(a)" % h.shp("u4" if t == "s4" else "s4", [n]),
                "rbc = %s convert(bc)" % S,
                "pk = u4[%d,2] bitcast-convert(p2)" % (n // 2), "rpk = %s convert(pk)" % h.shp("s32", [n // 2, 2])]
        res = [("ra", S), ("rs", S), ("rm", S), ("rsh", S), ("rbc", S), ("rpk", h.shp("s32", [n // 2, 2]))]
        bytes_ = np.array([int(v) for v in h.RNG.integers(0, 256, n // 2)], dtype=np.uint8)
        out = h.run("narrow %s" % t, h.module([S, S, h.shp("u8", [n // 2])], body, res),
                    [("s32", x), ("s32", y), ("u8", bytes_)])
        if not out:
            continue
        h.agree("narrow %s" % t, *out)
        A = [w4(int(v)) for v in x]
        B = [w4(int(v)) for v in y]

        def sra4(a, b):
            ub = b & 15
            sa = a if t == "s4" else (a - 16 if a >= 8 else a)
            return w4(-1 if sa < 0 else 0) if ub >= 4 else w4(sa >> ub)
        other = (lambda v: v & 15) if t == "s4" else (lambda v: v - 16 if v >= 8 else v)
        want = [A, [w4(a + b) for a, b in zip(A, B)], [w4(a * b) for a, b in zip(A, B)],
                [sra4(a, b) for a, b in zip(A, B)], [other(a) for a in A],
                [[int(v) & 15, int(v) >> 4] for v in bytes_]]
        for (name, _), w, g in zip(res, want, out[0]):
            h.compare("narrow %s %s" % (name, t), g, np.array(w, dtype=object))
