#!/usr/bin/env python3
"""Zero-sized shapes through every op of hlo-run, on every path.

Each case is a module whose operands, results, slices, windows or batch
dimensions have size 0 (next to large non-zero dimensions, so that the
fast kernels, their threaded splits and the BLAS calls are reached).  Every
case runs four times: on the reference path (--reference) and on the fast
path with --threads 1, 2 and 3.  Each run must exit 0, print nothing on
standard error, and give the result numpy computes independently of
hlo-run (np.zeros / np.full for empty sums and reductions, np.concatenate,
np.broadcast_to, the operand itself, ...; inputs hold infinities and NaN,
which nothing read from an empty operand may see): right shape, and exactly
the right values (an empty reduction gives its init value, a dot with K = 0
gives zeros, a gather from an empty operand gives zeros).  Prints one line
per failure and "zero_sized: N cases, M runs, K failed"; exit 1 on failure.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

HLO_RUN = os.environ.get("HLO_RUN", "hlo-run")
RNG = np.random.default_rng(20261125)
NPT = {"pred": np.bool_, "s8": np.int8, "s32": np.int32, "s64": np.int64, "u8": np.uint8,
       "u32": np.uint32, "f16": np.float16, "f32": np.float32, "f64": np.float64,
       "c64": np.complex64, "c128": np.complex128}
RUNS = [["--reference"], ["--threads", "1"], ["--threads", "2"], ["--threads", "3"]]

CASES = []


def S(t, *dims):
    return "%s[%s]" % (t, ",".join(str(d) for d in dims))


def case(name, params, body, expect, comps="", data=None):
    """params: [(type, dims)]; body: instruction lines (the last is the ROOT);
    expect(inputs) -> list of expected arrays (one per output, tuple outputs
    flattened), or a string: the module is invalid and every run must exit 1
    with that message; data: {param index: array} instead of random values."""
    CASES.append((name, params, body, expect, comps, data or {}))


def bf16_bits(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)).astype(np.uint16)


def storage(t, x):
    if t == "bf16":
        return bf16_bits(x).view("V2")
    return np.asarray(x).astype(NPT[t])


def logical(a):
    if a.dtype.kind == "V" and a.dtype.itemsize == 2:
        return (a.view(np.uint16).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
    return a


def gen(t, dims):
    n = int(np.prod(dims, dtype=np.int64))
    if t == "pred":
        v = RNG.integers(0, 2, n).astype(bool)
    elif t[0] in "su":
        v = RNG.integers(0, 6, n).astype(NPT[t])
    elif t[0] == "c":
        v = (RNG.integers(-4, 5, n) + 1j * RNG.integers(-4, 5, n)).astype(NPT[t])
    else:
        v = RNG.integers(-8, 9, n).astype(np.float64) / 4  # exact in every float type
        if n >= 3:  # infinities and NaN: results read from empty operands must not see them
            v[RNG.choice(n, 3, replace=False)] = [np.inf, -np.inf, np.nan]
    return v.reshape(dims)


def comp(name, op, t):
    return ("%s {\n  a = %s parameter(0)\n  b = %s parameter(1)\n  ROOT r = %s %s(a, b)\n}\n"
            % (name, S(t), S(t), S(t), op))


ADD = comp("add", "add", "f32")
COMPS = {t: comp("add_" + t, "add", t) + comp("max_" + t, "maximum", t) + comp("min_" + t, "minimum", t)
         + comp("mul_" + t, "multiply", t) for t in ("f32", "f64", "s32", "f16", "bf16")}
GE = ("ge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT r = pred[] compare(a, b), direction=GE\n}\n")
LT = ("lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT r = pred[] compare(a, b), direction=LT\n}\n")
ARGMAX = ("am {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n"
          "  d = s32[] parameter(3)\n  g = pred[] compare(a, c), direction=GE\n  x = f32[] select(g, a, c)\n"
          "  y = s32[] select(g, b, d)\n  ROOT t = (f32[], s32[]) tuple(x, y)\n}\n")
LT2 = ("lt2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  c = s32[] parameter(2)\n"
       "  d = s32[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n")


def empty(t, *dims):
    return np.zeros(dims, dtype=np.float64 if t not in NPT or t[0] == "f" else NPT[t])


# ---- elementwise, conversions, structure -----------------------------------------------
def elementwise():
    for dims in [(0,), (0, 4096), (4096, 0), (3, 0, 5)]:
        for t in ("f32", "f64", "s32", "f16", "bf16"):
            s = S(t, *dims)
            ops = ["negate", "abs"] + (["exponential", "sqrt", "tanh", "floor"] if t[0] in "fb" else ["not"])
            body = ["u%d = %s %s(p0)" % (i, s, op) for i, op in enumerate(ops)]
            body += ["b%d = %s %s(p0, p1)" % (i, s, op)
                     for i, op in enumerate(["add", "multiply", "maximum", "divide", "subtract"])]
            body += ["c = %s compare(p0, p1), direction=LT" % S("pred", *dims),
                     "s = %s select(c, p0, p1)" % s, "k = %s clamp(p0, p1, p1)" % s,
                     "v = %s convert(p0)" % S("f32" if t != "f32" else "s32", *dims)]
            names = ["u%d" % i for i in range(len(ops))] + ["b%d" % i for i in range(5)] + ["c", "s", "k", "v"]
            body.append("ROOT r = (%s) tuple(%s)" % (", ".join(
                [s] * (len(ops) + 5) + [S("pred", *dims), s, s, S("f32" if t != "f32" else "s32", *dims)]),
                ", ".join(names)))
            case("elementwise %s" % s, [(t, dims), (t, dims)], body,
                 lambda a, n=len(names), d=dims: [np.zeros(d)] * n)
    # an elementwise fusion (loop program) with broadcast, slice and transpose inside
    for n in (0, 1 << 17):
        fz = ("fz {\n  a = f32[%d,0] parameter(0)\n  b = f32[0] parameter(1)\n"
              "  bb = f32[%d,0] broadcast(b), dimensions={1}\n  m = f32[%d,0] multiply(a, bb)\n"
              "  e = f32[%d,0] exponential(m)\n  t = f32[0,%d] transpose(e), dimensions={1,0}\n"
              "  ROOT s = f32[0,%d] slice(t), slice={[0:0], [0:%d]}\n}\n") % (n, n, n, n, n, n, n)
        case("loop fusion f32[%d,0]" % n, [("f32", (n, 0)), ("f32", (0,))],
             ["ROOT f = f32[0,%d] fusion(p0, p1), kind=kLoop, calls=fz" % n],
             lambda a, n=n: [np.zeros((0, n))], comps=fz)
    # a fusion whose output is non-empty while one leaf is empty (concatenate, pad)
    fc = ("fc {\n  a = f32[0,300] parameter(0)\n  b = f32[400,300] parameter(1)\n"
          "  c = f32[400,300] concatenate(a, b), dimensions={0}\n  z = f32[] constant(1.5)\n"
          "  p = f32[400,300] pad(a, z), padding=200_200x0_0\n  ROOT r = f32[400,300] add(c, p)\n}\n")
    case("fusion of concatenate and pad with an empty leaf", [("f32", (0, 300)), ("f32", (400, 300))],
         ["ROOT f = f32[400,300] fusion(p0, p1), kind=kLoop, calls=fc"], lambda a: [a[1] + 1.5], comps=fc)
    s = S("f32", 0, 7)
    case("bitcast, bitcast-convert, copy, reshape", [("f32", (0, 7))],
         ["a = f32[7,0] bitcast(p0)", "b = s32[0,7] bitcast-convert(p0)", "c = u8[0,7,4] bitcast-convert(p0)",
          "d = f32[0,7] copy(p0)", "e = f32[7,0,1] reshape(p0)", "g = s32[] get-dimension-size(p0), dimensions={0}",
          "h = f32[0,7] reduce-precision(p0), exponent_bits=5, mantissa_bits=2", "i = f16[14,0]{0,1} bitcast(p0)",
          "ROOT r = (f32[7,0], s32[0,7], u8[0,7,4], f32[0,7], f32[7,0,1], s32[], f32[0,7], f16[14,0]) "
          "tuple(a, b, c, d, e, g, h, i)"],
         lambda a: [np.zeros((7, 0)), np.zeros((0, 7)), np.zeros((0, 7, 4)), np.zeros((0, 7)), np.zeros((7, 0, 1)),
                    np.array(0), np.zeros((0, 7)), np.zeros((14, 0))])
    case("map over f32[0,9]", [("f32", (0, 9)), ("f32", (0, 9))],
         ["ROOT m = f32[0,9] map(p0, p1), dimensions={0,1}, to_apply=add"], lambda a: [np.zeros((0, 9))], comps=ADD)
    case("complex and real of c64[0,3]", [("f32", (0, 3)), ("f32", (0, 3))],
         ["c = c64[0,3] complex(p0, p1)", "r = f32[0,3] real(c)", "ROOT t = (c64[0,3], f32[0,3]) tuple(c, r)"],
         lambda a: [np.zeros((0, 3), np.complex128), np.zeros((0, 3))])


# ---- data movement ------------------------------------------------------------------------
def movement():
    for t in ("f32", "s8", "f64", "pred"):
        case("broadcast %s scalar to [0,4096]" % t, [(t, ())],
             ["ROOT b = %s broadcast(p0), dimensions={}" % S(t, 0, 4096)], lambda a: [np.zeros((0, 4096))])
    case("broadcast f32[0] to [300000,0]", [("f32", (0,))],
         ["ROOT b = f32[300000,0] broadcast(p0), dimensions={1}"], lambda a: [np.zeros((300000, 0))])
    case("broadcast f32[3] to [3,0,5]", [("f32", (3,))],
         ["ROOT b = f32[3,0,5] broadcast(p0), dimensions={0}"], lambda a: [np.zeros((3, 0, 5))])
    for dims, perm in [((0, 3, 5), (2, 0, 1)), ((1024, 0), (1, 0)), ((0, 1024), (1, 0)),
                       ((64, 64, 0), (2, 1, 0)), ((0, 64, 64), (0, 2, 1))]:
        out = tuple(dims[p] for p in perm)
        case("transpose f32%s" % list(dims), [("f32", dims)],
             ["ROOT t = %s transpose(p0), dimensions={%s}" % (S("f32", *out), ",".join(map(str, perm)))],
             lambda a, out=out: [np.zeros(out)])
    case("reshape f32[0,1024] to [1024,0,1]", [("f32", (0, 1024))],
         ["ROOT t = f32[1024,0,1] reshape(p0)"], lambda a: [np.zeros((1024, 0, 1))])
    case("reverse f32[0,5] and f32[5,0]", [("f32", (0, 5)), ("f32", (5, 0))],
         ["a = f32[0,5] reverse(p0), dimensions={0,1}", "b = f32[5,0] reverse(p1), dimensions={1}",
          "ROOT t = (f32[0,5], f32[5,0]) tuple(a, b)"], lambda a: [np.zeros((0, 5)), np.zeros((5, 0))])
    case("iota s32[0], f32[5,0], f32[0,5]", [],
         ["a = s32[0] iota(), iota_dimension=0", "b = f32[5,0] iota(), iota_dimension=1",
          "c = f32[0,5] iota(), iota_dimension=1", "ROOT t = (s32[0], f32[5,0], f32[0,5]) tuple(a, b, c)"],
         lambda a: [np.zeros(0), np.zeros((5, 0)), np.zeros((0, 5))])
    case("slice to empty and slice of empty", [("f32", (10, 10)), ("f32", (0, 10))],
         ["a = f32[0,10] slice(p0), slice={[3:3], [0:10]}", "b = f32[10,0] slice(p0), slice={[0:10], [10:10]}",
          "c = f32[0,4] slice(p1), slice={[0:0], [2:10:2]}", "ROOT t = (f32[0,10], f32[10,0], f32[0,4]) tuple(a, b, c)"],
         lambda a: [np.zeros((0, 10)), np.zeros((10, 0)), np.zeros((0, 4))])
    case("concatenate with empty pieces", [("f32", (0, 4)), ("f32", (3, 4)), ("f32", (0, 4)), ("f32", (2, 4))],
         ["ROOT c = f32[5,4] concatenate(p0, p1, p2, p3), dimensions={0}"],
         lambda a: [np.concatenate(a, axis=0)])
    case("concatenate of empty pieces only", [("f32", (0, 4)), ("f32", (0, 4))],
         ["ROOT c = f32[0,4] concatenate(p0, p1), dimensions={0}"], lambda a: [np.zeros((0, 4))])
    case("concatenate along a zero-sized other dim", [("f32", (3, 0)), ("f32", (5, 0))],
         ["ROOT c = f32[8,0] concatenate(p0, p1), dimensions={0}"], lambda a: [np.zeros((8, 0))])
    big = 1 << 16
    case("concatenate large with empty", [("f32", (big, 0)), ("f32", (big, 8)), ("f32", (big, 0))],
         ["ROOT c = f32[%d,8] concatenate(p0, p1, p2), dimensions={1}" % big],
         lambda a: [np.concatenate(a, axis=1)])
    # pad: empty operand padded to non-empty, negative padding to empty, interior
    for t in ("f32", "s32", "f64"):
        case("pad %s[0] to 5" % t, [(t, (0,)), (t, ())],
             ["ROOT p = %s pad(p0, p1), padding=2_3" % S(t, 5)], lambda a: [np.full(5, a[1])])
        case("pad %s[0,3] with interior" % t, [(t, (0, 3)), (t, ())],
             ["ROOT p = %s pad(p0, p1), padding=1_1_4x0_0_2" % S(t, 2, 7)],
             lambda a: [np.full((2, 7), a[1])])
    case("pad f32[4] by -2_-2 to empty", [("f32", (4,)), ("f32", ())],
         ["ROOT p = f32[0] pad(p0, p1), padding=-2_-2"], lambda a: [np.zeros(0)])
    case("pad f32[3,4] by -3_0 to empty", [("f32", (3, 4)), ("f32", ())],
         ["ROOT p = f32[0,6] pad(p0, p1), padding=-3_0x1_1"], lambda a: [np.zeros((0, 6))])
    case("pad f32[0,2048] to [4,2048]", [("f32", (0, 2048)), ("f32", ())],
         ["ROOT p = f32[4,2048] pad(p0, p1), padding=1_3x0_0"], lambda a: [np.full((4, 2048), a[1])])
    # dynamic-slice and dynamic-update-slice
    case("dynamic-slice of f32[0,4]", [("f32", (0, 4)), ("s32", ()), ("s32", ())],
         ["ROOT d = f32[0,2] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={0,2}"],
         lambda a: [np.zeros((0, 2))], data={1: np.array(3, np.int32), 2: np.array(1, np.int32)})
    case("dynamic-slice of size 0 from f32[5,4]", [("f32", (5, 4)), ("s32", ()), ("s32", ())],
         ["ROOT d = f32[0,4] dynamic-slice(p0, p1, p2), dynamic_slice_sizes={0,4}"],
         lambda a: [np.zeros((0, 4))], data={1: np.array(7, np.int32), 2: np.array(-1, np.int32)})
    case("dynamic-update-slice of f32[0,4]", [("f32", (0, 4)), ("f32", (0, 2)), ("s32", ()), ("s32", ())],
         ["ROOT d = f32[0,4] dynamic-update-slice(p0, p1, p2, p3)"],
         lambda a: [np.zeros((0, 4))], data={2: np.array(1, np.int32), 3: np.array(9, np.int32)})
    for up in ((0, 4), (5, 0), (0, 0)):
        case("dynamic-update-slice of f32%s into f32[5,4]" % list(up),
             [("f32", (5, 4)), ("f32", up), ("s32", ()), ("s32", ())],
             ["ROOT d = f32[5,4] dynamic-update-slice(p0, p1, p2, p3)"],
             lambda a: [a[0]], data={2: np.array(9, np.int32), 3: np.array(-3, np.int32)})
    n = 1 << 16
    case("dynamic-update-slice of f32[%d,0] into a large operand" % n,
         [("f32", (n, 4)), ("f32", (n, 0)), ("s32", ()), ("s32", ())],
         ["ROOT d = f32[%d,4] dynamic-update-slice(p0, p1, p2, p3)" % n],
         lambda a: [a[0]], data={2: np.array(0, np.int32), 3: np.array(2, np.int32)})


# ---- gather and scatter ---------------------------------------------------------------------
def gather_scatter():
    idx = np.array([[0], [2], [1]], np.int32)
    # the crash of issue 14: a collapsed slice dim of bound 0 from an empty operand
    for t in ("f32", "s32", "f64", "pred"):
        case("gather %s[0,4] collapsed, non-empty result" % t, [(t, (0, 4)), ("s32", (3, 1))],
             ["ROOT g = %s gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
              "index_vector_dim=1, slice_sizes={0,4}" % S(t, 3, 4)], lambda a: [np.zeros((3, 4))], data={1: idx})
    case("gather f32[0,4096] rows (fast row gather)", [("f32", (0, 4096)), ("s32", (300,))],
         ["ROOT g = f32[300,4096] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, "
          "start_index_map={0}, index_vector_dim=1, slice_sizes={0,4096}"],
         lambda a: [np.zeros((300, 4096))], data={1: np.arange(300, dtype=np.int32) % 7})
    case("gather with slice size 0", [("f32", (5, 4)), ("s32", (3, 1))],
         ["ROOT g = f32[3,0,4] gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, "
          "index_vector_dim=1, slice_sizes={0,4}"], lambda a: [np.zeros((3, 0, 4))], data={1: idx})
    case("gather with no indices", [("f32", (5, 4)), ("s32", (0, 1))],
         ["ROOT g = f32[0,4] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
          "index_vector_dim=1, slice_sizes={1,4}"], lambda a: [np.zeros((0, 4))])
    case("gather rows with no indices (fast row gather)", [("f32", (64, 4096)), ("s32", (0,))],
         ["ROOT g = f32[0,4096] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, "
          "index_vector_dim=1, slice_sizes={1,4096}"], lambda a: [np.zeros((0, 4096))])
    case("gather with an empty index vector", [("f32", (5, 4)), ("s32", (3, 0))],
         ["ROOT g = f32[3,5,4] gather(p0, p1), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={}, "
          "index_vector_dim=1, slice_sizes={5,4}"], lambda a: [np.broadcast_to(a[0], (3, 5, 4))])
    case("gather with zero batching dims", [("f32", (0, 5, 4)), ("s32", (0, 1))],
         ["ROOT g = f32[0,4] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, "
          "operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={0,1,4}"],
         lambda a: [np.zeros((0, 4))])
    case("gather with zero batching dims and empty slices", [("f32", (3, 0, 4)), ("s32", (3, 1))],
         ["ROOT g = f32[3,4] gather(p0, p1), offset_dims={1}, collapsed_slice_dims={1}, start_index_map={1}, "
          "operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,0,4}"],
         lambda a: [np.zeros((3, 4))], data={1: idx})
    sc = comp("add", "add", "f32")
    case("scatter with no updates", [("f32", (5, 4)), ("s32", (0, 1)), ("f32", (0, 4))],
         ["ROOT s = f32[5,4] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add"], lambda a: [a[0]], comps=sc)
    case("scatter with empty windows", [("f32", (5, 4)), ("s32", (3, 1)), ("f32", (3, 0))],
         ["ROOT s = f32[5,4] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add"], lambda a: [a[0]], comps=sc,
         data={1: idx})
    case("scatter into an empty operand", [("f32", (0, 4)), ("s32", (3, 1)), ("f32", (3, 0, 4))],
         ["ROOT s = f32[0,4] scatter(p0, p1, p2), update_window_dims={1,2}, inserted_window_dims={}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add"],
         lambda a: [np.zeros((0, 4))], comps=sc, data={1: idx})
    case("scatter into an empty operand, inserted dim of bound 0", [("f32", (0, 4)), ("s32", (3, 1)), ("f32", (3, 4))],
         ["ROOT s = f32[0,4] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add"],
         lambda a: [np.zeros((0, 4))], comps=sc, data={1: idx})
    n = 1 << 16
    case("scatter rows, large operand, no updates (fast scatter)", [("f32", (n, 16)), ("s32", (0,)), ("f32", (0, 16))],
         ["ROOT s = f32[%d,16] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add" % n],
         lambda a: [a[0]], comps=sc)
    case("scatter elements, large operand, no updates (fast scatter)", [("f32", (n,)), ("s32", (0, 1)), ("f32", (0,))],
         ["ROOT s = f32[%d] scatter(p0, p1, p2), update_window_dims={}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add" % n],
         lambda a: [a[0]], comps=sc)
    case("scatter rows of width 0 (fast scatter)", [("f32", (n, 0)), ("s32", (100,)), ("f32", (100, 0))],
         ["ROOT s = f32[%d,0] scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add" % n],
         lambda a: [np.zeros((n, 0))], comps=sc, data={1: np.arange(100, dtype=np.int32)})
    case("variadic scatter with no updates", [("f32", (5,)), ("s32", (5,)), ("s32", (0, 1)), ("f32", (0,)), ("s32", (0,))],
         ["ROOT s = (f32[5], s32[5]) scatter(p0, p1, p2, p3, p4), update_window_dims={}, inserted_window_dims={0}, "
          "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=pair"],
         lambda a: [a[0], a[1]],
         comps="pair {\n  a = f32[] parameter(0)\n  b = s32[] parameter(1)\n  c = f32[] parameter(2)\n"
               "  d = s32[] parameter(3)\n  ROOT t = (f32[], s32[]) tuple(c, d)\n}\n")


# ---- reductions and windows -------------------------------------------------------------------
def reductions():
    ops = {"add": 0, "max": 1, "min": 2, "mul": 3}
    for t in ("f32", "f64", "s32", "f16", "bf16"):
        init = {"add": 2.5, "max": -1.5, "min": 3.25, "mul": 0.75} if t[0] in "fb" else \
            {"add": 7, "max": -9, "min": 11, "mul": 3}
        for dims, rd in [((0,), (0,)), ((1024, 0), (1,)), ((0, 1024), (0,)), ((0, 1024), (0, 1)),
                         ((1 << 18, 0), (1,)), ((3, 0, 700), (1,)), ((0, 5), (1,)), ((300, 0, 2), (1, 2))]:
            out = tuple(d for i, d in enumerate(dims) if i not in rd)
            for op, iv in init.items():
                if t in ("f16", "bf16") and dims[0] == 1 << 18:
                    continue
                case("reduce-%s %s over %s" % (op, S(t, *dims), list(rd)), [(t, dims)],
                     ["z = %s constant(%s)" % (S(t), iv),
                      "ROOT r = %s reduce(p0, z), dimensions={%s}, to_apply=%s_%s"
                      % (S(t, *out), ",".join(map(str, rd)), op, t)],
                     lambda a, out=out, iv=iv: [np.full(out, iv)], comps=COMPS[t])
    # a reduce fusion (the fast reduce of a fused producer) over an empty dim
    fr = COMPS["f32"] + ("fr {\n  a = f32[4096,0] parameter(0)\n  e = f32[4096,0] exponential(a)\n"
                         "  z = f32[] constant(-2)\n  ROOT r = f32[4096] reduce(e, z), dimensions={1}, to_apply=add_f32\n}\n")
    case("reduce fusion over an empty dim", [("f32", (4096, 0))],
         ["ROOT f = f32[4096] fusion(p0), kind=kInput, calls=fr"], lambda a: [np.full(4096, -2.0)], comps=fr)
    case("variadic reduce (argmax) over an empty dim", [("f32", (6, 0)), ("s32", (6, 0))],
         ["z = f32[] constant(-inf)", "i = s32[] constant(-1)",
          "ROOT r = (f32[6], s32[6]) reduce(p0, p1, z, i), dimensions={1}, to_apply=am"],
         lambda a: [np.full(6, -np.inf), np.full(6, -1)],
         comps=ARGMAX)
    case("reduce pred[0,8] with and/or", [("pred", (0, 8))],
         ["t = pred[] constant(true)", "f = pred[] constant(false)",
          "a = pred[8] reduce(p0, t), dimensions={0}, to_apply=and_p",
          "o = pred[8] reduce(p0, f), dimensions={0}, to_apply=or_p", "ROOT r = (pred[8], pred[8]) tuple(a, o)"],
         lambda a: [np.ones(8, bool), np.zeros(8, bool)], comps=comp("and_p", "and", "pred") + comp("or_p", "or", "pred"))
    # reduce-window: empty operand, windows over padding only, empty output
    for t in ("f32", "s32"):
        iv = 1.5 if t == "f32" else 4
        case("reduce-window %s[0] padded: windows over padding only" % t, [(t, (0,))],
             ["z = %s constant(%s)" % (S(t), iv),
              "ROOT r = %s reduce-window(p0, z), window={size=2 pad=2_2}, to_apply=add_%s" % (S(t, 3), t)],
             lambda a, iv=iv: [np.full(3, iv)], comps=COMPS[t])
        case("reduce-window %s[0,64] 1x1" % t, [(t, (0, 64))],
             ["z = %s constant(%s)" % (S(t), iv),
              "ROOT r = %s reduce-window(p0, z), window={size=1x4 stride=1x4}, to_apply=max_%s" % (S(t, 0, 16), t)],
             lambda a: [np.zeros((0, 16))], comps=COMPS[t])
        case("reduce-window %s[4,4] window larger than the operand" % t, [(t, (4, 4))],
             ["z = %s constant(%s)" % (S(t), iv),
              "ROOT r = %s reduce-window(p0, z), window={size=5x2}, to_apply=add_%s" % (S(t, 0, 3), t)],
             lambda a: [np.zeros((0, 3))], comps=COMPS[t])
    case("reduce-window f32[0,512] padded to non-empty", [("f32", (0, 512))],
         ["z = f32[] constant(-3)",
          "ROOT r = f32[3,512] reduce-window(p0, z), window={size=2x1 pad=2_2x0_0}, to_apply=min_f32"],
         lambda a: [np.full((3, 512), -3.0)], comps=COMPS["f32"])
    case("reduce-window f32[0] with base dilation", [("f32", (0,))],
         ["z = f32[] constant(2)",
          "ROOT r = f32[2] reduce-window(p0, z), window={size=1 pad=1_1 lhs_dilate=3}, to_apply=add_f32"],
         lambda a: [np.full(2, 2.0)], comps=COMPS["f32"])
    case("variadic reduce-window over f32[0]", [("f32", (0,)), ("s32", (0,))],
         ["z = f32[] constant(-inf)", "i = s32[] constant(-1)",
          "ROOT r = (f32[2], s32[2]) reduce-window(p0, p1, z, i), window={size=1 pad=1_1}, to_apply=am"],
         lambda a: [np.full(2, -np.inf), np.full(2, -1)],
         comps=ARGMAX)
    # select-and-scatter
    sas = COMPS["f32"] + GE
    case("select-and-scatter on f32[0,4]", [("f32", (0, 4)), ("f32", (0, 2)), ("f32", ())],
         ["ROOT s = f32[0,4] select-and-scatter(p0, p1, p2), window={size=1x2 stride=1x2}, select=ge, scatter=add_f32"],
         lambda a: [np.zeros((0, 4))], comps=sas)
    case("select-and-scatter with an empty source", [("f32", (4, 4)), ("f32", (0, 2)), ("f32", ())],
         ["ROOT s = f32[4,4] select-and-scatter(p0, p1, p2), window={size=5x2 stride=1x2}, select=ge, scatter=add_f32"],
         lambda a: [np.full((4, 4), a[2])], comps=sas)
    case("select-and-scatter on f32[0] with padding", [("f32", (0,)), ("f32", (2,)), ("f32", ())],
         ["ROOT s = f32[0] select-and-scatter(p0, p1, p2), window={size=2 stride=2 pad=2_2}, select=ge, scatter=add_f32"],
         lambda a: [np.zeros(0)], comps=sas)
    # sort and topk
    for dims, d in [((0,), 0), ((0, 5), 0), ((5, 0), 1), ((0, 100000), 1), ((100000, 0), 0), ((0, 100000), 0)]:
        case("sort f32%s along %d" % (list(dims), d), [("f32", dims)],
             ["ROOT s = %s sort(p0), dimensions={%d}, to_apply=lt" % (S("f32", *dims), d)],
             lambda a, dims=dims: [np.zeros(dims)], comps=LT)
    case("sort f32[0,7] keys with s32 values", [("f32", (0, 7)), ("s32", (0, 7))],
         ["ROOT s = (f32[0,7], s32[0,7]) sort(p0, p1), dimensions={1}, to_apply=lt2"],
         lambda a: [np.zeros((0, 7)), np.zeros((0, 7))], comps=LT2)
    case("sort s32[0] (radix path)", [("s32", (0,))],
         ["ROOT s = s32[0] sort(p0), dimensions={0}, to_apply=lti"], lambda a: [np.zeros(0)],
         comps="lti {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
               "  ROOT r = pred[] compare(a, b), direction=LT\n}\n")
    case("topk k=0 of f32[5,8]", [("f32", (5, 8))],
         ["ROOT t = (f32[5,0], s32[5,0]) topk(p0), k=0, largest=true"], lambda a: [np.zeros((5, 0)), np.zeros((5, 0))])
    case("topk of f32[0,8]", [("f32", (0, 8))],
         ["ROOT t = (f32[0,3], s32[0,3]) topk(p0), k=3, largest=true"], lambda a: [np.zeros((0, 3)), np.zeros((0, 3))])
    case("topk k=0 of f32[0]", [("f32", (0,))],
         ["ROOT t = (f32[0], s32[0]) topk(p0), k=0, largest=false"], lambda a: [np.zeros(0), np.zeros(0)])


# ---- dot, convolution, linear algebra ----------------------------------------------------------
def linalg():
    for t in ("f32", "f64", "s32", "f16", "bf16", "c64"):
        for m, k, n in [(3, 0, 4), (0, 5, 7), (6, 5, 0), (512, 0, 512), (0, 0, 0), (1, 0, 300), (300, 0, 1),
                        (0, 512, 512), (512, 512, 0)]:
            if t in ("f16", "bf16", "c64") and max(m, k, n) > 300:
                continue
            case("dot %s [%d,%d]x[%d,%d]" % (t, m, k, k, n), [(t, (m, k)), (t, (k, n))],
                 ["ROOT d = %s dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}" % S(t, m, n)],
                 lambda a, m=m, n=n: [np.zeros((m, n))])
    for b, m, k, n in [(0, 3, 4, 5), (4, 3, 0, 5), (64, 64, 0, 64), (4, 0, 3, 5)]:
        case("batch dot f32[%d,%d,%d]x[%d,%d,%d]" % (b, m, k, b, k, n), [("f32", (b, m, k)), ("f32", (b, k, n))],
             ["ROOT d = %s dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
              "rhs_contracting_dims={1}" % S("f32", b, m, n)], lambda a, s=(b, m, n): [np.zeros(s)])
    case("dot f32[0]x[0] (vector, K=0)", [("f32", (0,)), ("f32", (0,))],
         ["ROOT d = f32[] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={0}"], lambda a: [np.zeros(())])
    case("dot f32[256,0]x[0] (matrix-vector, K=0)", [("f32", (256, 0)), ("f32", (0,))],
         ["ROOT d = f32[256] dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}"], lambda a: [np.zeros(256)])
    case("dot transposed operands, K=0", [("f32", (0, 300)), ("f32", (200, 0))],
         ["ROOT d = f32[300,200] dot(p0, p1), lhs_contracting_dims={0}, rhs_contracting_dims={1}"],
         lambda a: [np.zeros((300, 200))])
    fd = ("fd {\n  a = f32[400,0] parameter(0)\n  b = f32[0,300] parameter(1)\n"
          "  d = f32[400,300] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
          "  c = f32[] constant(1.25)\n  cb = f32[400,300] broadcast(c), dimensions={}\n"
          "  ROOT r = f32[400,300] add(d, cb)\n}\n")
    case("dot fusion with an epilogue, K=0", [("f32", (400, 0)), ("f32", (0, 300))],
         ["ROOT f = f32[400,300] fusion(p0, p1), kind=kOutput, calls=fd"], lambda a: [np.full((400, 300), 1.25)], comps=fd)
    case("ragged-dot with m=0", [("f32", (0, 4)), ("f32", (2, 4, 5)), ("s32", (2,))],
         ["ROOT d = f32[0,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
          "lhs_ragged_dims={0}, rhs_group_dims={0}"], lambda a: [np.zeros((0, 5))],
         data={2: np.array([0, 0], np.int32)})
    case("ragged-dot with K=0", [("f32", (3, 0)), ("f32", (2, 0, 5)), ("s32", (2,))],
         ["ROOT d = f32[3,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
          "lhs_ragged_dims={0}, rhs_group_dims={0}"], lambda a: [np.zeros((3, 5))],
         data={2: np.array([1, 2], np.int32)})
    # convolution: zero batch, features, spatial, kernel window
    for t in ("f32", "f64", "f16"):
        conv = "ROOT c = %s convolution(p0, p1), window={%s}, dim_labels=bf01_oi01->bf01"
        for lhs, rhs, win, out in [((0, 3, 8, 8), (4, 3, 3, 3), "size=3x3", (0, 4, 6, 6)),
                                   ((2, 0, 8, 8), (4, 0, 3, 3), "size=3x3", (2, 4, 6, 6)),
                                   ((2, 3, 8, 8), (0, 3, 3, 3), "size=3x3", (2, 0, 6, 6)),
                                   ((2, 3, 0, 8), (4, 3, 1, 3), "size=1x3", (2, 4, 0, 6)),
                                   ((2, 3, 0, 8), (4, 3, 3, 3), "size=3x3 pad=2_2x0_0", (2, 4, 2, 6)),
                                   ((2, 3, 2, 8), (4, 3, 3, 3), "size=3x3", (2, 4, 0, 6)),
                                   ((8, 0, 32, 32), (16, 0, 3, 3), "size=3x3 pad=1_1x1_1", (8, 16, 32, 32)),
                                   ((8, 16, 32, 32), (0, 16, 3, 3), "size=3x3 pad=1_1x1_1", (8, 0, 32, 32)),
                                   ((0, 16, 32, 32), (16, 16, 1, 1), "size=1x1", (0, 16, 32, 32))]:
            if t == "f16" and lhs[0] == 8:
                continue
            case("convolution %s %s * %s %s" % (t, list(lhs), list(rhs), win), [(t, lhs), (t, rhs)],
                 [conv % (S(t, *out), win)], lambda a, out=out: [np.zeros(out)])
    case("convolution with feature groups, zero batch", [("f32", (0, 8, 16, 16)), ("f32", (8, 1, 3, 3))],
         ["ROOT c = f32[0,8,14,14] convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, "
          "feature_group_count=8"], lambda a: [np.zeros((0, 8, 14, 14))])
    case("depthwise convolution with zero spatial output", [("f32", (2, 8, 2, 16)), ("f32", (8, 1, 3, 3))],
         ["ROOT c = f32[2,8,0,14] convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, "
          "feature_group_count=8"], lambda a: [np.zeros((2, 8, 0, 14))])
    case("depthwise convolution over an empty height padded", [("f32", (2, 8, 0, 16)), ("f32", (8, 1, 3, 3))],
         ["ROOT c = f32[2,8,2,16] convolution(p0, p1), window={size=3x3 pad=2_2x1_1}, dim_labels=bf01_oi01->bf01, "
          "feature_group_count=8"], lambda a: [np.zeros((2, 8, 2, 16))])
    case("convolution NHWC, zero input features", [("f32", (4, 16, 16, 0)), ("f32", (3, 3, 0, 32))],
         ["ROOT c = f32[4,16,16,32] convolution(p0, p1), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"],
         lambda a: [np.zeros((4, 16, 16, 32))])
    case("convolution with batch groups, zero features", [("f32", (4, 0, 8, 8)), ("f32", (4, 0, 3, 3))],
         ["ROOT c = f32[1,4,6,6] convolution(p0, p1), window={size=3x3}, dim_labels=bf01_oi01->bf01, "
          "batch_group_count=4"], lambda a: [np.zeros((1, 4, 6, 6))])
    case("1-D convolution of an empty signal padded", [("f32", (3, 2, 0)), ("f32", (5, 2, 4))],
         ["ROOT c = f32[3,5,3] convolution(p0, p1), window={size=4 pad=3_3}, dim_labels=bf0_oi0->bf0"],
         lambda a: [np.zeros((3, 5, 3))])
    # linear algebra
    case("cholesky f32[0,0] and f32[0,3,3]", [("f32", (0, 0)), ("f32", (0, 3, 3))],
         ["a = f32[0,0] cholesky(p0), lower=true", "b = f32[0,3,3] cholesky(p1), lower=false",
          "ROOT t = (f32[0,0], f32[0,3,3]) tuple(a, b)"], lambda a: [np.zeros((0, 0)), np.zeros((0, 3, 3))])
    case("triangular-solve with a [0,0]", [("f32", (0, 0)), ("f32", (0, 5))],
         ["ROOT x = f32[0,5] triangular-solve(p0, p1), left_side=true, lower=true, transpose_a=NO_TRANSPOSE"],
         lambda a: [np.zeros((0, 5))])
    case("triangular-solve with b [3,0]", [("f32", (3, 3)), ("f32", (3, 0))],
         ["ROOT x = f32[3,0] triangular-solve(p0, p1), left_side=true, lower=true, unit_diagonal=true, "
          "transpose_a=TRANSPOSE"], lambda a: [np.zeros((3, 0))])
    case("triangular-solve right side, a [0,0]", [("f32", (0, 0)), ("f32", (4, 0))],
         ["ROOT x = f32[4,0] triangular-solve(p0, p1), left_side=false, lower=false, transpose_a=NO_TRANSPOSE"],
         lambda a: [np.zeros((4, 0))])
    case("fft of c64[0,8] and c64[4,0]", [("c64", (0, 8)), ("c64", (4, 0))],
         ["a = c64[0,8] fft(p0), fft_type=FFT, fft_length={8}", "b = c64[4,0] fft(p1), fft_type=IFFT, fft_length={0}",
          "ROOT t = (c64[0,8], c64[4,0]) tuple(a, b)"],
         lambda a: [np.zeros((0, 8), np.complex128), np.zeros((4, 0), np.complex128)])
    case("rfft and irfft of zero batch", [("f32", (0, 8)), ("c64", (0, 5))],
         ["a = c64[0,5] fft(p0), fft_type=RFFT, fft_length={8}", "b = f32[0,8] fft(p1), fft_type=IRFFT, fft_length={8}",
          "ROOT t = (c64[0,5], f32[0,8]) tuple(a, b)"],
         lambda a: [np.zeros((0, 5), np.complex128), np.zeros((0, 8))])
    for kind in ("training", "inference", "grad"):
        if kind == "training":
            ps, line, res = [("f32", (0, 4)), ("f32", (4,)), ("f32", (4,))], \
                "batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1", "(f32[0,4], f32[4], f32[4])"
            # the mean and variance of no element are 0/0 = NaN, as XLA's expansion computes them
            want = [np.zeros((0, 4)), np.full(4, np.nan), np.full(4, np.nan)]
        elif kind == "inference":
            ps = [("f32", (0, 4))] + [("f32", (4,))] * 4
            line, res, want = "batch-norm-inference(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1", \
                "f32[0,4]", [np.zeros((0, 4))]
        else:
            ps = [("f32", (0, 4))] + [("f32", (4,))] * 3 + [("f32", (0, 4))]
            line, res = "batch-norm-grad(p0, p1, p2, p3, p4), epsilon=0.001, feature_index=1", "(f32[0,4], f32[4], f32[4])"
            want = [np.zeros((0, 4)), np.zeros(4), np.zeros(4)]
        # (a positive variance, so that rsqrt(variance + epsilon) is finite)
        case("batch-norm-%s over an empty batch" % kind, ps, ["ROOT b = %s %s" % (res, line)], lambda a, w=want: w,
             data={4 if kind == "inference" else 3: np.array([0.5, 1, 2, 4], np.float32)})
    case("batch-norm-training with no features", [("f32", (3, 0)), ("f32", (0,)), ("f32", (0,))],
         ["ROOT b = (f32[3,0], f32[0], f32[0]) batch-norm-training(p0, p1, p2), epsilon=0.001, feature_index=1"],
         lambda a: [np.zeros((3, 0)), np.zeros(0), np.zeros(0)])


# ---- control flow, collectives, random numbers ----------------------------------------------------
def control():
    body = ("body {\n  p = (s32[], f32[0,4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
            "  x = f32[0,4] get-tuple-element(p), index=1\n  one = s32[] constant(1)\n  j = s32[] add(i, one)\n"
            "  y = f32[0,4] exponential(x)\n  ROOT t = (s32[], f32[0,4]) tuple(j, y)\n}\n"
            "cond {\n  p = (s32[], f32[0,4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
            "  n = s32[] constant(5)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n")
    case("while loop over f32[0,4]", [("f32", (0, 4))],
         ["z = s32[] constant(0)", "t = (s32[], f32[0,4]) tuple(z, p0)",
          "ROOT w = (s32[], f32[0,4]) while(t), condition=cond, body=body"],
         lambda a: [np.array(5), np.zeros((0, 4))], comps=body)
    br = ("b0 {\n  x = f32[0,3] parameter(0)\n  ROOT n = f32[0,3] negate(x)\n}\n"
          "b1 {\n  x = f32[0,3] parameter(0)\n  ROOT n = f32[0,3] abs(x)\n}\n")
    case("conditional on f32[0,3]", [("pred", ()), ("f32", (0, 3))],
         ["ROOT c = f32[0,3] conditional(p0, p1, p1), true_computation=b0, false_computation=b1"],
         lambda a: [np.zeros((0, 3))], comps=br)
    cl = ("cl {\n  x = f32[0,5] parameter(0)\n  ROOT y = f32[5,0] transpose(x), dimensions={1,0}\n}\n")
    case("call on f32[0,5]", [("f32", (0, 5))], ["ROOT c = f32[5,0] call(p0), to_apply=cl"],
         lambda a: [np.zeros((5, 0))], comps=cl)
    case("collectives on f32[0,4]", [("f32", (0, 4))],
         ["a = f32[0,4] all-reduce(p0), to_apply=add", "b = f32[0,4] all-gather(p0), dimensions={0}, replica_groups={{0}}",
          "c = f32[0,4] all-to-all(p0), dimensions={0}, replica_groups={{0}}",
          "d = f32[0,4] reduce-scatter(p0), dimensions={0}, replica_groups={{0}}, to_apply=add",
          "e = f32[0,4] collective-permute(p0), source_target_pairs={{0,0}}",
          "ROOT t = (f32[0,4], f32[0,4], f32[0,4], f32[0,4], f32[0,4]) tuple(a, b, c, d, e)"],
         lambda a: [np.zeros((0, 4))] * 5, comps=ADD)
    case("rng of f32[0,5] and s32[3,0]", [("f32", ()), ("f32", ()), ("s32", ()), ("s32", ())],
         ["a = f32[0,5] rng(p0, p1), distribution=rng_uniform", "b = s32[3,0] rng(p2, p3), distribution=rng_uniform",
          "c = f32[0] rng(p0, p1), distribution=rng_normal", "ROOT t = (f32[0,5], s32[3,0], f32[0]) tuple(a, b, c)"],
         lambda a: [np.zeros((0, 5)), np.zeros((3, 0)), np.zeros(0)],
         data={0: np.array(0, np.float32), 1: np.array(1, np.float32), 2: np.array(0, np.int32),
               3: np.array(9, np.int32)})
    case("rng-bit-generator of u32[0,4]", [("s64", (2,))],
         ["k = u64[2] bitcast-convert(p0)",
          "r = (u64[2], u32[0,4]) rng-bit-generator(k), algorithm=rng_philox",
          "ROOT o = u32[0,4] get-tuple-element(r), index=1"], lambda a: [np.zeros((0, 4))])


def more():
    """Kernel variants the groups above do not reach."""
    # a kernel spatial dim of size 0 is a window of size 0, which XLA's shape
    # inference rejects (as for reduce-window): an error, not a crash
    for lhs, rhs, win, out, fg in [((2, 3, 8, 8), (4, 3, 0, 3), "size=0x3", (2, 4, 9, 6), 1),
                                   ((2, 8, 8, 8), (8, 1, 3, 0), "size=3x0", (2, 8, 6, 9), 8),
                                   ((1, 2, 4, 5, 6), (3, 2, 0, 2, 2), "size=0x2x2", (1, 3, 5, 4, 5), 1)]:
        labels = "bf012_oi012->bf012" if len(lhs) == 5 else "bf01_oi01->bf01"
        case("convolution with an empty window %s groups %d" % (win, fg), [("f32", lhs), ("f32", rhs)],
             ["ROOT c = %s convolution(p0, p1), window={%s}, dim_labels=%s, feature_group_count=%d"
              % (S("f32", *out), win, labels, fg)], "has a non-positive size, stride or dilation")
    case("3-D convolution, zero depth padded", [("f32", (2, 4, 0, 6, 6)), ("f32", (4, 1, 2, 3, 3))],
         ["ROOT c = f32[2,4,1,4,4] convolution(p0, p1), window={size=2x3x3 pad=1_1x0_0x0_0}, "
          "dim_labels=bf012_oi012->bf012, feature_group_count=4"], lambda a: [np.zeros((2, 4, 1, 4, 4))])
    # scatter combiners and transposed update layouts, no updates
    n = 1 << 14
    combs = {"max": comp("mx", "maximum", "f32"), "mul": comp("ml", "multiply", "f32"),
             "assign": "as {\n  a = f32[] parameter(0)\n  ROOT b = f32[] parameter(1)\n}\n",
             "s32 xor": comp("xr", "xor", "s32")}
    for name, c in combs.items():
        t = "s32" if name.startswith("s32") else "f32"
        fn = c.split(" ")[0]
        case("scatter (%s), no updates, transposed updates" % name, [(t, (n, 16)), ("s32", (0,)), (t, (16, 0))],
             ["ROOT s = %s scatter(p0, p1, p2), update_window_dims={0}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%s" % (S(t, n, 16), fn)],
             lambda a: [a[0]], comps=c)
        case("scatter (%s) of empty windows" % name, [(t, (n, 0)), ("s32", (64, 1)), (t, (64, 0))],
             ["ROOT s = %s scatter(p0, p1, p2), update_window_dims={1}, inserted_window_dims={0}, "
              "scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%s" % (S(t, n, 0), fn)],
             lambda a: [np.zeros((n, 0))], comps=c, data={1: np.arange(64, dtype=np.int32).reshape(64, 1)})
    # transposes that keep the last dim (runs) or are the identity (copy)
    case("transpose keeping the last dim, f32[0,3,4096]", [("f32", (0, 3, 4096))],
         ["ROOT t = f32[3,0,4096] transpose(p0), dimensions={1,0,2}"], lambda a: [np.zeros((3, 0, 4096))])
    case("transpose keeping the last dim of size 0", [("f32", (4096, 3, 0))],
         ["ROOT t = f32[3,4096,0] transpose(p0), dimensions={1,0,2}"], lambda a: [np.zeros((3, 4096, 0))])
    case("identity transpose of f32[4096,0]", [("f32", (4096, 0))],
         ["ROOT t = f32[4096,0] transpose(p0), dimensions={0,1}"], lambda a: [np.zeros((4096, 0))])
    # threaded reductions with no output rows or nothing to reduce
    for dims, rd, out in [((0, 1 << 20), 1, (0,)), ((1 << 20, 0), 0, (0,)), ((0, 1 << 20), 0, (1 << 20,)),
                          ((64, 0, 4096), 1, (64, 4096))]:
        case("reduce-add f32%s over %d (threads)" % (list(dims), rd), [("f32", dims)],
             ["z = f32[] constant(0.5)", "ROOT r = %s reduce(p0, z), dimensions={%d}, to_apply=add_f32" % (S("f32", *out), rd)],
             lambda a, out=out: [np.full(out, 0.5)], comps=COMPS["f32"])
    # dot epilogue fusions with an empty result
    for m, k, nn in [(0, 64, 300), (400, 64, 0), (0, 0, 0)]:
        fd = ("fd {\n  a = f32[%d,%d] parameter(0)\n  b = f32[%d,%d] parameter(1)\n"
              "  d = f32[%d,%d] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
              "  ROOT r = f32[%d,%d] tanh(d)\n}\n") % (m, k, k, nn, m, nn, m, nn)
        case("dot fusion with an epilogue [%d,%d]x[%d,%d]" % (m, k, k, nn), [("f32", (m, k)), ("f32", (k, nn))],
             ["ROOT f = %s fusion(p0, p1), kind=kOutput, calls=fd" % S("f32", m, nn)],
             lambda a, s=(m, nn): [np.zeros(s)], comps=fd)
    case("integer batch dot with zero batch and K", [("s32", (0, 3, 4)), ("s32", (0, 4, 5)), ("s8", (7, 0)), ("s8", (0, 9))],
         ["a = s32[0,3,5] dot(p0, p1), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
          "rhs_contracting_dims={1}", "b = s8[7,9] dot(p2, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
          "ROOT t = (s32[0,3,5], s8[7,9]) tuple(a, b)"], lambda a: [np.zeros((0, 3, 5)), np.zeros((7, 9))])
    # narrow and complex element types
    for t in ("s4", "u4", "f8e4m3fn", "f8e5m2", "c64", "c128", "u8", "s64"):
        s_ = S(t, 0, 8)
        case("elementwise %s" % s_, [],
             ["z = %s constant(%s)" % (S(t), "(0, 0)" if t[0] == "c" else "0"), "x = %s broadcast(z), dimensions={}" % s_, "y = %s add(x, x)" % s_,
              "ROOT r = %s convert(y)" % S("f32" if t[0] != "c" else "c64", 0, 8)], lambda a: [np.zeros((0, 8))])
    # scaled-dot with K = 0 (its scales empty too), stochastic-convert, ragged-all-to-all of nothing
    case("scaled-dot with K=0", [("f32", (3, 0)), ("f32", (3, 0)), ("f32", (0, 4)), ("f32", (0, 4))],
         ["ROOT d = f32[3,4] scaled-dot(p0, p2, p1, p3), lhs_contracting_dims={1}, rhs_contracting_dims={0}"],
         lambda a: [np.zeros((3, 4))])
    case("stochastic-convert of f32[0,4]", [("f32", (0, 4)), ("u32", (0, 4))],
         ["ROOT s = s32[0,4] stochastic-convert(p0, p1)"], lambda a: [np.zeros((0, 4))])
    case("ragged-all-to-all with nothing to send", [("f32", (0, 2)), ("f32", (5, 2)), ("s64", (1, 1)),
                                                    ("s64", (1, 1)), ("s64", (1, 1)), ("s64", (1, 1))],
         ["ROOT r = f32[5,2] ragged-all-to-all(p0, p1, p2, p3, p4, p5), replica_groups={{0}}"],
         lambda a: [a[1]], data={2: np.zeros((1, 1), np.int64), 3: np.zeros((1, 1), np.int64),
                                 4: np.array([[3]], np.int64), 5: np.zeros((1, 1), np.int64)})
    case("ragged-dot with no groups", [("f32", (3, 4)), ("f32", (0, 4, 5)), ("s32", (0,))],
         ["ROOT d = f32[3,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={1}, "
          "lhs_ragged_dims={0}, rhs_group_dims={0}"], lambda a: [np.zeros((3, 5))])
    case("ragged-dot, ragged contracting dim of size 0", [("f32", (3, 0)), ("f32", (0, 5)), ("s32", (2,))],
         ["ROOT d = f32[2,3,5] ragged-dot(p0, p1, p2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, "
          "lhs_ragged_dims={1}"], lambda a: [np.zeros((2, 3, 5))], data={2: np.zeros(2, np.int32)})
    # a while loop whose body slices, pads and updates zero-sized pieces
    wb = ("wb {\n  p = (s32[], f32[0,6], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
          "  x = f32[0,6] get-tuple-element(p), index=1\n  v = f32[4] get-tuple-element(p), index=2\n"
          "  one = s32[] constant(1)\n  j = s32[] add(i, one)\n  z = s32[] constant(0)\n"
          "  d = f32[0,3] dynamic-slice(x, i, i), dynamic_slice_sizes={0,3}\n"
          "  u = f32[0,6] dynamic-update-slice(x, d, z, i)\n  e = f32[0] slice(v), slice={[2:2]}\n"
          "  c = f32[] constant(1)\n  q = f32[4] pad(e, c), padding=1_3\n  w = f32[4] add(v, q)\n"
          "  ROOT t = (s32[], f32[0,6], f32[4]) tuple(j, u, w)\n}\n"
          "wc {\n  p = (s32[], f32[0,6], f32[4]) parameter(0)\n  i = s32[] get-tuple-element(p), index=0\n"
          "  n = s32[] constant(3)\n  ROOT c = pred[] compare(i, n), direction=LT\n}\n")
    case("while loop slicing and padding zero-sized pieces", [("f32", (0, 6)), ("f32", (4,))],
         ["z = s32[] constant(0)", "t = (s32[], f32[0,6], f32[4]) tuple(z, p0, p1)",
          "ROOT w = (s32[], f32[0,6], f32[4]) while(t), condition=wc, body=wb"],
         lambda a: [np.array(3), np.zeros((0, 6)), a[1] + 3], comps=wb)


elementwise()
more()
movement()
gather_scatter()
reductions()
linalg()
control()


def module(params, body, comps):
    lines = ["HloModule zero", comps, "ENTRY e {"]
    lines += ["  p%d = %s parameter(%d)" % (i, S(t, *d), i) for i, (t, d) in enumerate(params)]
    lines += ["  " + b for b in body[:-1]]
    last = body[-1]
    lines.append("  " + (last if last.startswith("ROOT") else "ROOT " + last))
    lines.append("}")
    return "\n".join(lines) + "\n"


def same(got, want):
    got = logical(np.asarray(got))
    want = np.asarray(want)
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if got.size == 0:
        return None
    if got.dtype.kind in "fc" or want.dtype.kind in "fc":
        g = got.astype(np.complex128)
        w = want.astype(np.complex128)
        gn, wn = np.isnan(g), np.isnan(w)
        bad = (gn != wn) | (~gn & (g != w))
    else:
        bad = got.astype(np.int64) != want.astype(np.int64)
    if bad.any():
        i = tuple(int(x) for x in np.argwhere(bad)[0])
        return "%d of %d elements differ; first at %s: got %r, expected %r" % (
            int(bad.sum()), bad.size, i, got[i], want[i])
    return None


def kernels(stderr):
    """Kernel names from a --profile report."""
    lines = stderr.splitlines()
    for i, l in enumerate(lines):
        if "kernel" in l and "instruction" in l:
            a, b = l.index("kernel"), l.index("instruction")
            return {x[a:b].strip() for x in lines[i + 1:] if len(x) > b}
    return set()


def main():
    # --kernels: also list the kernels the fast path ran (from --profile)
    args = [a for a in sys.argv[1:] if a != "--kernels"]
    show = len(args) < len(sys.argv) - 1
    only = args[0] if args else None
    seen = {}
    runs = failed = 0
    with tempfile.TemporaryDirectory() as d:
        for name, params, body, expect, comps, data in CASES:
            if only and only not in name:
                continue
            mod = os.path.join(d, "m.hlo")
            with open(mod, "w") as f:
                f.write(module(params, body, comps))
            vals, paths = [], []
            for i, (t, dims) in enumerate(params):
                v = data.get(i, gen(t, dims))
                vals.append(np.asarray(v).astype(np.float64) if t == "bf16" else np.asarray(v))
                p = os.path.join(d, "in%d.npy" % i)
                np.save(p, storage(t, v))
                paths.append(p)
            want = expect if isinstance(expect, str) else expect(vals)
            for opts in RUNS:
                runs += 1
                out = os.path.join(d, "out.npz")
                if os.path.exists(out):
                    os.remove(out)
                prof = ["--profile"] if show and opts[-1] == "2" else []
                r = subprocess.run([HLO_RUN, mod] + paths + ["-o", out] + opts + prof, capture_output=True, text=True)
                why = None
                if prof:
                    for k in kernels(r.stderr):
                        seen.setdefault(k, []).append(name)
                    if r.returncode == 0:
                        r.stderr = ""
                if isinstance(want, str):
                    if r.returncode != 1 or want not in r.stderr or "runtime error" in r.stderr:
                        why = "expected exit 1 with '%s', got exit %d: %s" % (want, r.returncode, r.stderr[:300])
                elif r.returncode != 0 or r.stderr:
                    why = "exit %d: %s" % (r.returncode, r.stderr.strip()[:600])
                else:
                    z = np.load(out)
                    got = [z["out%d" % i] for i in range(len(z.files))]
                    if len(got) != len(want):
                        why = "%d outputs, expected %d" % (len(got), len(want))
                    for i, (g, w) in enumerate(zip(got, want)):
                        e = same(g, w)
                        if e and not why:
                            why = "output %d: %s" % (i, e)
                if why:
                    failed += 1
                    print("FAIL %s [%s]: %s" % (name, " ".join(opts), why))
    for k in sorted(seen):
        print("kernel %s: %d cases, e.g. %s" % (k, len(seen[k]), seen[k][0]))
    print("zero_sized: %d cases, %d runs, %d failed" % (len(CASES), runs, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
