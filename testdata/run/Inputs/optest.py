#!/usr/bin/env python3
"""Numeric tests of hlo-run against numpy.

For one group of ops (argv[1]) this builds HLO modules for every element
type the group covers, writes random inputs mixed with edge values (NaN,
+-inf, +-0, subnormals, INT_MIN, max values) as .npy, runs hlo-run on the
fast path and on the reference path (-o out.npz), and compares both with
values computed here with numpy or plain Python.  The fast and reference
results must agree exactly (dot and convolution: to rounding).  Prints one
line per failure and "optest GROUP: N checks, M failed"; exit 1 on failure.
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
RNG = np.random.default_rng(20261122)
N = 48

INTS = ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
NPT = {"pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
       "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
       "f16": np.float16, "f32": np.float32, "f64": np.float64,
       "c64": np.complex64, "c128": np.complex128}
BITS = {"s8": 8, "s16": 16, "s32": 32, "s64": 64, "u8": 8, "u16": 16, "u32": 32, "u64": 64}

checks = 0
failures = []


# ---- bf16 helpers: numpy has no bfloat16; values travel as '<V2' bit patterns
def f32_to_bf16_bits(x):
    x = np.asarray(x, dtype=np.float32)
    shape = x.shape
    x = x.reshape(-1)
    u = x.view(np.uint32).astype(np.uint64)
    nan = np.isnan(x)
    r = ((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)).astype(np.uint16)
    return np.where(nan, ((u >> np.uint64(16)) | np.uint64(0x40)).astype(np.uint16), r).reshape(shape)


def bf16_bits_to_f32(b):
    b = np.asarray(b, dtype=np.uint16)
    return (b.reshape(-1).astype(np.uint32) << np.uint32(16)).view(np.float32).reshape(b.shape)


def round_to(t, x):
    """Round float64 values x to type t (returned as float64)."""
    with np.errstate(all="ignore"):
        if t == "bf16":
            return bf16_bits_to_f32(f32_to_bf16_bits(np.asarray(x, np.float64).astype(np.float32))).astype(np.float64)
        return np.asarray(x, np.float64).astype(NPT[t]).astype(np.float64)


def to_storage(t, vals):
    """numpy array to save for element type t from logical values."""
    if t == "bf16":
        return f32_to_bf16_bits(np.asarray(vals, np.float32)).view("V2")
    return np.asarray(vals).astype(NPT[t])


def from_storage(t, arr):
    if t == "bf16":
        return bf16_bits_to_f32(arr.view(np.uint16)).astype(np.float64)
    return arr


# ---- inputs ------------------------------------------------------------------------
def float_edges(t):
    if t == "bf16":
        tiny, big, sub = 1.1754944e-38, 3.3895314e38, 9.2e-41
    else:
        fi = np.finfo(NPT[t])
        tiny, big = float(fi.tiny), float(fi.max)
        sub = float(fi.smallest_subnormal)
    return [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, sub, -sub, tiny, big, -big, 1.0, -1.0, 0.5, 2.5, -2.5]


def int_edges(t):
    info = np.iinfo(NPT[t])
    return [info.min, info.max, 0, 1, -1 if info.min < 0 else 2, info.min + 1, info.max - 1, 7]


def gen(t, n=N, lo=-4.0, hi=4.0, edges=True, positive=False):
    """Logical values (float64 for floats, python ints for ints, complex)."""
    if t == "pred":
        return RNG.integers(0, 2, n).astype(bool)
    if t in INTS:
        info = np.iinfo(NPT[t])
        v = [int(x) for x in RNG.integers(max(info.min, -100), min(info.max, 100) + 1, n)]
        if edges:
            e = int_edges(t)[:n]
            v[:len(e)] = e
        return np.array(v, dtype=NPT[t])
    if t in ("c64", "c128"):
        return (RNG.uniform(lo, hi, n) + 1j * RNG.uniform(lo, hi, n)).astype(NPT[t])
    v = RNG.uniform(lo if not positive else 0.01, hi, n)
    if edges:
        e = float_edges(t)
        if positive:
            e = [x for x in e if not (x < 0 or (x == 0 and math.copysign(1, x) < 0))]
        e = e[:n]
        v[:len(e)] = e
        RNG.shuffle(v)
    return round_to(t, v)


# ---- running -------------------------------------------------------------------------
def run(name, text, inputs):
    """inputs: list of (type, logical values array).  Returns (fast, ref) lists
    of arrays (storage form), or None after recording a failure."""
    global checks
    with tempfile.TemporaryDirectory() as d:
        mod = os.path.join(d, "m.hlo")
        with open(mod, "w") as f:
            f.write(text)
        paths = []
        for i, (t, v) in enumerate(inputs):
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, to_storage(t, v))
            paths.append(p)
        outs = []
        for ref in (False, True):
            out = os.path.join(d, "out%d.npz" % ref)
            cmd = [HLO_RUN, mod] + paths + ["-o", out] + (["--reference"] if ref else [])
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                checks += 1
                failures.append("%s: hlo-run%s failed (%d): %s" % (name, " --reference" if ref else "",
                                                                   r.returncode, r.stderr.strip()[:400]))
                return None
            z = np.load(out)
            outs.append([z["out%d" % i] for i in range(len(z.files))])
        return outs


def same_bits(a, b):
    if a.dtype.kind == "V" or b.dtype.kind == "V":
        return a.tobytes() == b.tobytes()
    if a.dtype.kind in "fc":
        an, bn = np.isnan(a), np.isnan(b)
        return bool(np.array_equal(an, bn) and np.array_equal(a[~an], b[~bn]))
    return bool(np.array_equal(a, b))


def compare(name, got, want, rtol=0.0, atol=0.0, inputs=None):
    """got: array from hlo-run (storage form), want: expected logical values."""
    global checks
    checks += 1
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        failures.append("%s: shape %s, expected %s" % (name, got.shape, want.shape))
        return
    if got.dtype.kind in "fcV" or want.dtype.kind in "fc":
        g = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64) if got.dtype.kind != "V" else got
        w = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        gn, wn = np.isnan(g), np.isnan(w)
        with np.errstate(all="ignore"):
            bad = (gn != wn) | (~gn & ~wn & ~((g == w) | (np.abs(g - w) <= atol + rtol * np.abs(w))))
        if rtol == 0 and atol == 0:  # exact: also the sign of zero
            z = (~gn) & (w == 0) & (g == 0)
            if got.dtype.kind == "f":
                bad |= z & (np.signbit(g) != np.signbit(w.real if w.dtype.kind == "c" else w))
    else:
        bad = got.astype(object) != want.astype(object)
    bad = np.asarray(bad)
    if bad.any():
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        extra = ""
        if inputs is not None:
            extra = " input=" + ", ".join(repr(np.asarray(a).reshape(got.shape)[i] if np.asarray(a).shape == got.shape else "") for a in inputs)
        failures.append("%s: %d of %d differ; first at %s: got %r, expected %r%s" %
                        (name, int(bad.sum()), bad.size, i, got[i], want[i], extra))


def agree(name, fast, ref, tol=0.0):
    """The fast path must match the reference path."""
    global checks
    for i, (a, b) in enumerate(zip(fast, ref)):
        checks += 1
        if tol == 0:
            if not same_bits(a, b):
                failures.append("%s: fast and reference paths differ in output %d" % (name, i))
        else:
            if not np.allclose(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
                               b.astype(np.complex128 if b.dtype.kind == "c" else np.float64),
                               rtol=tol, atol=tol, equal_nan=True):
                failures.append("%s: fast and reference paths differ in output %d" % (name, i))


def module(params, body, results, pre=""):
    """params: list of shape strings; body: list of 'name = shape op(...)';
    results: list of (name, shape)."""
    lines = ["HloModule test", pre, "ENTRY e {"]
    for i, s in enumerate(params):
        lines.append("  p%d = %s parameter(%d)" % (i, s, i))
    lines += ["  " + b for b in body]
    lines.append("  ROOT out = (%s) tuple(%s)" % (", ".join(s for _, s in results),
                                               ", ".join(n for n, _ in results)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def shp(t, dims):
    return "%s[%s]" % (t, ",".join(str(d) for d in dims))


from optest_groups import GROUPS  # noqa: E402  (the per-op expectations)


def main():
    group = sys.argv[1] if len(sys.argv) > 1 else "all"
    names = list(GROUPS) if group == "all" else group.split(",")
    for g in names:
        if g not in GROUPS:
            print("unknown group", g)
            return 2
        GROUPS[g](sys.modules[__name__])
    for f in failures:
        print("FAIL", f)
    print("optest %s: %d checks, %d failed" % (group, checks, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
